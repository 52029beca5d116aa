import { LabIcon } from '@jupyterlab/ui-components';

// A speech bubble with a spark: the panel's tab in the right sidebar.
const svgstr = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <path class="jp-icon3" fill="#616161" d="M4 3h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm8 3-1.2 3.3L7.5 10.5l3.3 1.2L12 15l1.2-3.3 3.3-1.2-3.3-1.2z"/>
</svg>`;

export const agentIcon = new LabIcon({ name: 'jupyter-agent:icon', svgstr });
