// Review and undo in the stream: the bar over staged cell edits (Accept all / Reject all), the
// panel's "Undo from here" on each prompt, and the report a revert leaves (with Unrevert).
import type { ReviewMsg, RevertedMsg } from '../protocol';
import { h } from './dom';
import type { WidgetModel } from './model';

/** "2 staged cell edits wait for your review · Accept all · Reject all". The decision is a DOM
 * event the JupyterLab extension handles for the notebook around the view (the staged edits
 * live in the document, which only the page can change). */
export class ReviewBar {
  readonly node = h('div', { class: 'ja-review-bar', 'data-testid': 'ja-review-bar', hidden: true });
  private text = h('span', { class: 'ja-review-text' });

  constructor() {
    const accept = h('button', { class: 'ja-button ja-review-accept', type: 'button', 'data-testid': 'ja-review-accept-all', text: 'Accept all', title: "Apply every staged edit of the agent (Ctrl+Alt+Shift+Y)" });
    const reject = h('button', { class: 'ja-button ja-review-reject', type: 'button', 'data-testid': 'ja-review-reject-all', text: 'Reject all', title: "Drop every staged edit of the agent (Ctrl+Alt+Shift+N)" });
    accept.addEventListener('click', () => this.decide(accept, 'accept'));
    reject.addEventListener('click', () => this.decide(reject, 'reject'));
    this.node.append(this.text, accept, reject);
  }

  private decide(from: HTMLElement, decision: 'accept' | 'reject'): void {
    from.dispatchEvent(new CustomEvent('jupyter-agent:review', { bubbles: true, detail: { decision } }));
  }

  update(msg: ReviewMsg): void {
    const n = msg.pending;
    this.node.hidden = n <= 0;
    this.text.textContent = `${n} staged cell edit${n === 1 ? '' : 's'} wait${n === 1 ? 's' : ''} for your review in the notebook`;
  }
}

/** The panel's "Undo from here" on a prompt: revert the session to before it. */
export function undoButton(model: WidgetModel, messageId: string): HTMLElement {
  const button = h('button', { class: 'ja-button ja-undo', type: 'button', 'data-testid': 'ja-undo', text: 'Undo from here',
    title: 'Undo this prompt and everything after it: files, notebook cells and variables the agent changed' });
  button.addEventListener('click', () => {
    button.disabled = true;
    model.send({ type: 'revert', message_id: messageId });
  });
  return button;
}

/** What a revert did; after a revert, Unrevert puts it all back (until the next prompt). */
export function revertedBox(model: WidgetModel, msg: RevertedMsg): HTMLElement {
  const box = h('div', { class: 'ja-reverted', 'data-testid': 'ja-reverted' }, h('pre', { class: 'ja-reverted-text', text: msg.text }));
  if (msg.unrevert) {
    const button = h('button', { class: 'ja-button ja-unrevert', type: 'button', 'data-testid': 'ja-unrevert', text: 'Unrevert' });
    button.addEventListener('click', () => {
      button.disabled = true;
      model.send({ type: 'unrevert' });
    });
    box.append(button);
  }
  return box;
}
