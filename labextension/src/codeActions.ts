// Code-block actions (Copy / Insert below / Replace cell) from the panel's answers and from
// %agent cells' answers, applied to the notebook the panel follows.
import { Cell } from '@jupyterlab/cells';
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

export class CodeActions {
  /** The active cell just before a click on a code action inside a cell's output: JupyterLab
   * activates the clicked cell first, and Replace must not overwrite the `%agent` cell itself. */
  private before: Cell | null = null;
  private pointerDown = false;

  constructor(private notebook: () => NotebookPanel | null) {
    document.addEventListener('mousedown', event => this.remember(event, true), true);
    document.addEventListener('focusin', event => this.remember(event, false), true);
    document.addEventListener('mouseup', () => { this.pointerDown = false; }, true);
    document.addEventListener('jupyter-agent:code', event => this.apply(event as CustomEvent));
  }

  private remember(event: Event, pointer: boolean): void {
    const target = event.target as HTMLElement | null;
    if (!target?.closest?.('.ja-code-action')) return;
    if (!pointer && this.pointerDown) return; // the focus that follows the mousedown
    this.pointerDown = pointer;
    this.before = this.notebook()?.content.activeCell ?? null;
  }

  private apply(event: CustomEvent<{ action: string; code: string }>): void {
    const notebook = this.notebook()?.content;
    const { action, code } = event.detail ?? {};
    if (!notebook || typeof code !== 'string') return;
    const target = event.target as HTMLElement | null;
    const index = notebook.widgets.findIndex(cell => target && cell.node.contains(target));
    if (action === 'insert') {
      // from a cell's answer: below that cell; from the panel: below the active cell
      if (index >= 0) notebook.activeCellIndex = index;
      NotebookActions.insertBelow(notebook);
      notebook.activeCell?.model.sharedModel.setSource(code);
    } else if (action === 'replace') {
      const before = this.before;
      const cell = index >= 0 && before && notebook.widgets.includes(before) ? before : notebook.activeCell;
      if (!cell) return;
      cell.model.sharedModel.setSource(code);
      notebook.activeCellIndex = notebook.widgets.indexOf(cell);
    }
    this.before = null;
  }
}
