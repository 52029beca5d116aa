// An approval box: Allow once / Always / Reject, with an optional reason for a rejection.
// A configuration file that is not trusted yet (permission `trust_config`) gets Trust / Ignore.
import type { ApproveRequest, PermissionDoneMsg, PermissionView } from '../protocol';
import { h } from './dom';

type Reply = PermissionDoneMsg['reply'];
const REPLY_LABELS: Record<Reply, string> = { once: 'Allowed once', always: 'Always allowed', reject: 'Rejected' };
const BUTTONS: [Reply, string][] = [['once', 'Allow once'], ['always', 'Always'], ['reject', 'Reject']];
const TRUST = 'trust_config';
const TRUST_LABELS: Record<Reply, string> = { once: 'Trusted', always: 'Trusted', reject: 'Ignored' };
const TRUST_BUTTONS: [Reply, string][] = [['once', 'Trust'], ['reject', 'Ignore']];

/** The box for a request; `send` gets the user's answer (then the box's controls lock). */
export function permissionBox(r: PermissionView, send: (answer: ApproveRequest) => void): HTMLElement {
  const trusting = r.permission === TRUST;
  const patterns = r.patterns ?? [];
  // what "Always" allows, and for how long: the rest of this session, never beyond
  const always = trusting
    ? null
    : r.always
      ? h('div', { class: 'ja-permission-patterns', text: `“Always” allows ${r.always} for this session.` })
      : patterns.length
        ? h('div', { class: 'ja-permission-patterns' }, document.createTextNode('“Always” allows: '),
          h('code', { text: patterns.join(', ') }), document.createTextNode(' for this session.'))
        : null;
  const heading = trusting ? 'Trust this configuration file?' : `Allow ${r.permission}?`;
  const box = h('div', { class: 'ja-permission', 'data-testid': 'ja-permission', 'data-request': r.id,
    'data-permission': r.permission },
    h('div', { class: 'ja-permission-title' }, h('strong', { text: heading }),
      document.createTextNode(r.title ? ` ${r.title}` : '')),
    r.diff ? diffView(r.diff) : null,
    always);
  const buttons = h('div', { class: 'ja-permission-buttons' });
  // an optional reason goes to the model with a rejection ("use pathlib instead")
  const reason = h('input', { class: 'ja-reject-reason', type: 'text', 'data-testid': 'ja-reject-reason',
    placeholder: 'Reason if you reject (optional, sent to the agent)', 'aria-label': 'Reason for rejecting' });
  const answer = (reply: Reply): void => {
    const message = reply === 'reject' ? reason.value.trim() : '';
    send({ type: 'approve', request_id: r.id, reply, ...(message ? { message } : {}) });
    buttons.querySelectorAll('button').forEach(b => { b.disabled = true; });
    reason.disabled = true;
  };
  reason.addEventListener('keydown', event => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    event.stopPropagation();
    if (reason.value.trim()) answer('reject');
  });
  for (const [reply, label] of trusting ? TRUST_BUTTONS : BUTTONS) {
    const button = h('button', { class: `ja-button ja-approve-${reply}`, type: 'button',
      'data-testid': `ja-approve-${reply}`, text: label });
    button.addEventListener('click', () => answer(reply));
    buttons.append(button);
  }
  if (!trusting) buttons.append(reason);
  box.append(buttons);
  return box;
}

/** The answer, once given (here or in another view): controls locked, the reply said. */
export function permissionDone(box: HTMLElement, reply: Reply): void {
  box.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input').forEach(b => { b.disabled = true; });
  box.classList.add('ja-answered');
  box.querySelector('.ja-permission-answer')?.remove();
  const labels = box.dataset.permission === TRUST ? TRUST_LABELS : REPLY_LABELS;
  box.append(h('div', { class: 'ja-permission-answer', text: labels[reply] || reply }));
}

/** A unified diff, each line marked (+ added, - removed) so the change reads at a glance. */
function diffView(diff: string): HTMLElement {
  const pre = h('pre', { class: 'ja-permission-diff', 'data-testid': 'ja-permission-diff' });
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('+') ? 'add'
      : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : 'same';
    pre.append(h('span', { class: `ja-diff-${kind}`, text: line + '\n' }));
  }
  return pre;
}
