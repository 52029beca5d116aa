// What the panel's stream area says while there is no session to show: the kernel is
// restarting, jupyter-agent is not loaded in it, it died, … — never a blank panel. The
// action (Load jupyter-agent, …) is the banner's button above.
import { el } from './dom';

const KEPT: Record<string, string> = {
  restarting: 'Your sessions are kept: the panel shows them again once the kernel is back.',
  missing: 'Your sessions are kept in the notebook\'s folder. Load jupyter-agent (the button above) to continue.',
  dead: 'Your sessions are kept. Restart the kernel (Kernel ▸ Restart Kernel) to continue.',
  none: '',
  error: ''
};

export function stateCard(state: string, text: string): HTMLElement {
  const card = el('div', { class: 'ja-panel-state', 'data-testid': 'ja-panel-state', 'data-state': state });
  card.append(el('p', { class: 'ja-panel-state-text' }, text));
  if (KEPT[state]) card.append(el('p', { class: 'ja-panel-state-kept' }, KEPT[state]));
  return card;
}
