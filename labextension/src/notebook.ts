// Notebook operations the kernel's `notebook_edit` tool asks of the panel: they act on
// the open notebook's model, so edits show at once and cells run in the user's kernel.
import { NotebookPanel } from '@jupyterlab/notebook';
import { CodeCell, MarkdownCell } from '@jupyterlab/cells';
import { NotebookOpMsg, NotebookReply } from './protocol';

function indexOf(panel: NotebookPanel, cellId: string): number {
  const cells = panel.content.model?.cells;
  if (cells) {
    for (let i = 0; i < cells.length; i++) if (cells.get(i).id === cellId) return i;
  }
  throw new Error(`No cell with id ${cellId}; call notebook_read for the current ids.`);
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
      model.cells.get(indexOf(panel, op.cell_id ?? '')).sharedModel.setSource(op.source ?? '');
      break;
    case 'delete':
      model.sharedModel.deleteCell(indexOf(panel, op.cell_id ?? ''));
      break;
    case 'run': {
      const widget = panel.content.widgets[indexOf(panel, op.cell_id ?? '')];
      if (widget instanceof CodeCell) {
        await CodeCell.execute(widget, panel.sessionContext);
        reply.outputs = widget.model.outputs.toJSON() as any;
      } else if (widget instanceof MarkdownCell) {
        widget.rendered = true;
        reply.outputs = [];
      }
      break;
    }
  }
  return reply;
}
