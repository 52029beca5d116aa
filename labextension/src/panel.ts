// The right-side panel: the current notebook's agent session, driven through the kernel.
// The message stream is the cell widget's own renderer (labextension/widget/widget.js)
// fed by the comm, so the panel and the widget show exactly the same parts.
import { InputDialog } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';
// @ts-expect-error: a plain ES module shared with the cell widget (no type declarations)
import widgetModule from '../widget/widget.js';
import { AgentComm, TARGET } from './comm';
import { agentIcon } from './icon';
import { runOp } from './notebook';
import { CompletionsMsg, KernelMessage, SessionInfo } from './protocol';

type Listener = (msg: unknown) => void;
type State = 'none' | 'connecting' | 'busy' | 'missing' | 'restarting' | 'dead' | 'open' | 'error';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text = ''): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

/** The anywidget-style model widget.js expects, backed by the comm. */
class CommModel {
  private listeners = new Set<Listener>();
  constructor(private panel: AgentPanel) {}
  get(name: string): unknown {
    return name === 'can_compact' ? true : undefined;
  }
  send(content: any): void {
    this.panel.request(content);
  }
  on(_event: string, listener: Listener): void {
    this.listeners.add(listener);
  }
  off(_event: string, listener: Listener): void {
    this.listeners.delete(listener);
  }
  emit(msg: unknown): void {
    this.listeners.forEach(listener => listener(msg));
  }
}

export class AgentPanel extends Widget {
  private notebook: NotebookPanel | null = null;
  private comm: AgentComm | null = null;
  private model = new CommModel(this);
  private disposeView: (() => void) | null = null;
  private state: State = 'none';
  private sessionId = '';
  private wantedSession = '';
  private completionId = 0;
  private completionTimer: number | undefined;
  private busyTimer: number | undefined;
  private generation = 0;
  private listening = new WeakSet<Kernel.IKernelConnection>();

  private sessionSelect = el('select', { class: 'ja-panel-sessions', 'data-testid': 'ja-session-select', title: 'Sessions of this notebook' });
  private banner = el('div', { class: 'ja-panel-banner', 'data-testid': 'ja-panel-banner' });
  private streamHost = el('div', { class: 'ja-panel-stream' });
  private input = el('textarea', {
    class: 'ja-panel-input',
    'data-testid': 'ja-prompt',
    rows: '3',
    placeholder: 'Ask the agent… (Enter sends, Shift+Enter for a new line, @ for variables, cells, files)'
  });
  private completions = el('ul', { class: 'ja-panel-completions', 'data-testid': 'ja-completions', hidden: '' });
  private sendButton = el('button', { class: 'ja-button ja-panel-send', 'data-testid': 'ja-send', type: 'button' }, 'Send');

  constructor() {
    super();
    this.id = 'jupyter-agent-panel';
    this.title.caption = 'Agent';
    this.title.icon = agentIcon;
    this.addClass('ja-panel');
    const newButton = el('button', { class: 'ja-button', 'data-testid': 'ja-session-new', type: 'button', title: 'Start a new session' }, 'New');
    const renameButton = el('button', { class: 'ja-button', 'data-testid': 'ja-session-rename', type: 'button', title: 'Rename this session' }, 'Rename');
    const top = el('div', { class: 'ja-panel-top' });
    top.append(this.sessionSelect, newButton, renameButton);
    const composer = el('div', { class: 'ja-panel-composer' });
    composer.append(this.completions, this.input, this.sendButton);
    this.node.append(top, this.banner, this.streamHost, composer);

    this.sessionSelect.addEventListener('change', () => this.request({ type: 'switch_session', session_id: this.sessionSelect.value }));
    newButton.addEventListener('click', () => this.request({ type: 'new_session' }));
    renameButton.addEventListener('click', () => void this.rename());
    this.sendButton.addEventListener('click', () => this.submit());
    this.input.addEventListener('keydown', event => this.onKey(event));
    this.input.addEventListener('input', () => this.maybeComplete());
    this.setState('none');
  }

  // ------------------------------------------------------------------ notebook & kernel

  /** Follow the active notebook (null: none open). */
  setNotebook(notebook: NotebookPanel | null): void {
    if (notebook === this.notebook) return;
    if (this.notebook) {
      this.notebook.sessionContext.statusChanged.disconnect(this.onStatus, this);
      this.notebook.sessionContext.kernelChanged.disconnect(this.onKernelChanged, this);
    }
    this.notebook = notebook;
    this.disconnect();
    if (!notebook) {
      this.setState('none');
      return;
    }
    notebook.sessionContext.statusChanged.connect(this.onStatus, this);
    notebook.sessionContext.kernelChanged.connect(this.onKernelChanged, this);
    void this.connect();
  }

  private onKernelChanged(): void {
    this.disconnect();
    void this.connect();
  }

  private onStatus(_: unknown, status: Kernel.Status): void {
    window.clearTimeout(this.busyTimer);
    if (status === 'restarting' || status === 'autorestarting') {
      this.disconnect();
      this.setState('restarting');
    } else if (status === 'dead') {
      this.disconnect();
      this.setState('dead');
    } else if (status === 'busy') {
      // every comm message makes the kernel busy for a moment: only say so when it lasts
      this.busyTimer = window.setTimeout(() => this.showKernelBusy(true), 800);
    } else if (status === 'idle') {
      this.showKernelBusy(false);
      if (this.state === 'restarting' || this.state === 'dead' || this.state === 'none') void this.connect();
    }
  }

  private showKernelBusy(busy: boolean): void {
    this.node.dataset.kernelBusy = busy ? 'true' : 'false';
    if (this.state === 'open') {
      this.banner.hidden = !busy;
      this.banner.textContent = busy ? 'The kernel is running a cell; the agent answers when it finishes.' : '';
    }
  }

  async connect(): Promise<void> {
    const notebook = this.notebook;
    if (!notebook) return;
    const generation = ++this.generation;
    this.setState('connecting');
    await notebook.sessionContext.ready;
    const kernel = notebook.sessionContext.session?.kernel;
    if (generation !== this.generation) return;
    if (!kernel) {
      this.setState('dead', 'This notebook has no kernel. Select one to use the agent.');
      return;
    }
    this.listenForAnnounce(kernel);
    if (kernel.status === 'busy') this.setState('busy');
    const comm = new AgentComm(kernel, notebook.context.path);
    comm.onMessage = msg => this.receive(msg);
    comm.onClose = () => {
      if (this.comm === comm) {
        this.comm = null;
        void this.connect();
      }
    };
    // set before the hello arrives: the view's `ready` is sent while the history streams in
    this.comm = comm;
    const result = await comm.open();
    if (generation !== this.generation) {
      comm.close();
      if (this.comm === comm) this.comm = null;
      return;
    }
    if (result.state !== 'open') this.comm = null;
    if (result.state === 'open') {
      this.setState('open');
      if (result.hello.problem) this.setState('open', result.hello.problem);
      const wanted = this.wantedSession;
      this.wantedSession = '';
      if (wanted && wanted !== result.hello.session_id) this.request({ type: 'switch_session', session_id: wanted });
    } else if (result.state === 'missing') {
      this.setState('missing');
    } else {
      comm.close();
      this.setState('error', 'The kernel did not answer. Is it busy with a long cell? Try again when it is idle.');
    }
  }

  /** `%load_ext jupyter_agent` in a cell announces itself: connect without a click. */
  private listenForAnnounce(kernel: Kernel.IKernelConnection): void {
    if (this.listening.has(kernel)) return;
    this.listening.add(kernel);
    kernel.registerCommTarget(TARGET, () => {
      const current = this.notebook?.sessionContext.session?.kernel;
      if (current === kernel && this.state !== 'open') void this.connect();
    });
  }

  private disconnect(): void {
    this.generation++;
    this.comm?.close();
    this.comm = null;
  }

  private async loadExtension(): Promise<void> {
    const kernel = this.notebook?.sessionContext.session?.kernel;
    if (!kernel) return;
    this.setState('connecting');
    const future = kernel.requestExecute({ code: '%load_ext jupyter_agent', silent: false, store_history: false });
    await future.done;
    if (this.state !== 'open') await this.connect();
  }

  /** Show a cell's session: now if connected, else as soon as the kernel says hello. */
  showSession(sessionId: string): void {
    if (this.state === 'open' && this.comm?.isOpen) {
      if (sessionId !== this.sessionId) this.request({ type: 'switch_session', session_id: sessionId });
    } else {
      this.wantedSession = sessionId;
    }
  }

  // ------------------------------------------------------------------ messages

  request(request: any): void {
    if (!this.comm?.isOpen) {
      this.setState(this.state === 'open' ? 'error' : this.state, 'Not connected to the kernel.');
      return;
    }
    this.comm.send(request);
  }

  private receive(msg: KernelMessage): void {
    switch (msg.kind) {
      case 'hello':
        this.showSessions(msg.session_id, msg.sessions);
        return;
      case 'sessions':
        this.showSessions(msg.session_id, msg.sessions);
        return;
      case 'reset':
        this.sessionId = msg.session_id;
        this.newView();
        return;
      case 'completions':
        this.showCompletions(msg);
        return;
      case 'nb_op': {
        const notebook = this.notebook;
        if (!notebook) {
          this.request({ type: 'nb_reply', op_id: msg.op_id, ok: false, error: 'No notebook is open in JupyterLab.' });
          return;
        }
        runOp(notebook, msg).then(
          reply => this.request(reply),
          err => this.request({ type: 'nb_reply', op_id: msg.op_id, ok: false, error: String(err?.message ?? err) })
        );
        return;
      }
      default:
        this.model.emit(msg);
    }
  }

  private newView(): void {
    this.disposeView?.();
    this.streamHost.replaceChildren();
    const root = el('div', { class: 'ja-panel-view', 'data-testid': 'ja-panel-view' });
    this.streamHost.append(root);
    this.disposeView = widgetModule.render({ model: this.model, el: root }) ?? null;
  }

  private showSessions(current: string, sessions: SessionInfo[]): void {
    this.sessionSelect.replaceChildren();
    for (const s of sessions) {
      const option = el('option', { value: s.id }, (s.busy ? '● ' : '') + (s.title || s.id));
      option.selected = s.id === current;
      this.sessionSelect.append(option);
    }
    this.sessionId = current;
  }

  private async rename(): Promise<void> {
    const current = this.sessionSelect.selectedOptions[0]?.textContent ?? '';
    const result = await InputDialog.getText({ title: 'Rename session', text: current.replace(/^● /, '') });
    if (result.button.accept && result.value?.trim()) {
      this.request({ type: 'rename_session', session_id: this.sessionId, title: result.value.trim() });
    }
  }

  // ------------------------------------------------------------------ prompt box

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || this.state !== 'open') return;
    this.request({ type: 'prompt', text });
    this.input.value = '';
    this.hideCompletions();
  }

  private onKey(event: KeyboardEvent): void {
    const open = !this.completions.hidden;
    if (open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      this.moveSelection(event.key === 'ArrowDown' ? 1 : -1);
    } else if (open && (event.key === 'Tab' || event.key === 'Enter')) {
      event.preventDefault();
      const active = this.completions.querySelector('li.ja-active') as HTMLElement | null;
      if (active) this.accept(active.dataset.label ?? '');
    } else if (open && event.key === 'Escape') {
      event.preventDefault();
      this.hideCompletions();
    } else if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      this.submit();
    }
  }

  private mentionQuery(): string | null {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const match = before.match(/(?:^|\s)@([\w:./-]*)$/);
    return match ? match[1] : null;
  }

  private maybeComplete(): void {
    window.clearTimeout(this.completionTimer);
    const query = this.mentionQuery();
    if (query === null || this.state !== 'open') {
      this.hideCompletions();
      return;
    }
    this.completionTimer = window.setTimeout(() => {
      this.request({ type: 'complete', request_id: String(++this.completionId), query });
    }, 120);
  }

  private showCompletions(msg: CompletionsMsg): void {
    if (msg.request_id !== String(this.completionId) || this.mentionQuery() === null) return;
    this.completions.replaceChildren();
    msg.items.forEach((item, i) => {
      const li = el('li', { 'data-label': item.label, class: i === 0 ? 'ja-active' : '' });
      li.append(el('span', { class: 'ja-completion-label' }, '@' + item.label), el('span', { class: 'ja-completion-detail' }, item.detail ?? ''));
      li.addEventListener('mousedown', event => {
        event.preventDefault();
        this.accept(item.label);
      });
      this.completions.append(li);
    });
    this.completions.hidden = msg.items.length === 0;
  }

  private moveSelection(step: number): void {
    const items = [...this.completions.querySelectorAll('li')];
    const at = items.findIndex(li => li.classList.contains('ja-active'));
    items[at]?.classList.remove('ja-active');
    items[(at + step + items.length) % items.length]?.classList.add('ja-active');
  }

  private accept(label: string): void {
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret).replace(/@([\w:./-]*)$/, '@' + label);
    const after = this.input.value.slice(caret);
    const done = !label.endsWith(':') && !label.endsWith('/');
    this.input.value = before + (done ? ' ' : '') + after;
    const position = before.length + (done ? 1 : 0);
    this.input.setSelectionRange(position, position);
    this.input.focus();
    this.hideCompletions();
    if (!done) this.maybeComplete();
  }

  private hideCompletions(): void {
    this.completions.hidden = true;
    this.completions.replaceChildren();
  }

  // ------------------------------------------------------------------ state

  private setState(state: State, text = ''): void {
    this.state = state;
    this.node.dataset.state = state;
    const messages: Record<State, string> = {
      none: 'Open a notebook to talk to its agent.',
      connecting: 'Connecting to the kernel…',
      busy: 'The kernel is running a cell; the panel connects when it finishes.',
      missing: 'jupyter-agent is not loaded in this notebook\'s kernel.',
      restarting: 'The kernel is restarting…',
      dead: 'The kernel is not running. Restart it to use the agent.',
      open: '',
      error: ''
    };
    this.banner.replaceChildren(document.createTextNode(text || messages[state]));
    this.banner.dataset.level = state === 'open' && !text ? 'ok' : state === 'error' || state === 'dead' ? 'error' : 'info';
    if (state === 'missing') {
      const load = el('button', { class: 'ja-button', 'data-testid': 'ja-load-extension', type: 'button' }, 'Load jupyter-agent');
      load.addEventListener('click', () => void this.loadExtension());
      this.banner.append(' ', load);
    }
    this.banner.hidden = state === 'open' && !text;
    const usable = state === 'open';
    this.input.disabled = !usable;
    this.sendButton.disabled = !usable;
    this.sessionSelect.disabled = !usable;
    if (state !== 'open' && state !== 'busy' && state !== 'connecting') {
      this.disposeView?.();
      this.disposeView = null;
      this.streamHost.replaceChildren();
      this.sessionSelect.replaceChildren();
    }
  }
}
