// Reproducibility in the stream: the marker of a run that left hidden state (with "Add as
// cell"), and a verification's progress and table (with "Fix with agent" when it diverged).
import type { AddCellRequest, FixRequest, HiddenStateMsg, VerifyMsg } from '../protocol';
import { h } from './dom';

/** `sales` in the kernel's sentence → <code>sales</code>. */
function withCode(text: string): Node[] {
  return text.split(/`([^`]+)`/).map((piece, i) => (i % 2 ? h('code', { text: piece }) : document.createTextNode(piece)));
}

/** The marker; `send` gets the "Add as cell" request (the button then waits for the kernel's "added"). */
export function hiddenMarker(msg: HiddenStateMsg, send: (request: AddCellRequest) => void): HTMLElement {
  const box = h('div', { class: 'ja-hidden', 'data-testid': 'ja-hidden', 'data-run': msg.run, role: 'note' });
  const sentence = h('div', { class: 'ja-hidden-text' }, h('span', { class: 'ja-hidden-icon', 'aria-hidden': 'true', text: '⚠ ' }));
  sentence.append(...withCode(msg.text));
  box.append(sentence);
  if (msg.code) {
    box.append(h('details', { class: 'ja-hidden-code' }, h('summary', { text: "The agent's code" }), h('pre', {}, h('code', { text: msg.code }))));
  }
  const row = h('div', { class: 'ja-hidden-actions' });
  if (msg.added) {
    box.classList.add('ja-done');
    row.append(h('span', { class: 'ja-hidden-added', 'data-testid': 'ja-hidden-added', text: 'Added as a cell below the run.' }));
  } else if (msg.code) {
    const button = h('button', { class: 'ja-button ja-add-cell', type: 'button', 'data-testid': 'ja-add-cell',
      title: "Insert the agent's code (the calls that set these names, in order) as a cell below the run",
      text: 'Add as cell' });
    button.addEventListener('click', () => {
      button.disabled = true;
      button.textContent = 'Adding…';
      send({ type: 'add_cell', run: msg.run, ...(msg.cell_id ? { cell_id: msg.cell_id } : {}) });
      window.setTimeout(() => { if (button.isConnected) { button.disabled = false; button.textContent = 'Add as cell'; } }, 10000);
    });
    row.append(button);
  }
  box.append(row);
  return box;
}

/** Progress, then the table; "Fix with agent" hands the report to the agent. */
export function verifyBox(msg: VerifyMsg, send: (request: FixRequest) => void): HTMLElement {
  const box = h('div', { class: `ja-verify ja-verify-${msg.state}`, 'data-testid': 'ja-verify', 'data-state': msg.state });
  const rows = msg.rows ?? [];
  if (rows.length) {
    const body = h('tbody');
    for (const row of rows) {
      body.append(h('tr', { 'data-status': row.status }, h('td', { text: row.label }), h('td', { text: row.status }),
        h('td', { text: row.detail ?? '' })));
    }
    box.append(h('table', { class: 'ja-verify-table' },
      h('thead', {}, h('tr', {}, h('th', { text: 'cell' }), h('th', { text: 'status' }), h('th', { text: 'detail' }))), body));
  }
  box.append(h('div', { class: 'ja-verify-text', 'data-testid': 'ja-verify-text' }, ...withCode(msg.text)));
  if (msg.state === 'done' && msg.reproducible === false) {
    const fix = h('button', { class: 'ja-button ja-verify-fix', type: 'button', 'data-testid': 'ja-verify-fix',
      title: 'Send this report to the agent; it proposes changes and asks before each edit', text: 'Fix with agent' });
    fix.addEventListener('click', () => {
      fix.disabled = true;
      send({ type: 'fix', verify: true });
    });
    box.append(fix);
  }
  return box;
}
