// The right-side panel: the current notebook's agent session, driven through the kernel.
// The message stream is the cell widget's own renderer (labextension/src/widget/)
// fed by the comm, so the panel and the widget show exactly the same parts.
import { Dialog, InputDialog, showDialog } from '@jupyterlab/apputils';
import { Cell } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import widgetModule, { WidgetModel, WidgetRequest } from './widget/widget';
import { addTranscriptActions, iconLabel } from './widget/markdown';
import { CodeActions } from './codeActions';
import { CompletionSwitch } from './completionSwitch';
import { AgentComm, TARGET } from './comm';
import { COMMANDS, HELP_TEXT, SlashCommand, commandQuery, completeCommands, modelQuery, parseCommand } from './commands';
import { ContextChips, activeCellContext } from './context';
import { el } from './dom';
import { EmptyState } from './empty';
import { agentIcon } from './icon';
import { cellRunning, errorOf } from './fix';
import { keepWidth } from './layout';
import { runOp } from './notebook';
import { AddCellRequest, Completion, CompletionsMsg, FixRequest, KernelMessage, McpMsg, PanelRequest, ReviewRequest, SessionInfo } from './protocol';
import { SettingsView } from './settings';
import { SetupView } from './setup';
import { stateCard } from './states';

type Listener = (msg: unknown) => void;
const CONTAINED_TITLE = 'This kernel runs inside the sandbox: the agent\'s code and your cells cannot write outside the project or read hidden credentials';
type State = 'none' | 'connecting' | 'busy' | 'missing' | 'restarting' | 'dead' | 'open' | 'error';

/** "Nov 25, 11:42" (today: "11:42", local time): tells sessions with equal titles apart. */
export function when(ms: number): string {
  const date = new Date(ms);
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  if (date.toDateString() === new Date().toDateString()) return time;
  return `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
}

/** The anywidget-style model the widget's view expects, backed by the comm. */
class CommModel implements WidgetModel {
  private listeners = new Set<Listener>();
  constructor(private panel: AgentPanel) {}
  get(name: string): unknown {
    return name === 'can_compact' || name === 'can_revert' ? true : undefined;
  }
  send(content: WidgetRequest): void {
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
  private mcp = el('details', { class: 'ja-panel-mcp', 'data-testid': 'ja-mcp', hidden: '' });
  private contained = el('span', { class: 'ja-contained', 'data-testid': 'ja-contained', hidden: '', title: CONTAINED_TITLE }, 'contained');
  private completionSwitch = new CompletionSwitch(request => this.request(request));
  private banner = el('div', { class: 'ja-panel-banner', 'data-testid': 'ja-panel-banner' });
  private streamHost = el('div', { class: 'ja-panel-stream' });
  private jumpButton = el('button', { class: 'ja-button ja-panel-jump', 'data-testid': 'ja-jump-latest', type: 'button', hidden: '', title: 'Scroll to the newest message' }, '↓ Jump to latest');
  /** Pins the newest message in view while the stream's size changes (images load, the
   * panel is shown): a scroll at render time happens before images have their height. */
  private resizes = new ResizeObserver(() => this.pin());
  /** Gives the sidebar the panel's width when shown (the first one, then the user's). */
  private applyWidth = keepWidth(this);
  /** A fix asked for before the kernel connection was open (sent once it is). */
  private pendingFix: FixRequest | null = null;
  /** Review decisions made in a notebook the panel was not connected to (sent once it is). */
  private pendingReviews = new Map<NotebookPanel, ReviewRequest[]>();
  /** Called when the session shown stops running: the Fix buttons are usable again. */
  onIdle: () => void = () => undefined;
  /** Called when the kernel added a run's code as a cell ("Add as cell"). */
  onHiddenAdded: (run: string) => void = () => undefined;
  /** Keep the newest text in view while the user is at the bottom; not after they scroll up. */
  private following = true;
  private lastScrollTop = 0;
  private input = el('textarea', {
    class: 'ja-panel-input',
    'data-testid': 'ja-prompt',
    rows: '3',
    placeholder: 'Ask the agent… (Enter sends, Shift+Enter for a new line, @ for variables, cells, files)'
  });
  private completions = el('ul', { class: 'ja-panel-completions', 'data-testid': 'ja-completions', hidden: '' });
  private sendButton = el('button', { class: 'ja-button ja-panel-send', 'data-testid': 'ja-send', type: 'button' }, 'Send');
  private attachButton = el('button', { class: 'ja-button ja-panel-attach', 'data-testid': 'ja-attach', type: 'button', title: 'Attach the active cell (or the text selected in it)', 'aria-label': 'Attach the active cell or selection' }, '+ Cell');
  private chips = new ContextChips();
  private empty = new EmptyState(
    text => {
      this.input.value = text;
      this.input.focus();
    },
    model => this.chooseModel(model)
  );
  private models: string[] = [];
  /** The MCP servers' prompts, run as `/server:name` (the kernel expands them). */
  private prompts: SlashCommand[] = [];
  /** The configured MCP servers: `/server:name` goes to the kernel before they have started. */
  private mcpServers: string[] = [];
  /** Completions offered by the panel itself (slash commands, models), not the kernel. */
  private localCompletion = false;
  private setup = new SetupView(request => this.request(request), () => this.closeViews());
  private settings = new SettingsView(() => this.openSetup(), () => this.closeViews());
  /** Since the last reset: the history's page arrived (`older`) and held messages. The
   * welcome shows only for a session known to be empty, never over a history on its way. */
  private history = { loaded: false, messages: 0 };

  constructor() {
    super();
    this.id = 'jupyter-agent-panel';
    this.title.caption = 'Agent: chat with the agent in this notebook\'s kernel';
    this.title.label = 'Agent';
    this.title.icon = agentIcon;
    this.addClass('ja-panel');
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', 'Agent');
    this.input.setAttribute('aria-label', 'Message to the agent');
    this.sessionSelect.setAttribute('aria-label', 'Session');
    const newButton = iconLabel(el('button', { class: 'ja-button', 'data-testid': 'ja-session-new', type: 'button', title: 'Start a new session', 'aria-label': 'New session' }), 'new', 'New');
    const renameButton = iconLabel(el('button', { class: 'ja-button', 'data-testid': 'ja-session-rename', type: 'button', title: 'Rename this session', 'aria-label': 'Rename this session' }), 'rename', 'Rename');
    const deleteButton = iconLabel(el('button', { class: 'ja-button', 'data-testid': 'ja-session-delete', type: 'button', title: 'Delete this session', 'aria-label': 'Delete this session' }), 'delete', 'Delete');
    const settingsButton = iconLabel(el('button', { class: 'ja-button', 'data-testid': 'ja-settings-button', type: 'button', title: 'Settings: the model, its key and where each setting comes from', 'aria-label': 'Settings' }), 'settings', 'Settings');
    const top = el('div', { class: 'ja-panel-top' });
    top.append(this.sessionSelect, newButton, renameButton, deleteButton, this.contained, settingsButton);
    const composer = el('div', { class: 'ja-panel-composer' });
    const buttons = el('div', { class: 'ja-panel-composer-buttons' });
    buttons.append(this.sendButton, this.attachButton);
    const row = el('div', { class: 'ja-panel-composer-row' });
    row.append(this.input, buttons);
    composer.append(this.completions, this.chips.node, row);
    const streamWrap = el('div', { class: 'ja-panel-stream-wrap' });
    streamWrap.append(this.setup.node, this.settings.node, this.streamHost, this.jumpButton);
    this.node.append(top, this.completionSwitch.node, this.mcp, this.banner, streamWrap, composer);
    this.streamHost.setAttribute('tabindex', '-1'); // where focus goes after Jump to latest
    this.streamHost.addEventListener('scroll', () => this.onScroll());
    this.jumpButton.addEventListener('click', () => this.scrollToEnd());
    this.resizes.observe(this.streamHost);
    // "Show earlier messages": the user reads back, the view must not jump to the end
    this.streamHost.addEventListener('click', event => {
      if ((event.target as HTMLElement | null)?.closest?.('[data-testid=ja-older]')) this.following = false;
    }, true);
    new MutationObserver(() => this.onGrow()).observe(this.streamHost, { childList: true, subtree: true, characterData: true });
    // Escape stops the agent from anywhere in the panel (the prompt box too)
    this.node.addEventListener('keydown', event => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      const stop = this.streamHost.querySelector('[data-testid=ja-stop]') as HTMLButtonElement | null;
      if (stop && !stop.hidden && !stop.disabled) {
        event.preventDefault();
        stop.click();
      }
    });
    // code blocks (here and in %agent cells) insert into / replace the active cell
    document.body.dataset.jupyterAgentActions = '1';
    new CodeActions(() => this.notebook);
    // a saved run's static transcript (`.jp-agent-transcript`) gets the same code actions
    new MutationObserver(records => {
      for (const record of records) {
        record.addedNodes.forEach(node => {
          if (!(node instanceof HTMLElement)) return;
          const found = node.matches('.jp-agent-transcript') ? [node] : [...node.querySelectorAll('.jp-agent-transcript')];
          found.forEach(root => addTranscriptActions(root));
        });
      }
    }).observe(document.body, { childList: true, subtree: true });

    this.sessionSelect.addEventListener('change', () => this.request({ type: 'switch_session', session_id: this.sessionSelect.value }));
    newButton.addEventListener('click', () => this.request({ type: 'new_session' }));
    settingsButton.addEventListener('click', () => (this.settings.isOpen ? this.closeViews() : this.openSettings()));
    renameButton.addEventListener('click', () => void this.rename());
    deleteButton.addEventListener('click', () => void this.deleteSession());
    this.attachButton.addEventListener('click', () => this.attachContext());
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
      this.models = result.hello.models ?? [];
      this.empty.setModels(result.hello.model ?? '', this.models);
      this.contained.hidden = !result.hello.contained;
      this.setState('open');
      if (result.hello.problem) this.setState('open', result.hello.problem);
      if (result.hello.setup) this.openSetup(result.hello.problem ?? '');
      const wanted = this.wantedSession;
      this.wantedSession = '';
      if (wanted && wanted !== result.hello.session_id) this.request({ type: 'switch_session', session_id: wanted });
      const fix = this.pendingFix;
      this.pendingFix = null;
      if (fix) this.request(fix);
      const reviews = this.pendingReviews.get(notebook) ?? [];
      this.pendingReviews.delete(notebook);
      reviews.forEach(review => this.request(review));
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

  /** The user decided on a staged edit in `notebook`: tell its kernel (now, or once connected). */
  sendReview(notebook: NotebookPanel, review: ReviewRequest): void {
    if (notebook === this.notebook && this.state === 'open' && this.comm?.isOpen) {
      this.request(review);
      return;
    }
    const queued = this.pendingReviews.get(notebook) ?? [];
    queued.push(review);
    this.pendingReviews.set(notebook, queued);
    notebook.disposed.connect(() => this.pendingReviews.delete(notebook));
  }

  /** The notebook the panel follows (Accept all / Reject all from the panel act on it). */
  get current(): NotebookPanel | null {
    return this.notebook;
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

  request(request: PanelRequest): void {
    if (request.type === 'add_cell' && !request.cell_id) {
      // a panel prompt has no cell: its code goes below the active one
      const active = this.notebook?.content.activeCell?.model.id;
      request = { ...request, ...(active ? { cell_id: active } : {}) };
    }
    if (!this.comm?.isOpen) {
      this.setState(this.state === 'open' ? 'error' : this.state, 'Not connected to the kernel.');
      return;
    }
    this.comm.send(request);
  }

  private receive(msg: KernelMessage): void {
    switch (msg.kind) {
      case 'hello':
        this.contained.hidden = !msg.contained;
        if (this.state === 'open') {
          // the kernel's settings changed (a model set with %env): the model and the problem as they are now
          this.models = msg.models ?? [];
          this.empty.setModels(msg.model ?? '', this.models);
          this.setState('open', msg.problem ?? '');
          if (msg.setup && !this.setup.isOpen) this.openSetup(msg.problem ?? '');
          else if (!msg.setup && this.setup.isOpen && this.setup.saved) this.closeViews();
        }
        this.showSessions(msg.session_id, msg.sessions);
        return;
      case 'settings':
        this.settings.show(msg);
        this.viewsShown();
        return;
      case 'setup':
        this.setup.receive(msg);
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
      case 'mcp':
        this.showMcp(msg);
        return;
      case 'inline_state':
        this.completionSwitch.update(msg);
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
        if (msg.kind === 'status' && msg.state !== 'busy') this.onIdle();
        if (msg.kind === 'message') this.history.messages++;
        if (msg.kind === 'hidden_state' && msg.added) this.onHiddenAdded(msg.run);
        this.model.emit(msg);
        if (msg.kind === 'older') {
          this.history.loaded = true;
          this.onGrow();
        }
    }
  }

  // ------------------------------------------------------------------ Fix with agent

  /** Fix with agent for `cell` (the button, or /fix on the active cell): false when refused,
   * with the reason said in the stream. Never while a cell runs: the agent would edit and
   * re-run cells behind the one the user is waiting for. */
  fix(cell: Cell | null, notebook: NotebookPanel | null = this.notebook, arg = ''): boolean {
    if (notebook && notebook !== this.notebook) this.setNotebook(notebook); // a button in another notebook
    if (cellRunning(this.notebook)) {
      this.say('A cell is running: Fix with agent waits until the kernel is free. Try again when it has finished.', 'error');
      return false;
    }
    // the cell's own error output; else (`/fix 3`, or an active cell that did not raise) the
    // kernel's record of the cell that raised (it says so when there is none)
    const target = arg ? null : errorOf(cell);
    const request: FixRequest = target ?? { type: 'fix', cell: arg || undefined };
    if (this.state === 'open' && this.comm?.isOpen) {
      this.request(request);
      this.scrollToEnd(); // the user's own action: show where its answer comes
      return true;
    }
    if (this.state === 'missing' || this.state === 'connecting' || this.state === 'busy') {
      this.pendingFix = request; // sent once the kernel says hello (loading jupyter-agent first)
      if (this.state === 'missing') void this.loadExtension();
      return true;
    }
    this.setState(this.state, 'Fix with agent needs the notebook\'s kernel: start or restart it, then try again.');
    return false;
  }

  // ------------------------------------------------------------------ reproducibility

  /** "Add as cell" on a transcript in `notebook`: false when the kernel cannot be asked now. */
  addCell(notebook: NotebookPanel, request: AddCellRequest): boolean {
    if (notebook !== this.notebook) this.setNotebook(notebook);
    if (this.state !== 'open' || !this.comm?.isOpen) {
      this.setState(this.state, 'Add as cell needs the notebook\'s kernel with jupyter-agent loaded: run a cell with %load_ext jupyter_agent, then try again.');
      return false;
    }
    this.request(request);
    return true;
  }

  /** Fix with agent on a verification's table: the kernel's latest report goes to the agent. */
  fixVerify(notebook: NotebookPanel): boolean {
    if (notebook !== this.notebook) this.setNotebook(notebook);
    if (this.state !== 'open' || !this.comm?.isOpen) {
      this.setState(this.state, 'Fix with agent needs the notebook\'s kernel: start it, then verify again.');
      return false;
    }
    this.request({ type: 'fix', verify: true });
    return true;
  }

  /** `/verify [--with-agent]`: the saved file, so unsaved edits are said to be left out. */
  private verify(arg: string): void {
    if (arg && arg !== '--with-agent') {
      this.say('Usage: /verify [--with-agent]', 'error');
      return;
    }
    if (this.notebook?.context.model.dirty) this.say('Verifying the saved file: save the notebook to include your latest edits.');
    this.request({ type: 'verify', with_agent: arg === '--with-agent' });
  }

  /** Put the cursor in the prompt box (the focus-prompt command and its shortcut). */
  focusPrompt(): void {
    const target = this.input.disabled ? this.node : this.input;
    if (target === this.node && !this.node.hasAttribute('tabindex')) this.node.setAttribute('tabindex', '-1');
    target.focus();
  }

  protected onActivateRequest(msg: Message): void {
    super.onActivateRequest(msg);
    if (!this.node.contains(document.activeElement)) this.focusPrompt();
  }

  private onScroll(): void {
    const host = this.streamHost;
    const atBottom = host.scrollHeight - host.scrollTop - host.clientHeight < 30;
    if (atBottom) this.following = true;
    else if (host.scrollTop < this.lastScrollTop) this.following = false;
    this.lastScrollTop = host.scrollTop;
    this.jumpButton.hidden = this.following;
  }

  private onGrow(): void {
    // notices (a model choice, /help) keep the empty state; the first message hides it
    const stream = this.streamHost.querySelector('.ja-stream');
    const shown = !stream || [...stream.children].some(c => !c.classList.contains('ja-notice'));
    this.empty.node.hidden = shown || !this.history.loaded || this.history.messages > 0;
    this.node.dataset.emptySession = this.empty.node.hidden ? 'false' : 'true'; // nothing to compact yet
    if (this.following) this.streamHost.scrollTop = this.streamHost.scrollHeight;
    else this.jumpButton.hidden = false;
  }

  private openSetup(why = ''): void {
    this.settings.hide();
    this.setup.open(why);
    this.viewsShown();
  }

  private openSettings(): void {
    this.setup.hide();
    this.request({ type: 'settings' }); // shown when the kernel answers
  }

  private closeViews(): void {
    this.setup.hide();
    this.settings.hide();
    this.viewsShown();
  }

  /** The setup or the settings take the stream's place while open. */
  private viewsShown(): void {
    const open = this.setup.isOpen || this.settings.isOpen;
    this.streamHost.hidden = open;
    this.node.dataset.view = this.setup.isOpen ? 'setup' : this.settings.isOpen ? 'settings' : 'stream';
    if (open) this.jumpButton.hidden = true;
  }

  private scrollToEnd(): void {
    this.following = true;
    const hadFocus = this.jumpButton.contains(document.activeElement);
    this.jumpButton.hidden = true;
    this.streamHost.scrollTop = this.streamHost.scrollHeight;
    // the button hides: keep the keyboard user in the panel (Escape still stops from here)
    if (hadFocus || document.activeElement === document.body) this.streamHost.focus({ preventScroll: true });
  }

  /** Keep the newest message in view while following (not while a page of older ones settles). */
  private pin(): void {
    if (!this.following || this.streamHost.querySelector('.ja-stream[data-paging]')) return;
    this.streamHost.scrollTop = this.streamHost.scrollHeight;
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this.pin();
    this.applyWidth();
  }

  private newView(): void {
    this.following = true;
    this.jumpButton.hidden = true;
    this.disposeView?.();
    this.streamHost.replaceChildren();
    const root = el('div', { class: 'ja-panel-view', 'data-testid': 'ja-panel-view' });
    this.streamHost.append(root);
    this.disposeView = widgetModule.render({ model: this.model, el: root });
    this.resizes.observe(root); // its height changes without a mutation (an image decodes)
    this.history = { loaded: false, messages: 0 };
    this.empty.node.hidden = true; // until the history's page says the session is empty
    this.streamHost.append(this.empty.node);
  }

  private showSessions(current: string, sessions: SessionInfo[]): void {
    this.sessionSelect.replaceChildren();
    // no title yet: "New session · 13:43" (when it began, local time) until the title arrives
    const labels = sessions.map(s => (s.untitled ? `New session · ${when(s.created || s.updated)}` : `${s.title || s.id} · ${when(s.updated)}`));
    sessions.forEach((s, i) => {
      const twin = labels.indexOf(labels[i]) !== labels.lastIndexOf(labels[i]);
      const label = (s.busy ? '● ' : '') + labels[i] + (twin ? ` · …${s.id.slice(-5)}` : '');
      const option = el('option', { value: s.id, title: `${s.untitled ? 'New session' : s.title} (${s.id})` }, label);
      option.dataset.title = s.untitled ? '' : s.title;
      option.selected = s.id === current;
      this.sessionSelect.append(option);
    });
    this.sessionId = current;
  }

  /** The MCP servers under the session picker: state and tool count, details on hover/open. */
  private showMcp(msg: McpMsg): void {
    this.mcpServers = msg.servers.map(server => server.name);
    this.prompts = msg.servers.flatMap(server =>
      (server.prompts ?? []).map(p => ({ name: `${server.name}:${p.name}`, args: p.usage.slice(p.usage.indexOf(' ') >= 0 ? p.usage.indexOf(' ') : p.usage.length), detail: p.description || 'an MCP prompt' }))
    );
    const open = this.mcp.open;
    this.mcp.replaceChildren();
    this.mcp.hidden = msg.servers.length === 0;
    const failed = msg.servers.filter(s => s.state === 'failed').length;
    const summary = el('summary', { 'data-testid': 'ja-mcp-summary' }, `MCP servers: ${msg.servers.length}` + (failed ? ` (${failed} failed)` : ''));
    const restart = el('button', { class: 'ja-button ja-mcp-restart', 'data-testid': 'ja-mcp-restart', type: 'button', title: 'Stop and start the MCP servers again' }, 'Restart');
    restart.addEventListener('click', () => this.request({ type: 'mcp', action: 'restart' }));
    summary.append(' ', restart);
    const list = el('ul', { class: 'ja-mcp-servers' });
    for (const server of msg.servers) {
      const tools = server.tools ?? [];
      const item = el('li', { 'data-state': server.state, 'data-testid': 'ja-mcp-server', title: server.error ?? server.source });
      item.append(
        el('span', { class: 'ja-mcp-name' }, server.name),
        el('span', { class: 'ja-mcp-state' }, server.state),
        el('span', { class: 'ja-mcp-tools' }, server.state === 'connected' ? `${tools.length} tool${tools.length === 1 ? '' : 's'}` : '')
      );
      if (tools.length) item.append(el('div', { class: 'ja-mcp-toolnames' }, tools.join(', ')));
      if (server.error) item.append(el('pre', { class: 'ja-mcp-error' }, server.error));
      list.append(item);
    }
    this.mcp.append(summary, list);
    this.mcp.open = open;
  }

  private async rename(): Promise<void> {
    const current = this.sessionSelect.selectedOptions[0]?.dataset.title ?? '';
    const result = await InputDialog.getText({ title: 'Rename session', text: current });
    if (result.button.accept && result.value?.trim()) {
      this.request({ type: 'rename_session', session_id: this.sessionId, title: result.value.trim() });
    }
  }

  private async deleteSession(): Promise<void> {
    const id = this.sessionId;
    const title = this.sessionSelect.selectedOptions[0]?.dataset.title || id;
    if (!id) return;
    const result = await showDialog({
      title: 'Delete session',
      body: `Delete “${title}” and its history? This cannot be undone.`,
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Delete' })]
    });
    if (result.button.accept) this.request({ type: 'delete_session', session_id: id });
  }

  // ------------------------------------------------------------------ prompt box

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || this.state !== 'open') return;
    this.input.value = '';
    this.hideCompletions();
    const command = parseCommand(text);
    if (command && !this.isPrompt(command.name)) {
      this.runCommand(command.name, command.arg);
      return;
    }
    this.closeViews(); // the setup or the settings give way to the conversation it goes to
    this.request({ type: 'prompt', text, context: this.chips.take() });
    this.scrollToEnd(); // the user's own send: show where its answer comes, wherever they were
  }

  /** `/server:name` or `/name` of an MCP prompt: sent as the prompt, the kernel runs it. */
  private isPrompt(name: string): boolean {
    if (COMMANDS.some(c => c.name === name)) return false;
    if (name.includes(':') && this.mcpServers.includes(name.split(':')[0])) return true;
    return this.prompts.some(p => p.name === name || p.name.split(':')[1] === name);
  }

  private runCommand(name: string, arg: string): void {
    const stop = this.streamHost.querySelector('[data-testid=ja-stop]') as HTMLButtonElement | null;
    switch (name) {
      case 'new':
        this.request({ type: 'new_session' });
        return;
      case 'compact':
        this.request({ type: 'compact' });
        return;
      case 'stop':
        if (stop && !stop.hidden) stop.click();
        else this.say('Nothing is running.');
        return;
      case 'model':
        if (arg) this.chooseModel(arg);
        else this.say(`Model: ${this.empty.modelSelect.value || 'not configured'}. Configured: ${this.models.join(', ') || 'none'}. /model NAME picks one.`);
        return;
      case 'help':
        this.say(HELP_TEXT);
        return;
      case 'settings':
        this.openSettings();
        return;
      case 'fix':
        this.fix(this.notebook?.content.activeCell ?? null, this.notebook, arg);
        return;
      case 'verify':
        this.verify(arg);
        return;
      default:
        this.say(`Unknown command /${name}. Commands: ${[...COMMANDS, ...this.prompts].map(c => '/' + c.name).join(', ')}.`, 'error');
    }
  }

  /** A line in the stream from the panel itself (help, command errors). */
  private say(text: string, level: 'info' | 'error' = 'info'): void {
    this.model.emit({ kind: 'notice', text, level });
  }

  private chooseModel(model: string): void {
    this.empty.choose(model);
    this.request({ type: 'set_model', model });
  }

  private attachContext(): void {
    const item = activeCellContext(this.notebook);
    if (item) this.chips.add(item);
    else this.say('The active cell is empty: nothing to attach.');
    this.input.focus();
  }

  private onKey(event: KeyboardEvent): void {
    const open = !this.completions.hidden;
    if (open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      this.moveSelection(event.key === 'ArrowDown' ? 1 : -1);
    } else if (open && (event.key === 'Tab' || event.key === 'Enter')) {
      event.preventDefault();
      const active = this.completions.querySelector('li.ja-active') as HTMLElement | null;
      if (active) this.accept(active.dataset.label ?? '', event.key);
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
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const command = commandQuery(before);
    const model = modelQuery(before);
    if (command !== null || model !== null) {
      const items = command !== null ? completeCommands(command, this.prompts) : this.models.filter(m => m.startsWith(model ?? '')).map(m => ({ label: m, detail: 'model' }));
      this.localCompletion = true;
      this.renderCompletions(items, command !== null ? '' : '/model ');
      return;
    }
    this.localCompletion = false;
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
    if (msg.request_id !== String(this.completionId) || this.mentionQuery() === null || this.localCompletion) return;
    this.renderCompletions(msg.items, '@');
  }

  /** `shown` prefixes each label on screen (`@` for mentions, `/model ` for models). */
  private renderCompletions(items: Completion[], shown: string): void {
    this.completions.replaceChildren();
    this.completions.dataset.kind = shown === '@' ? 'mention' : shown ? 'model' : 'command';
    items.forEach((item, i) => {
      const li = el('li', { 'data-label': item.label, class: i === 0 ? 'ja-active' : '' });
      li.append(el('span', { class: 'ja-completion-label' }, shown === '@' ? '@' + item.label : item.label), el('span', { class: 'ja-completion-detail' }, item.detail ?? ''));
      li.addEventListener('mousedown', event => {
        event.preventDefault();
        this.accept(item.label);
      });
      this.completions.append(li);
    });
    this.completions.hidden = items.length === 0;
  }

  private moveSelection(step: number): void {
    const items = [...this.completions.querySelectorAll('li')];
    const at = items.findIndex(li => li.classList.contains('ja-active'));
    items[at]?.classList.remove('ja-active');
    items[(at + step + items.length) % items.length]?.classList.add('ja-active');
  }

  private accept(label: string, event: 'Enter' | 'Tab' | 'click' | string = 'click'): void {
    const kind = this.completions.dataset.kind;
    if (kind === 'command' || kind === 'model') {
      // `/model [name]` → `/model `, `/docs:ask question=…` → `/docs:ask `; a model → `/model NAME`
      const text = kind === 'command' ? label.split(' ')[0] + (label.includes(' ') ? ' ' : '') : '/model ' + label;
      if (kind === 'command' && event === 'Enter' && text.trim() === this.input.value.trim()) {
        this.submit(); // typed in full (`/model` too): Enter runs it, Tab completes
        return;
      }
      this.input.value = text;
      this.input.setSelectionRange(text.length, text.length);
      this.input.focus();
      this.hideCompletions();
      if (text.endsWith(' ')) this.maybeComplete();
      return;
    }
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
    this.attachButton.disabled = !usable;
    this.sessionSelect.disabled = !usable;
    if (state !== 'open' && state !== 'busy' && state !== 'connecting') {
      this.disposeView?.();
      this.disposeView = null;
      this.closeViews();
      // never a blank panel: what happened, what is kept, what to do (the banner's button)
      this.streamHost.replaceChildren(stateCard(state, text || messages[state]));
      this.sessionSelect.replaceChildren();
      this.mcp.replaceChildren();
      this.mcp.hidden = true;
      this.completionSwitch.update(null);
    }
  }
}
