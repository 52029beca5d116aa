// "Fix with agent": a button on every error output (JupyterLab and Notebook 7). The panel
// sends the cell's source and error output to the kernel's `fix` agent, which proposes the
// change and, once the user approves, replaces the cell and runs it.
import { Cell, CodeCell, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { agentIcon } from './icon';
import { FixRequest } from './protocol';

export type FixTarget = FixRequest & { cell_id: string; source: string };

/** The cell's error output as the kernel's fix needs it; null when it did not raise. */
export function errorOf(cell: Cell | null | undefined): FixTarget | null {
  if (!(cell instanceof CodeCell)) return null;
  const model = cell.model as ICodeCellModel;
  for (let i = 0; i < model.outputs.length; i++) {
    const output = model.outputs.get(i).toJSON() as { output_type?: string; ename?: string; evalue?: string; traceback?: string[] };
    if (output.output_type !== 'error') continue;
    return {
      type: 'fix',
      cell_id: model.id,
      source: model.sharedModel.getSource(),
      ename: String(output.ename ?? ''),
      evalue: String(output.evalue ?? ''),
      traceback: (output.traceback ?? []).map(String),
      execution_count: model.executionCount ?? undefined
    };
  }
  return null;
}

/** Is a cell of this notebook running (queued or executing)? Fixes wait for a free kernel. */
export function cellRunning(panel: NotebookPanel | null): boolean {
  const cells = panel?.content.model?.cells;
  if (!cells) return false;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i) as ICodeCellModel;
    if (cell.type === 'code' && cell.executionState === 'running') return true;
  }
  return false;
}

/** Keeps a "Fix with agent" button on each error output of the notebooks it watches. */
export class FixButtons {
  /** Cells whose fix was asked for and is not finished: their button says "Fixing…". */
  private pending = new Set<string>();
  private cells = new Map<CodeCell, NotebookPanel>();

  constructor(private onFix: (cell: CodeCell, panel: NotebookPanel) => boolean) {}

  watch(panel: NotebookPanel): void {
    const notebook = panel.content;
    const each = () => notebook.widgets.forEach(cell => this.track(cell, panel));
    notebook.model?.cells.changed.connect(() => requestAnimationFrame(each));
    notebook.modelChanged.connect(() => requestAnimationFrame(each));
    requestAnimationFrame(each);
  }

  /** A fix ended (or was refused): its cell's button is usable again. */
  release(cellId?: string): void {
    if (cellId) this.pending.delete(cellId);
    else this.pending.clear();
    this.cells.forEach((_, cell) => this.render(cell));
  }

  private track(cell: Cell, panel: NotebookPanel): void {
    if (!(cell instanceof CodeCell) || this.cells.has(cell)) return;
    this.cells.set(cell, panel);
    const update = () => requestAnimationFrame(() => this.render(cell));
    cell.model.outputs.changed.connect(update);
    cell.disposed.connect(() => this.cells.delete(cell));
    update();
  }

  private render(cell: CodeCell): void {
    if (cell.isDisposed) return;
    cell.node.querySelectorAll('.ja-fix').forEach(node => node.remove());
    const error = errorOf(cell);
    const owner = this.cells.get(cell);
    if (!error || !owner) return;
    const outputs = cell.model.outputs;
    let index = -1;
    for (let i = 0; i < outputs.length; i++) if (outputs.get(i).type === 'error') index = i;
    const child = cell.outputArea.widgets[index]?.node;
    const host = child?.querySelector('.jp-OutputArea-output') ?? child;
    if (!host) return;
    const busy = this.pending.has(error.cell_id);
    const bar = document.createElement('div');
    bar.className = 'ja-fix';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'ja-button ja-fix-button';
    button.dataset.testid = 'ja-fix';
    button.title = 'Send this cell, its traceback and the variables it uses to the agent; it proposes a fix and asks before replacing the cell';
    button.disabled = busy;
    const icon = agentIcon.element({ tag: 'span', className: 'ja-fix-icon', height: '14px', width: '14px' });
    icon.setAttribute('aria-hidden', 'true');
    button.append(icon, document.createTextNode(busy ? 'Fixing…' : 'Fix with agent'));
    button.addEventListener('click', event => {
      event.preventDefault();
      event.stopPropagation();
      if (button.disabled) return;
      this.pending.add(error.cell_id);
      button.disabled = true;
      if (!this.onFix(cell, owner)) this.release(error.cell_id);
      else this.render(cell);
    });
    bar.append(button);
    host.append(bar);
  }
}
