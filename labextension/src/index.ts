import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { cellSession, tagCellSessions } from './cellSessions';
import { AgentPanel } from './panel';

const COMMAND = 'jupyter-agent:open-panel';
const CELL_SESSION = 'jupyter-agent:show-cell-session';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agent:panel',
  description: 'A side panel to chat with the jupyter-agent running in the notebook kernel.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette],
  // app.shell, not ILabShell: Notebook 7 has no ILabShell, and its shell has a right area too
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker, palette: ICommandPalette | null) => {
    const shell = app.shell;
    const panel = new AgentPanel();
    shell.add(panel, 'right', { rank: 200 });
    tracker.currentChanged.connect((_, notebook) => panel.setNotebook(notebook));
    panel.setNotebook(tracker.currentWidget);
    app.commands.addCommand(COMMAND, {
      label: 'Open the Agent panel',
      execute: () => shell.activateById(panel.id)
    });
    palette?.addItem({ command: COMMAND, category: 'Agent' });
    tracker.widgetAdded.connect((_, notebook) => tagCellSessions(notebook));
    tracker.forEach(notebook => tagCellSessions(notebook));
    // a saved cell remembers its session: open that session in the panel
    app.commands.addCommand(CELL_SESSION, {
      label: "Show This Cell's Agent Session",
      isVisible: () => cellSession(tracker.activeCell?.model) !== '',
      execute: () => {
        const sessionId = cellSession(tracker.activeCell?.model);
        if (!sessionId) return;
        panel.showSession(sessionId);
        shell.activateById(panel.id);
      }
    });
    app.contextMenu.addItem({ command: CELL_SESSION, selector: '.jp-Notebook .jp-CodeCell', rank: 20 });
  }
};

export default plugin;
