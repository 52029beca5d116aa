// The panel's width. A sidebar opens about 250 px wide: code blocks are cut and their buttons
// squeezed. The panel opens at a width where a code block and its buttons fit, and after that
// at the width the user gave it: JupyterLab keeps that in its workspace, Notebook 7 does not,
// so it is kept here too (localStorage, per browser profile).
import { SplitLayout, SplitPanel, Widget } from '@lumino/widgets';

export const COMFORTABLE_WIDTH = 440;
/** The share of the split the panel takes at most when it picks its first width itself. */
const MAX_SHARE = 0.38;
const KEY = 'jupyter-agent:panel-width';

function stored(): number | null {
  try {
    const value = Number(window.localStorage.getItem(KEY));
    return Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null; // storage disabled: the first width each time
  }
}

function store(width: number): void {
  try {
    window.localStorage.setItem(KEY, String(Math.round(width)));
  } catch {
    // see stored()
  }
}

/** Remember the width the user drags the panel to; the function returned gives the sidebar
 * holding `widget` that width (or the first one) and is called each time the panel is shown. */
export function keepWidth(widget: Widget): () => void {
  let ready = false; // no width is remembered before the panel had its own
  new ResizeObserver(() => {
    const width = widget.node.getBoundingClientRect().width;
    if (ready && widget.isVisible && width > 0) store(width);
  }).observe(widget.node);
  return () =>
    requestAnimationFrame(() => {
      if (!widget.isVisible) return;
      const saved = stored();
      const split = splitOf(widget);
      if (split) {
        const room = split.split.node.getBoundingClientRect().width;
        const wanted = saved === null ? Math.min(COMFORTABLE_WIDTH, room * MAX_SHARE) : Math.min(saved, room * 0.8);
        resize(split, Math.floor(wanted));
      }
      ready = true;
    });
}

type Placement = { split: SplitPanel; area: Widget; index: number };

function splitOf(widget: Widget): Placement | null {
  let area: Widget = widget;
  let split = widget.parent;
  while (split && !(split instanceof SplitPanel)) {
    area = split;
    split = split.parent;
  }
  if (!(split instanceof SplitPanel)) return null;
  const index = split.widgets.indexOf(area);
  return index < 0 ? null : { split, area, index };
}

/** Move the handle between the panel's area and its neighbour (the notebook area). */
function resize({ split, area, index }: Placement, wanted: number): void {
  const current = area.node.getBoundingClientRect().width;
  if (current <= 0 || Math.abs(current - wanted) < 4) return;
  const last = index === split.widgets.length - 1;
  const handleIndex = last ? index - 1 : index;
  const handle = split.handles[handleIndex];
  if (!handle) return;
  const position = handle.offsetLeft + (last ? -1 : 1) * (wanted - current);
  (split.layout as SplitLayout).moveHandle(handleIndex, position);
}
