// What an empty session shows: the model (with a picker over the configured ones),
// example prompts to start from, and what @, / and "+ Cell" do.
import { el } from './dom';

const EXAMPLES = [
  'What is in this folder? Load the most interesting data file and summarise it.',
  'Explain what the active cell does and suggest one improvement.',
  'Plot the distribution of each numeric column of df.'
];

export class EmptyState {
  readonly node = el('div', { class: 'ja-panel-empty', 'data-testid': 'ja-empty' });
  readonly modelSelect = el('select', { class: 'ja-model-select', 'data-testid': 'ja-model-select', 'aria-label': 'Model' });

  constructor(onExample: (text: string) => void, onModel: (model: string) => void) {
    const model = el('label', { class: 'ja-empty-model' }, 'Model ');
    model.append(this.modelSelect);
    this.modelSelect.addEventListener('change', () => onModel(this.modelSelect.value));
    const examples = el('div', { class: 'ja-empty-examples' });
    for (const text of EXAMPLES) {
      const button = el('button', { class: 'ja-button ja-example', type: 'button', 'data-testid': 'ja-example' }, text);
      button.addEventListener('click', () => onExample(text));
      examples.append(button);
    }
    const help = el('p', { class: 'ja-empty-help' });
    help.append(
      'Type ', el('kbd', {}, '@'), ' to mention a variable, a cell (@cell:3) or a file (@file:data.csv); ',
      el('kbd', {}, '/'), ' for commands (/new, /compact, /stop, /model, /fix, /help). ',
      '“+ Cell” attaches the active cell or the text selected in it.'
    );
    this.node.append(el('h3', { class: 'ja-empty-title' }, 'Ask the agent about this notebook'), model,
      el('div', { class: 'ja-empty-try' }, 'Try one of these:'), examples, help);
  }

  setModels(current: string, models: string[]): void {
    this.modelSelect.replaceChildren();
    for (const name of models.length ? models : [current]) {
      if (!name) continue;
      const option = el('option', { value: name }, name);
      option.selected = name === current;
      this.modelSelect.append(option);
    }
    this.modelSelect.disabled = this.modelSelect.options.length < 2;
  }

  choose(model: string): void {
    if (![...this.modelSelect.options].some(o => o.value === model)) {
      this.modelSelect.append(el('option', { value: model }, model));
    }
    this.modelSelect.value = model;
    this.modelSelect.disabled = this.modelSelect.options.length < 2;
  }
}
