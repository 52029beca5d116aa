// The panel's switch for inline completion in cells (`%agent complete on|off` for the
// notebook's kernel). Its own module so it can move to a settings view without touching
// the panel: it only needs the kernel's state messages and a way to send a request.
import { el } from './dom';
import { InlineStateMsg, SetCompletionRequest } from './protocol';

export class CompletionSwitch {
  readonly node = el('label', { class: 'ja-panel-complete', 'data-testid': 'ja-complete-switch', hidden: '' });
  private box = el('input', { type: 'checkbox', 'data-testid': 'ja-complete-toggle' });
  private note = el('span', { class: 'ja-panel-complete-note' });

  constructor(send: (request: SetCompletionRequest) => void) {
    this.node.append(this.box, el('span', {}, 'Suggest code in cells'), this.note);
    this.box.addEventListener('change', () => send({ type: 'set_completion', enabled: this.box.checked }));
  }

  /** The kernel's state (null: no kernel connection, nothing to switch). */
  update(state: InlineStateMsg | null): void {
    this.node.hidden = state === null;
    if (!state) return;
    this.box.checked = state.enabled;
    const off = !state.enabled && state.reason && state.reason !== 'turned off' ? state.reason : '';
    this.note.textContent = off ? ` (${off})` : '';
    this.node.title = state.enabled
      ? `On: the agent suggests code as you type (after ${state.debounce_ms ?? 300} ms); Tab accepts`
      : `Off${off ? `: ${off}` : ''}`;
    this.box.disabled = !state.enabled && !!off && off.includes('administrator');
  }
}
