// Which agent session a cell's run belonged to. The kernel puts the session id in the
// transcript output's metadata (`jupyter_agent.session_id`); a kernel cannot write cell
// metadata, so this copies it there, where the saved notebook keeps it for the panel.
import { ICellModel, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

export const KEY = 'jupyter_agent';

function outputSession(cell: ICellModel): string {
  const outputs = (cell as ICodeCellModel).outputs;
  if (cell.type !== 'code' || !outputs) return '';
  for (let i = outputs.length - 1; i >= 0; i--) {
    const meta = outputs.get(i).metadata?.[KEY] as { session_id?: unknown } | undefined;
    if (typeof meta?.session_id === 'string') return meta.session_id;
  }
  return '';
}

/** The session a cell belongs to: its metadata, else its transcript output (nbclient runs). */
export function cellSession(cell: ICellModel | null | undefined): string {
  if (!cell) return '';
  const meta = cell.getMetadata(KEY) as { session_id?: unknown } | undefined;
  return typeof meta?.session_id === 'string' ? meta.session_id : outputSession(cell);
}

function watch(cell: ICellModel, seen: WeakSet<ICellModel>): void {
  const outputs = (cell as ICodeCellModel).outputs;
  if (cell.type !== 'code' || !outputs || seen.has(cell)) return;
  seen.add(cell);
  outputs.changed.connect(() => {
    const sessionId = outputSession(cell);
    const current = cell.getMetadata(KEY) as { session_id?: unknown } | undefined;
    if (sessionId && current?.session_id !== sessionId) cell.setMetadata(KEY, { ...current, session_id: sessionId });
  });
}

/** Tag each cell of `panel` with the session of the agent run whose transcript it shows. */
export function tagCellSessions(panel: NotebookPanel): void {
  const seen = new WeakSet<ICellModel>();
  const start = () => {
    const cells = panel.content.model?.cells;
    if (!cells) return;
    for (let i = 0; i < cells.length; i++) watch(cells.get(i), seen);
    cells.changed.connect((_, change) => change.newValues.forEach(cell => watch(cell, seen)));
  };
  if (panel.content.model) start();
  else panel.content.modelChanged.connect(start);
}
