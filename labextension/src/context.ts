// One-click context: the active cell, or the text selected in it, attached as a removable chip.
import { NotebookPanel } from '@jupyterlab/notebook';
import { el } from './dom';

export type ContextItem = { label: string; text: string };

/** The active cell's selected text, or its whole source; null when there is nothing. */
export function activeCellContext(notebook: NotebookPanel | null): ContextItem | null {
  const content = notebook?.content;
  const cell = content?.activeCell;
  if (!content || !cell) return null;
  const source = cell.model.sharedModel.getSource();
  // named as everywhere else (Fix, @cell:N, the kernel's errors): by its execution count
  const count = (cell.model as { executionCount?: number | null }).executionCount;
  const name = `In [${count ?? ' '}]`;
  const editor = cell.editor;
  if (editor) {
    const { start, end } = editor.getSelection();
    const from = editor.getOffsetAt(start);
    const to = editor.getOffsetAt(end);
    if (to !== from) {
      const text = source.slice(Math.min(from, to), Math.max(from, to));
      const lines = text.split('\n').length;
      return { label: `${name}, selection (${lines} line${lines === 1 ? '' : 's'})`, text };
    }
  }
  if (!source.trim()) return null;
  return { label: name, text: source };
}

/** The chips above the prompt box. */
export class ContextChips {
  readonly node = el('div', { class: 'ja-panel-chips', 'data-testid': 'ja-context-chips', hidden: '' });
  private items: ContextItem[] = [];

  add(item: ContextItem): void {
    this.items = this.items.filter(i => i.label !== item.label || i.text !== item.text);
    this.items.push(item);
    this.render();
  }

  take(): ContextItem[] {
    const items = this.items;
    this.items = [];
    this.render();
    return items;
  }

  private render(): void {
    this.node.replaceChildren();
    for (const item of this.items) {
      const chip = el('span', { class: 'ja-chip', 'data-testid': 'ja-context-chip', title: item.text.slice(0, 500) });
      const remove = el('button', { class: 'ja-chip-remove', type: 'button', 'data-testid': 'ja-chip-remove', 'aria-label': `Remove ${item.label}`, title: 'Remove' }, '×');
      remove.addEventListener('click', () => {
        this.items = this.items.filter(i => i !== item);
        this.render();
      });
      chip.append(el('span', { class: 'ja-chip-label' }, item.label), remove);
      this.node.append(chip);
    }
    this.node.hidden = this.items.length === 0;
  }
}
