// In the notebook: "Add as cell" on the transcript of an %agent run that left hidden state
// (its output metadata `jupyter_agent.hidden_state` holds the run and its code), and "Fix
// with agent" on a verification's table that found the notebook not reproducible. Both go
// through the side panel's kernel connection. A run whose code was added is remembered in
// its cell's metadata, so the saved notebook does not offer it again.
import { Cell, CodeCell, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { agentIcon } from './icon';
import { AddCellRequest } from './protocol';

const KEY = 'jupyter_agent';

type Hidden = { run: string; code?: string; cell_id?: string };
type Marked = { index: number; hidden?: Hidden; verify?: boolean };

function meta(cell: ICodeCellModel): { added_runs?: string[] } {
  return (cell.getMetadata(KEY) as { added_runs?: string[] } | undefined) ?? {};
}

/** The outputs of `cell` that carry a hidden-state marker or a verification that diverged. */
function marked(cell: CodeCell): Marked[] {
  const found: Marked[] = [];
  const outputs = cell.model.outputs;
  for (let i = 0; i < outputs.length; i++) {
    const data = outputs.get(i).metadata?.[KEY] as { hidden_state?: Hidden; verify?: { reproducible?: boolean } } | undefined;
    if (data?.hidden_state?.run) found.push({ index: i, hidden: data.hidden_state });
    else if (data?.verify && data.verify.reproducible === false) found.push({ index: i, verify: true });
  }
  return found;
}

function button(label: string, testid: string, title: string): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = 'ja-button ja-fix-button';
  node.dataset.testid = testid;
  node.title = title;
  const icon = agentIcon.element({ tag: 'span', className: 'ja-fix-icon', height: '14px', width: '14px' });
  icon.setAttribute('aria-hidden', 'true');
  node.append(icon, document.createTextNode(label));
  return node;
}

export class ReproButtons {
  private pending = new Set<string>();
  private cells = new Map<CodeCell, NotebookPanel>();

  constructor(
    private onAdd: (panel: NotebookPanel, request: AddCellRequest) => boolean,
    private onFix: (panel: NotebookPanel) => boolean
  ) {}

  watch(panel: NotebookPanel): void {
    const notebook = panel.content;
    const each = () => notebook.widgets.forEach(cell => this.track(cell, panel));
    notebook.model?.cells.changed.connect(() => requestAnimationFrame(each));
    notebook.modelChanged.connect(() => requestAnimationFrame(each));
    requestAnimationFrame(each);
  }

  /** The kernel added a run's code as a cell: its cell remembers it, its button goes. */
  added(run: string): void {
    this.pending.delete(run);
    this.cells.forEach((_, cell) => {
      if (cell.isDisposed || !marked(cell).some(m => m.hidden?.run === run)) return;
      const current = meta(cell.model);
      const runs = [...new Set([...(current.added_runs ?? []), run])];
      cell.model.setMetadata(KEY, { ...current, added_runs: runs });
      this.render(cell);
    });
  }

  /** A request ended without adding (refused, failed): the button is usable again. */
  release(): void {
    this.pending.clear();
    this.cells.forEach((_, cell) => this.render(cell));
  }

  private track(cell: Cell, panel: NotebookPanel): void {
    if (!(cell instanceof CodeCell) || this.cells.has(cell)) return;
    this.cells.set(cell, panel);
    const update = () => requestAnimationFrame(() => this.render(cell));
    cell.model.outputs.changed.connect(update);
    // an output rendered again (the notebook became trusted on save) loses its bar
    const observer = new MutationObserver(records => {
      const ours = (node: Node) => node instanceof HTMLElement && node.classList.contains('ja-repro');
      if (records.some(r => [...r.addedNodes, ...r.removedNodes].some(n => !ours(n)))) update();
    });
    observer.observe(cell.outputArea.node, { childList: true, subtree: true });
    cell.disposed.connect(() => {
      observer.disconnect();
      this.cells.delete(cell);
    });
    update();
  }

  private render(cell: CodeCell): void {
    if (cell.isDisposed) return;
    cell.node.querySelectorAll('.ja-repro').forEach(node => node.remove());
    const owner = this.cells.get(cell);
    if (!owner) return;
    for (const found of marked(cell)) {
      const child = cell.outputArea.widgets[found.index]?.node;
      const host = child?.querySelector('.jp-OutputArea-output') ?? child;
      if (!host) continue;
      const bar = document.createElement('div');
      bar.className = 'ja-repro'; // not ja-fix: the Fix buttons clear those
      if (found.hidden) bar.append(this.addButton(cell, owner, found.hidden));
      else bar.append(this.fixButton(owner));
      host.append(bar);
    }
  }

  private addButton(cell: CodeCell, owner: NotebookPanel, hidden: Hidden): HTMLElement {
    if ((meta(cell.model).added_runs ?? []).includes(hidden.run)) {
      const done = document.createElement('span');
      done.className = 'ja-hidden-added';
      done.dataset.testid = 'ja-hidden-added';
      done.textContent = "The agent's code was added as a cell below.";
      return done;
    }
    const busy = this.pending.has(hidden.run);
    const add = button(busy ? 'Adding…' : 'Add as cell', 'ja-add-cell',
      "Insert the agent's code (the calls that set these names, in order) as a cell below this one");
    add.disabled = busy;
    add.addEventListener('click', event => {
      event.preventDefault();
      event.stopPropagation();
      if (add.disabled) return;
      this.pending.add(hidden.run);
      const request: AddCellRequest = { type: 'add_cell', run: hidden.run, cell_id: cell.model.id, ...(hidden.code ? { code: hidden.code } : {}) };
      if (!this.onAdd(owner, request)) this.pending.delete(hidden.run);
      // no answer (the kernel refused and said why in the panel): usable again
      else window.setTimeout(() => { if (this.pending.delete(hidden.run)) this.render(cell); }, 10000);
      this.render(cell);
    });
    return add;
  }

  private fixButton(owner: NotebookPanel): HTMLElement {
    const fix = button('Fix with agent', 'ja-verify-fix',
      'Send this verification report to the agent; it proposes changes and asks before each edit');
    fix.addEventListener('click', event => {
      event.preventDefault();
      event.stopPropagation();
      fix.disabled = true;
      if (!this.onFix(owner)) fix.disabled = false;
    });
    return fix;
  }
}
