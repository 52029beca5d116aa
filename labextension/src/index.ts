import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { AgentPanel } from './panel';

const COMMAND = 'jupyter-agent:open-panel';

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
  }
};

export default plugin;
