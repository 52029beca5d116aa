// Cells of the open notebook's model by id: shared by the kernel's operations and staged edits.
import { NotebookPanel } from '@jupyterlab/notebook';

export type Model = NonNullable<NotebookPanel['content']['model']>;

/** The index of the cell with `cellId`, or -1. */
export function findIndex(model: Model, cellId: string): number {
  for (let i = 0; i < model.cells.length; i++) if (model.cells.get(i).id === cellId) return i;
  return -1;
}

export function indexOf(model: Model, cellId: string): number {
  const at = findIndex(model, cellId);
  if (at < 0) throw new Error(`No cell with id ${cellId}; call notebook_read for the current ids.`);
  return at;
}

/** A code cell's source replaced: its outputs and count belong to the old source. */
export function setSource(model: Model, index: number, source: string): void {
  const shared = model.cells.get(index).sharedModel as any;
  shared.setSource(source);
  if (shared.cell_type === 'code') {
    shared.setOutputs([]);
    shared.execution_count = null;
  }
}
