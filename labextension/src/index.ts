import { ILabShell, ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, ToolbarButton } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { INotebookTracker } from '@jupyterlab/notebook';
import { cellSession, tagCellSessions } from './cellSessions';
import { FixButtons, errorOf } from './fix';
import { agentIcon } from './icon';
import { setupInlineCompletion } from './inline';
import { AgentPanel } from './panel';
import { ReproButtons } from './repro';
import { Decision, ReviewManager } from './review';

const COMMAND = 'jupyter-agent:open-panel';
const CELL_SESSION = 'jupyter-agent:show-cell-session';
/** Documented in README (default shortcut Alt+I, in schema/panel.json). */
const FOCUS_PROMPT = 'jupyter-agent:focus-prompt';
const FIX_CELL = 'jupyter-agent:fix-cell';
/** Staged edits (default shortcuts in schema/panel.json; README "Reviewing the agent's edits"). */
const ACCEPT = 'jupyter-agent:accept-change';
const REJECT = 'jupyter-agent:reject-change';
const ACCEPT_ALL = 'jupyter-agent:accept-all-changes';
const REJECT_ALL = 'jupyter-agent:reject-all-changes';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agent:panel',
  description: 'A side panel to chat with the jupyter-agent running in the notebook kernel.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette, ILayoutRestorer, ILabShell, ICompletionProviderManager],
  // app.shell, not ILabShell: Notebook 7 has no ILabShell, and its shell has a right area too
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    labShell: ILabShell | null,
    completions: ICompletionProviderManager | null
  ) => {
    const shell = app.shell;
    const panel = new AgentPanel();
    shell.add(panel, 'right', { rank: 200 });
    // reopened after a reload when it was open (JupyterLab, and Notebook 7's layout)
    restorer?.add(panel, panel.id);
    tracker.currentChanged.connect((_, notebook) => panel.setNotebook(notebook));
    panel.setNotebook(tracker.currentWidget);
    const show = () => {
      shell.activateById(panel.id);
      if (!labShell) rememberOpen(true);
    };
    app.commands.addCommand(COMMAND, {
      label: 'Open the Agent panel',
      icon: agentIcon,
      execute: show
    });
    app.commands.addCommand(FOCUS_PROMPT, {
      label: 'Ask the Agent (focus the prompt)',
      caption: 'Open the Agent panel and put the cursor in its prompt box',
      execute: () => {
        show();
        requestAnimationFrame(() => panel.focusPrompt());
      }
    });
    palette?.addItem({ command: COMMAND, category: 'Agent' });
    palette?.addItem({ command: FOCUS_PROMPT, category: 'Agent' });
    tracker.widgetAdded.connect((_, notebook) => tagCellSessions(notebook));
    tracker.forEach(notebook => tagCellSessions(notebook));

    // "Fix with agent" on error outputs, in the cell's context menu and as /fix in the panel
    const fixButtons = new FixButtons((cell, notebook) => {
      show();
      return panel.fix(cell, notebook);
    });
    panel.onIdle = () => fixButtons.release();
    tracker.widgetAdded.connect((_, notebook) => fixButtons.watch(notebook));
    tracker.forEach(notebook => fixButtons.watch(notebook));
    // "Add as cell" on a run that left hidden state; "Fix with agent" on a verification's table
    const reproButtons = new ReproButtons(
      (notebook, request) => panel.addCell(notebook, request),
      notebook => {
        show();
        return panel.fixVerify(notebook);
      }
    );
    panel.onHiddenAdded = run => reproButtons.added(run);
    tracker.widgetAdded.connect((_, notebook) => reproButtons.watch(notebook));
    tracker.forEach(notebook => reproButtons.watch(notebook));
    app.commands.addCommand(FIX_CELL, {
      label: 'Fix with Agent',
      caption: "Send the cell's error to the agent; it proposes a fix and asks before replacing the cell",
      icon: agentIcon,
      isVisible: () => errorOf(tracker.activeCell) !== null,
      execute: () => {
        show();
        panel.fix(tracker.activeCell, tracker.currentWidget);
      }
    });
    app.contextMenu.addItem({ command: FIX_CELL, selector: '.jp-Notebook .jp-CodeCell', rank: 19 });

    // Escape stops a running answer from the agent cell the user is on (command mode), as it
    // does from the panel and from inside the cell's output
    document.addEventListener('keydown', event => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      const notebook = tracker.currentWidget?.content;
      const target = event.target as Node | null;
      if (!notebook || notebook.mode !== 'command' || !target || !notebook.node.contains(target)) return;
      const stop = notebook.activeCell?.node.querySelector('.ja-root[data-state="busy"] [data-testid=ja-stop]') as HTMLButtonElement | null;
      if (stop && !stop.hidden && !stop.disabled) {
        event.preventDefault();
        stop.click();
      }
    });

    if (!labShell) notebookSeven(app, tracker, panel, show);
    reviewCommands(app, tracker, panel, palette);

    // ghost-text suggestions in cells from the kernel that holds the variables (src/inline.ts)
    if (completions) setupInlineCompletion(app, completions, tracker);

    // a saved cell remembers its session: open that session in the panel
    app.commands.addCommand(CELL_SESSION, {
      label: "Show This Cell's Agent Session",
      isVisible: () => cellSession(tracker.activeCell?.model) !== '',
      execute: () => {
        const sessionId = cellSession(tracker.activeCell?.model);
        if (!sessionId) return;
        panel.showSession(sessionId);
        show();
      }
    });
    app.contextMenu.addItem({ command: CELL_SESSION, selector: '.jp-Notebook .jp-CodeCell', rank: 20 });
  }
};

/** Staged edits: shown in every notebook, decided by their buttons, the commands (palette,
 * shortcuts) and Accept all / Reject all in the panel and in a cell widget (a DOM event from
 * the shared renderer: it reaches here from either). */
function reviewCommands(app: JupyterFrontEnd, tracker: INotebookTracker, panel: AgentPanel, palette: ICommandPalette | null): void {
  const reviews = new ReviewManager((notebook, review) => panel.sendReview(notebook, review));
  tracker.widgetAdded.connect((_, notebook) => reviews.watch(notebook));
  tracker.forEach(notebook => reviews.watch(notebook));
  const one = (decision: Decision) => () => {
    const notebook = tracker.currentWidget;
    const cell = reviews.target(notebook);
    if (notebook && cell) reviews.decide(notebook, cell, decision);
  };
  const some = () => reviews.staged(tracker.currentWidget).length > 0;
  app.commands.addCommand(ACCEPT, { label: "Accept the Agent's Edit", caption: 'Apply the staged edit of the active cell (or the next one)', isEnabled: some, execute: one('accept') });
  app.commands.addCommand(REJECT, { label: "Reject the Agent's Edit", caption: 'Drop the staged edit of the active cell (or the next one)', isEnabled: some, execute: one('reject') });
  app.commands.addCommand(ACCEPT_ALL, { label: "Accept All of the Agent's Edits", isEnabled: some, execute: () => reviews.decideAll(tracker.currentWidget, 'accept') });
  app.commands.addCommand(REJECT_ALL, { label: "Reject All of the Agent's Edits", isEnabled: some, execute: () => reviews.decideAll(tracker.currentWidget, 'reject') });
  for (const command of [ACCEPT, REJECT, ACCEPT_ALL, REJECT_ALL]) palette?.addItem({ command, category: 'Agent' });
  document.addEventListener('jupyter-agent:review', event => {
    const decision = (event as CustomEvent<{ decision?: Decision }>).detail?.decision;
    if (decision !== 'accept' && decision !== 'reject') return;
    const target = event.target as Node | null;
    let notebook = panel.current;
    tracker.forEach(candidate => {
      if (target && candidate.node.contains(target)) notebook = candidate; // a cell widget's bar
    });
    reviews.decideAll(notebook, decision);
  });
}

const OPEN_KEY = 'jupyter-agent:notebook7-panel-open';

function rememberOpen(open: boolean): void {
  try {
    window.localStorage.setItem(OPEN_KEY, open ? '1' : '0');
  } catch {
    // no storage: the panel just does not reopen by itself
  }
}

/** Notebook 7's right sidebar has no tabs: an Agent button (with the panel's icon) in each
 * notebook's toolbar opens and closes it, and the panel reopens after a reload when it was open. */
function notebookSeven(app: JupyterFrontEnd, tracker: INotebookTracker, panel: AgentPanel, show: () => void): void {
  const toggle = () => {
    if (panel.isVisible) {
      const notebookShell = app.shell as unknown as { collapseRight?: () => void };
      if (typeof notebookShell.collapseRight === 'function') notebookShell.collapseRight();
      else panel.hide();
      rememberOpen(false);
    } else {
      show();
    }
  };
  const addButton = (notebook: { toolbar: { insertItem: (i: number, n: string, w: any) => boolean } }) => {
    const button = new ToolbarButton({
      icon: agentIcon,
      label: 'Agent',
      tooltip: 'Open or close the Agent panel',
      onClick: toggle
    });
    button.addClass('ja-toolbar-agent');
    button.node.dataset.testid = 'ja-toolbar-agent';
    notebook.toolbar.insertItem(10, 'jupyter-agent', button);
  };
  tracker.widgetAdded.connect((_, notebook) => addButton(notebook));
  tracker.forEach(notebook => addButton(notebook));
  // the sidebar's own close button (×) hides the panel: remember that too
  const observer = new MutationObserver(() => {
    if (!panel.isVisible && panel.isAttached) rememberOpen(false);
  });
  observer.observe(panel.node, { attributes: true, attributeFilter: ['class'] });
  let open = false;
  try {
    open = window.localStorage.getItem(OPEN_KEY) === '1';
  } catch {
    open = false;
  }
  if (open) void app.restored.then(() => show());
}

export default plugin;
