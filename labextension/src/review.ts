// Staged cell edits: the agent's proposed insert / replace / delete lives in the cell's
// metadata (`jupyter_agent_review`), so the saved notebook keeps the cell's source as it was
// and co-editors see the proposal, never half of it. Each staged cell shows an inline diff
// (a deletion struck through) with Accept / Reject; accepting applies it to the shared model,
// rejecting drops it, and the kernel is told either way (it runs an accepted `run: true` cell).
import { Cell } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Model, findIndex, setSource } from './cells';
import { lineDiff } from './diff';
import { el } from './dom';
import { ReviewRequest, StagedEdit } from './protocol';

export const REVIEW_KEY = 'jupyter_agent_review';
export type Staged = Required<Pick<StagedEdit, 'id' | 'action'>> & StagedEdit;
export type Decision = 'accept' | 'reject';
type Send = (notebook: NotebookPanel, request: ReviewRequest) => void;

export function stagedOf(model: { getMetadata(key: string): unknown } | undefined | null): Staged | null {
  const meta = model?.getMetadata(REVIEW_KEY) as Staged | undefined;
  return meta && typeof meta === 'object' && meta.id && meta.action ? meta : null;
}

/** Put a proposed edit into the notebook: an empty placeholder cell for an insert. */
export function stageEdit(model: Model, edit: StagedEdit): string {
  // who staged it travels with the proposal (a decision after a kernel restart still reaches the
  // agent); the notebook's local path does not (the saved file may be shared)
  const meta = {
    id: edit.id, action: edit.action, source: edit.source ?? '', cell_type: edit.cell_type ?? 'code', run: Boolean(edit.run),
    label: edit.label ?? '', session_id: edit.session_id ?? '', message_id: edit.message_id ?? '', call_id: edit.call_id ?? ''
  };
  if (edit.action === 'insert') {
    const after = edit.after_id ? findIndex(model, edit.after_id) : -1;
    const index = after >= 0 ? after + 1 : Math.max(0, Math.min(edit.index ?? model.cells.length, model.cells.length));
    const cell = model.sharedModel.insertCell(index, { cell_type: meta.cell_type, source: '', metadata: { [REVIEW_KEY]: meta } } as any);
    return cell.id;
  }
  const at = findIndex(model, edit.cell_id ?? '');
  if (at < 0) throw new Error(`No cell with id ${edit.cell_id}; call notebook_read for the current ids.`);
  model.cells.get(at).sharedModel.setMetadata(REVIEW_KEY, meta as any);
  return model.cells.get(at).id;
}

/** Take staged edits back without applying them (their prompt was reverted). */
export function unstageEdits(model: Model, ids: string[]): void {
  model.sharedModel.transact(() => {
    for (let i = model.cells.length - 1; i >= 0; i--) {
      const meta = stagedOf(model.cells.get(i));
      if (!meta || !ids.includes(meta.id)) continue;
      if (meta.action === 'insert') model.sharedModel.deleteCell(i);
      else model.cells.get(i).sharedModel.deleteMetadata(REVIEW_KEY);
    }
  });
}

function plainCell(model: Model, index: number): Record<string, unknown> {
  const json = model.cells.get(index).toJSON() as any;
  const metadata = { ...(json.metadata ?? {}) };
  delete metadata[REVIEW_KEY];
  return { ...json, metadata };
}

/** Shows staged edits in the notebooks it watches and applies the user's decisions. */
export class ReviewManager {
  private reasons = new Map<string, string>();

  constructor(private send: Send) {}

  watch(panel: NotebookPanel): void {
    let queued = false;
    const schedule = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        this.render(panel);
      });
    };
    const connect = () => {
      const model = panel.content.model;
      if (!model) return;
      model.contentChanged.connect(schedule);
      model.cells.changed.connect(schedule);
      schedule();
    };
    panel.content.modelChanged.connect(connect);
    connect();
  }

  /** The staged cells of a notebook, top to bottom. */
  staged(panel: NotebookPanel | null): Cell[] {
    return (panel?.content.widgets ?? []).filter(cell => stagedOf(cell.model) !== null);
  }

  /** Accept or reject the staged edit on `cell` (its reason box says why, for a rejection). */
  decide(panel: NotebookPanel, cell: Cell, decision: Decision, reason?: string): boolean {
    const model = panel.content.model;
    const meta = stagedOf(cell.model);
    if (!model || !meta) return false;
    const index = findIndex(model, cell.model.id);
    if (index < 0) return false;
    const cellId = cell.model.id;
    const prevId = index > 0 ? model.cells.get(index - 1).id : undefined;
    const before = meta.action === 'insert' ? undefined : plainCell(model, index);
    const why = (reason ?? cell.node.querySelector<HTMLInputElement>('.ja-staged-reason')?.value ?? '').trim();
    model.sharedModel.transact(() => {
      const shared = model.cells.get(index).sharedModel;
      if (decision === 'accept' && meta.action === 'delete') model.sharedModel.deleteCell(index);
      else if (decision === 'accept') {
        setSource(model, index, meta.source ?? '');
        shared.deleteMetadata(REVIEW_KEY);
      } else if (meta.action === 'insert') model.sharedModel.deleteCell(index);
      else shared.deleteMetadata(REVIEW_KEY);
    });
    const after = decision === 'accept' && meta.action !== 'delete' ? plainCell(model, index) : undefined;
    const request: ReviewRequest = { type: 'review', staged_id: meta.id, decision, reason: decision === 'reject' ? why : '', cell_id: cellId, index, edit: meta };
    if (prevId) request.prev_id = prevId;
    if (before) request.before = before;
    if (after) request.after = after;
    this.send(panel, request);
    return true;
  }

  /** Accept all / Reject all (the panel, a cell widget's bar, the commands). */
  decideAll(panel: NotebookPanel | null, decision: Decision): number {
    if (!panel) return 0;
    let count = 0;
    for (const cell of this.staged(panel)) if (this.decide(panel, cell, decision)) count++;
    return count;
  }

  /** The active cell's staged edit, else the next one below it, else the first. */
  target(panel: NotebookPanel | null): Cell | null {
    if (!panel) return null;
    const staged = this.staged(panel);
    const active = panel.content.activeCellIndex;
    const widgets = panel.content.widgets;
    return staged.find(cell => widgets.indexOf(cell) >= active) ?? staged[0] ?? null;
  }

  private render(panel: NotebookPanel): void {
    for (const cell of panel.content.widgets) {
      const meta = stagedOf(cell.model);
      const box = cell.node.querySelector<HTMLElement>(':scope > .ja-staged');
      cell.node.classList.toggle('ja-staged-cell', meta !== null);
      for (const action of ['insert', 'replace', 'delete']) cell.node.classList.toggle(`ja-staged-${action}`, meta?.action === action);
      if (!meta) {
        box?.remove();
        continue;
      }
      const current = cell.model.sharedModel.getSource();
      const key = `${meta.id}\u0000${current}`;
      if (box?.dataset.key === key) continue;
      const fresh = this.box(panel, cell, meta, current);
      fresh.dataset.key = key;
      if (box) box.replaceWith(fresh);
      else cell.node.insertBefore(fresh, cell.node.querySelector(':scope > .jp-Cell-outputWrapper'));
    }
  }

  private box(panel: NotebookPanel, cell: Cell, meta: Staged, current: string): HTMLElement {
    const box = el('div', { class: 'ja-staged', 'data-testid': 'ja-staged', 'data-action': meta.action, 'data-staged': meta.id });
    const verb = { insert: 'adds', replace: 'changes', delete: 'deletes' }[meta.action];
    const run = meta.run ? ' and runs it once you accept' : '';
    const head = el('div', { class: 'ja-staged-head' }, `The agent ${verb} ${meta.action === 'insert' ? 'this cell' : meta.label?.replace(/^\w+ /, '') || 'this cell'}${run}:`);
    const diff = el('pre', { class: 'ja-staged-diff', 'data-testid': 'ja-staged-diff' });
    const after = meta.action === 'delete' ? '' : meta.source ?? '';
    const before = meta.action === 'insert' ? '' : current;
    for (const line of lineDiff(before, after)) {
      const mark = line.kind === 'add' ? '+' : line.kind === 'del' ? '-' : ' ';
      diff.append(el('span', { class: `ja-diff-${line.kind}` }, `${mark} ${line.text}\n`));
    }
    const accept = el('button', { class: 'ja-button ja-staged-accept', 'data-testid': 'ja-staged-accept', type: 'button', title: 'Apply the agent\'s edit (Ctrl+Alt+Y)' }, 'Accept');
    const reject = el('button', { class: 'ja-button ja-staged-reject', 'data-testid': 'ja-staged-reject', type: 'button', title: 'Drop the agent\'s edit (Ctrl+Alt+N)' }, 'Reject');
    const reason = el('input', { class: 'ja-staged-reason', 'data-testid': 'ja-staged-reason', type: 'text', placeholder: 'Reason if you reject (optional, sent to the agent)', 'aria-label': 'Reason for rejecting' });
    reason.value = this.reasons.get(meta.id) ?? '';
    reason.addEventListener('input', () => this.reasons.set(meta.id, reason.value));
    reason.addEventListener('keydown', event => {
      event.stopPropagation(); // typing here must not trigger notebook shortcuts
      if (event.key === 'Enter') {
        event.preventDefault();
        this.decide(panel, cell, 'reject', reason.value);
      }
    });
    accept.addEventListener('click', () => this.decide(panel, cell, 'accept'));
    reject.addEventListener('click', () => this.decide(panel, cell, 'reject', reason.value));
    const buttons = el('div', { class: 'ja-staged-buttons' });
    buttons.append(accept, reject, reason);
    box.append(head, diff, buttons);
    return box;
  }
}
