// Inline completion in notebook cells from the kernel that holds the variables: a JupyterLab
// inline completion provider (ghost text is drawn by JupyterLab; Tab accepts) that asks the
// kernel's completer over its own comm. The kernel waits for a pause in typing
// (`completion.debounce_ms`), builds the context and streams the suggestion back; each new
// request (a keystroke) replaces the last, and a change to the cell cancels the request in
// flight, which closes its HTTP request to the model. No request for markdown or raw cells,
// while completion is off, or while the kernel runs a cell.
import { JupyterFrontEnd } from '@jupyterlab/application';
import {
  CompletionHandler,
  ICompletionProviderManager,
  IInlineCompletionContext,
  IInlineCompletionItem,
  IInlineCompletionList,
  IInlineCompletionProvider
} from '@jupyterlab/completer';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';
import { CommandRegistry } from '@lumino/commands';
import { agentIcon } from './icon';
import { KernelLink, Pending } from './inlineLink';

/** The part of CodeMirror's EditorView that partial accept uses (JupyterLab's editors are CodeMirror 6). */
interface CodeMirrorView {
  state?: { selection: { main: { head: number } } };
  dispatch?: (spec: { changes: { from: number; insert: string }; selection: { anchor: number }; userEvent: string }) => void;
}

const ACCEPT_WORD = 'jupyter-agent:inline-accept-word';
const ACCEPT_LINE = 'jupyter-agent:inline-accept-line';
const NOTHING: IInlineCompletionList = { items: [] };

interface Shown {
  link: KernelLink;
  pending: Pending;
  prefix: string;
  suffix: string;
  item: IInlineCompletionItem;
  /** How much of the pending text the stream has handed to JupyterLab. */
  given: number;
  stop: () => void;
}

export class AgentInlineProvider implements IInlineCompletionProvider {
  readonly name = 'Agent (kernel)';
  readonly identifier = 'jupyter-agent';
  readonly icon = agentIcon.bindprops({ stylesheet: 'menuItem' });
  /** FIM is what the kernel does: suggestions in the middle of a line too (before a `)`). */
  readonly schema = { default: { autoFillInMiddle: true } };
  private links = new WeakMap<Kernel.IKernelConnection, KernelLink>();
  /** The request streaming now (at most one: a new one cancels it). */
  private inFlight: Shown | null = null;
  /** The last suggestion, for typing through it without asking again. */
  private base: Shown | null = null;
  /** The item JupyterLab shows (it trims it as the user types through). */
  private visible: IInlineCompletionItem | null = null;
  private generation = 0;
  private counter = 0;
  private timeoutMs = 5000;

  configure(settings: { [property: string]: unknown }): void {
    if (typeof settings.timeout === 'number') this.timeoutMs = settings.timeout;
  }

  async fetch(request: CompletionHandler.IRequest, context: IInlineCompletionContext): Promise<IInlineCompletionList> {
    const generation = ++this.generation;
    const deadline = Date.now() + Math.max(500, this.timeoutMs - 300); // JupyterLab stops waiting then
    this.cancel(); // typing on: the request in flight is aborted, not just ignored
    this.visible = null;
    const panel = context.widget;
    if (!(panel instanceof NotebookPanel)) return NOTHING;
    const cell = panel.content.activeCell;
    if (!cell || cell.model.type !== 'code') return NOTHING; // markdown and raw cells: never asked
    const kernel = context.session?.kernel ?? panel.sessionContext.session?.kernel;
    if (!kernel) return NOTHING;
    const prefix = request.text.slice(0, request.offset);
    const suffix = request.text.slice(request.offset);
    const rest = this.base ? remainder(this.base, prefix, suffix) : null;
    if (rest) return this.show({ insertText: rest }); // typed (or accepted) the start of the last one
    this.base = null;
    const link = this.link(kernel);
    if (link.busy || !(await link.ready()) || !link.state?.enabled) return NOTHING;
    // the pause in typing is waited for here: one message per pause, not one per keystroke
    const waited = link.state.debounce_ms ?? 300;
    await new Promise(resolve => setTimeout(resolve, waited));
    const source = cell.model.sharedModel;
    if (generation !== this.generation || source.getSource() !== request.text) return NOTHING; // typed on
    if (link.busy || !link.state?.enabled || Date.now() >= deadline) return NOTHING;
    const room = link.state.context_chars ?? 8000;
    const cells = panel.content.widgets;
    const above = cells.slice(0, cells.indexOf(cell)).filter(c => c.model.type === 'code');
    const pending = link.start({
      type: 'inline_complete',
      request_id: `${Date.now().toString(36)}-${++this.counter}`,
      prefix: prefix.slice(-room),
      suffix: suffix.slice(0, room),
      cells_above: nearest(above.map(c => c.model.sharedModel.getSource()), room),
      cell_type: 'code',
      waited_ms: waited
    });
    const onChange = () => {
      if (source.getSource() !== request.text && this.inFlight === shown) this.cancel();
    };
    source.changed.connect(onChange);
    const item: IInlineCompletionItem = { insertText: '', token: pending.id, isIncomplete: true };
    const shown: Shown = { link, pending, prefix, suffix, item, given: 0, stop: () => source.changed.disconnect(onChange) };
    this.inFlight = shown;
    while (!pending.text && !pending.done && Date.now() < deadline) await pending.changed(deadline - Date.now());
    if (!pending.text || this.inFlight !== shown) {
      if (this.inFlight === shown) this.cancel(); // too late to be of use, or nothing to say
      return NOTHING;
    }
    this.base = shown;
    shown.given = pending.text.length;
    item.insertText = pending.text;
    item.isIncomplete = !pending.done;
    if (pending.done) this.finish(shown);
    return this.show(item);
  }

  async *stream(token: string): AsyncGenerator<{ response: IInlineCompletionItem }> {
    const shown = this.inFlight;
    if (!shown || shown.pending.id !== token) return;
    const { pending, item } = shown;
    while (this.inFlight === shown) {
      if (pending.text.length > shown.given) {
        const added = pending.text.slice(shown.given);
        shown.given = pending.text.length;
        // JupyterLab trims the item as the user types through it: add to what is left
        yield { response: { ...item, insertText: item.insertText + added } };
        continue;
      }
      if (pending.done) break;
      await pending.changed();
    }
    this.finish(shown);
  }

  /** `word`: the next word of the ghost text; `line`: the rest of its line (or the next line). */
  acceptPart(app: JupyterFrontEnd, kind: 'word' | 'line'): void {
    const panel = app.shell.currentWidget;
    const editor = panel instanceof NotebookPanel ? panel.content.activeCell?.editor : null;
    const text = this.visible?.insertText ?? '';
    if (!editor || !text) return;
    const match = kind === 'word' ? text.match(/^\s*(\w+|[^\w\s]+)/) : text.match(/^\n?[^\n]*/);
    const part = match ? match[0] : text;
    if (!part) return;
    // one CodeMirror transaction inserts and moves the cursor past the insert, so the typed-through
    // rest of the suggestion stays in view (the editor's replaceSelection leaves the cursor before it)
    const view = (editor as unknown as { editor?: CodeMirrorView }).editor;
    if (view?.dispatch && view.state) {
      const at = view.state.selection.main.head;
      view.dispatch({ changes: { from: at, insert: part }, selection: { anchor: at + part.length }, userEvent: 'input.complete' });
    } else {
      editor.replaceSelection?.(part);
    }
  }

  private show(item: IInlineCompletionItem): IInlineCompletionList {
    this.visible = item;
    return { items: [item] };
  }

  private link(kernel: Kernel.IKernelConnection): KernelLink {
    let link = this.links.get(kernel);
    if (!link) {
      const made = new KernelLink(kernel);
      kernel.disposed.connect(() => made.dispose());
      this.links.set(kernel, made);
      link = made;
    }
    return link;
  }

  private finish(shown: Shown): void {
    shown.stop();
    if (this.inFlight === shown) this.inFlight = null;
  }

  private cancel(): void {
    const shown = this.inFlight;
    this.inFlight = null;
    if (!shown) return;
    shown.stop();
    shown.link.cancel(shown.pending);
  }
}

/** The sources nearest the end that fit in `room` characters (the kernel keeps what fits its budget). */
function nearest(sources: string[], room: number): string[] {
  const kept: string[] = [];
  for (let i = sources.length - 1; i >= 0 && room > 0; i--) {
    kept.unshift(sources[i].length > room ? sources[i].slice(-room) : sources[i]);
    room -= sources[i].length;
  }
  return kept;
}

/** What is left of the last suggestion once the user typed (or accepted) its beginning. */
function remainder(shown: Shown, prefix: string, suffix: string): string | null {
  if (suffix !== shown.suffix || !prefix.startsWith(shown.prefix)) return null;
  const typed = prefix.slice(shown.prefix.length);
  const whole = shown.pending.text;
  if (!typed || !whole.startsWith(typed) || whole.length === typed.length) return null;
  const rest = whole.slice(typed.length);
  return rest.trim() ? rest : null;
}

export function setupInlineCompletion(app: JupyterFrontEnd, manager: ICompletionProviderManager, tracker: INotebookTracker): AgentInlineProvider {
  const provider = new AgentInlineProvider();
  manager.registerInlineProvider(provider);
  const active = () => {
    const id = tracker.currentWidget?.id;
    return !!id && !!manager.inline?.isActive(id);
  };
  app.commands.addCommand(ACCEPT_WORD, {
    label: 'Accept the Next Word of the Inline Suggestion',
    isEnabled: active,
    execute: () => provider.acceptPart(app, 'word')
  });
  app.commands.addCommand(ACCEPT_LINE, {
    label: 'Accept the Next Line of the Inline Suggestion',
    isEnabled: active,
    execute: () => provider.acceptPart(app, 'line')
  });
  // CodeMirror takes Ctrl+→ / Ctrl+↓ (word and line moves) before JupyterLab's shortcuts see
  // them: while a suggestion shows, the keys bound to partial accept are taken first
  const partial = new Set([ACCEPT_WORD, ACCEPT_LINE]);
  document.addEventListener(
    'keydown',
    event => {
      const target = event.target as HTMLElement | null;
      if (!target?.closest?.('.jp-mod-inline-completer-active')) return;
      const keystroke = CommandRegistry.keystrokeForKeydownEvent(event);
      const binding = app.commands.keyBindings.find(b => partial.has(b.command) && b.keys.length === 1 && b.keys[0] === keystroke);
      if (!binding) return;
      event.preventDefault();
      event.stopPropagation();
      void app.commands.execute(binding.command);
    },
    true
  );
  return provider;
}
