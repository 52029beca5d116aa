// Notebook operations the kernel asks of the panel (`notebook_edit`, staged edits, a revert's
// steps): they act on the open notebook's shared model, so edits show at once (to co-editors
// too) and cells run in the user's kernel.
import { NotebookPanel } from '@jupyterlab/notebook';
import { CodeCell, MarkdownCell } from '@jupyterlab/cells';
import { CellStep, NotebookOpMsg, NotebookReply } from './protocol';
import { Model, findIndex, indexOf, setSource } from './cells';
import { stageEdit, unstageEdits } from './review';

const VERBS: Record<CellStep['op'], string> = { remove: 'removed', put: 'restored', insert: 'put back' };

/** A revert's (or unrevert's) steps, in one transaction: what was done, what could not be. */
export function applySteps(model: Model, steps: CellStep[]): { done: string[]; problems: string[] } {
  const done: string[] = [];
  const problems: string[] = [];
  const shared = model.sharedModel;
  shared.transact(() => {
    for (const step of steps) {
      const label = step.label || step.cell_id;
      const at = findIndex(model, step.cell_id);
      if (step.op === 'remove') {
        if (at < 0) {
          problems.push(`${label}: already gone`);
          continue;
        }
        shared.deleteCell(at);
      } else if (at >= 0) { // put, or an insert of a cell that is there: as it was
        shared.deleteCell(at);
        shared.insertCell(at, step.cell as any);
      } else {
        const after = step.after_id ? findIndex(model, step.after_id) : -1;
        const position = after >= 0 ? after + 1 : Math.max(0, Math.min(step.index ?? 0, model.cells.length));
        shared.insertCell(position, step.cell as any);
      }
      done.push(`${label}: ${VERBS[step.op]}`);
    }
  });
  return { done, problems };
}

export async function runOp(panel: NotebookPanel, op: NotebookOpMsg): Promise<NotebookReply> {
  const reply: NotebookReply = { type: 'nb_reply', op_id: op.op_id, ok: true };
  const model = panel.content.model;
  if (!model) throw new Error('The notebook is not loaded yet.');
  switch (op.op) {
    case 'read': {
      const cells = [];
      for (let i = 0; i < model.cells.length; i++) cells.push(model.cells.get(i).toJSON() as any);
      reply.cells = cells;
      break;
    }
    case 'insert': {
      const index = Math.max(0, Math.min(op.index ?? model.cells.length, model.cells.length));
      const kind = op.cell_type ?? 'code';
      const cell = model.sharedModel.insertCell(index, { cell_type: kind, source: op.source ?? '' } as any);
      reply.cell_id = cell.id;
      break;
    }
    case 'replace':
      setSource(model, indexOf(model, op.cell_id ?? ''), op.source ?? '');
      break;
    case 'delete':
      model.sharedModel.deleteCell(indexOf(model, op.cell_id ?? ''));
      break;
    case 'run': {
      const widget = panel.content.widgets[indexOf(model, op.cell_id ?? '')];
      if (widget instanceof CodeCell) {
        await CodeCell.execute(widget, panel.sessionContext);
        reply.outputs = widget.model.outputs.toJSON() as any;
      } else if (widget instanceof MarkdownCell) {
        widget.rendered = true;
        reply.outputs = [];
      }
      break;
    }
    case 'stage':
      if (!op.staged) throw new Error('Nothing to stage.');
      reply.cell_id = stageEdit(model, op.staged);
      break;
    case 'unstage':
      unstageEdits(model, op.staged_ids ?? []);
      break;
    case 'restore': {
      const { done, problems } = applySteps(model, op.steps ?? []);
      reply.done = done;
      reply.problems = problems;
      break;
    }
  }
  return reply;
}
