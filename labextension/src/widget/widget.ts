// jupyter-agent live widget: renders the kernel's UI messages (jupyter_agent/ui/widget_protocol.py,
// typed here by the generated ../protocol.ts). Plain DOM, no framework, no network: works in
// JupyterLab 4, Notebook 7 and VS Code. Bundled with its Markdown renderer into
// jupyter_agent/ui/static/widget.js by labextension/build-widget.mjs (the anywidget ES module);
// the side panel imports these sources directly.
//
// Kernel → view: custom messages {kind: part|delta|message|removed|gauge|permission|
//   permission_done|compacted|status|notice|older|hidden_state|verify|replay}.
// View → kernel: {type: ready, view} once per view (the kernel answers with one `replay`
//   holding everything sent so far), {type: stop}, {type: approve, request_id, reply},
//   {type: compact}, and in the side panel {type: older, session_id, before} for the page of
//   messages before the oldest shown (they arrive as usual and take their place by id).
import type { WidgetModel } from './model';
import { AgentView } from './view';

export { escapeHtml, markdown } from './markdown';
export { splitFenced } from './fenced';
export type { WidgetModel, WidgetRequest } from './model';

/** anywidget's entry point: the view lives in `el` until the returned function is called. */
function render({ model, el }: { model: WidgetModel; el: HTMLElement }): () => void {
  const view = new AgentView(model, el);
  view.start();
  return () => view.stop();
}

export default { render };
