// The setup view: provider, model, key, Test connection and Save, for the first ten minutes
// (and any change of model later). The kernel does the work (jupyter_agent/agent/setup.py):
// the lists come from litellm, the test is a one-token request, Save writes the user's own
// config folder (never the project or the notebook) and the next prompt uses it.
import { el } from './dom';
import { PanelRequest, SetupMsg } from './protocol';

const COMPATIBLE = 'openai-compatible';
const NAMES: Record<string, string> = {
  [COMPATIBLE]: 'OpenAI-compatible server (vLLM, llama.cpp, LM Studio, a LiteLLM proxy)',
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  gemini: 'Google Gemini',
  ollama_chat: 'Ollama (local)',
  mistral: 'Mistral',
  groq: 'Groq',
  deepseek: 'DeepSeek',
  openrouter: 'OpenRouter',
  xai: 'xAI'
};

export class SetupView {
  readonly node = el('div', { class: 'ja-setup', 'data-testid': 'ja-setup', hidden: '' });
  private provider = el('select', { class: 'ja-setup-provider', 'data-testid': 'ja-setup-provider', 'aria-label': 'Provider' });
  private model = el('input', { class: 'ja-setup-model', 'data-testid': 'ja-setup-model', type: 'text', list: 'ja-setup-models', 'aria-label': 'Model', placeholder: 'a model from the list, or its name' });
  private models = el('datalist', { id: 'ja-setup-models' });
  private base = el('input', { class: 'ja-setup-base', 'data-testid': 'ja-setup-base', type: 'url', 'aria-label': 'Base URL', placeholder: 'http://localhost:8000/v1' });
  private baseRow = el('label', { class: 'ja-setup-row' });
  private key = el('input', { class: 'ja-setup-key', 'data-testid': 'ja-setup-key', type: 'password', autocomplete: 'off', 'aria-label': 'API key', placeholder: 'leave empty to keep the one set' });
  private keyHint = el('div', { class: 'ja-setup-hint' });
  private result = el('div', { class: 'ja-setup-result', 'data-testid': 'ja-setup-result', role: 'status' });
  private test = el('button', { class: 'ja-button', type: 'button', 'data-testid': 'ja-setup-test' }, 'Test connection');
  private save = el('button', { class: 'ja-button ja-primary', type: 'button', 'data-testid': 'ja-setup-save' }, 'Save');
  private close = el('button', { class: 'ja-button', type: 'button', 'data-testid': 'ja-setup-close' }, 'Close');
  private intro = el('p', { class: 'ja-setup-intro' });
  /** A save succeeded since the form opened (the kernel's next hello then closes it). */
  saved = false;

  constructor(private send: (request: PanelRequest) => void, onClose: () => void) {
    const row = (label: string, input: HTMLElement, holder = el('label', { class: 'ja-setup-row' })): HTMLElement => {
      holder.append(el('span', { class: 'ja-setup-label' }, label), input);
      return holder;
    };
    const buttons = el('div', { class: 'ja-setup-buttons' });
    buttons.append(this.test, this.save, this.close);
    this.node.append(
      el('h3', { class: 'ja-setup-title' }, 'Set up a model'), this.intro,
      row('Provider', this.provider), row('Base URL', this.base, this.baseRow),
      row('Model', this.model), this.models, row('API key', this.key), this.keyHint, buttons, this.result
    );
    this.provider.addEventListener('change', () => {
      this.showBase();
      this.model.value = '';
      this.send({ type: 'setup', action: 'models', provider: this.provider.value });
    });
    this.test.addEventListener('click', () => this.ask('test'));
    this.save.addEventListener('click', () => this.ask('save'));
    this.close.addEventListener('click', onClose);
  }

  /** Show the form: `why` says what is missing (no model, no key); the lists load. */
  open(why = ''): void {
    this.node.hidden = false;
    this.saved = false;
    // the kernel's guidance names variables and files; here the form is the way: its first line only
    const first = why.split('\n')[0].trim();
    this.intro.textContent = `${first ? first + ' ' : ''}Pick a provider and a model, give its key, test the connection, then save: the next prompt uses it, no restart.`;
    this.result.textContent = '';
    this.keyHint.textContent = 'Saved in your own config folder (readable by you only) or the system keyring: never in the project or the notebook.';
    if (!this.provider.options.length) this.send({ type: 'setup', action: 'providers' });
  }

  hide(): void {
    this.node.hidden = true;
  }

  get isOpen(): boolean {
    return !this.node.hidden;
  }

  /** The kernel's answer to a setup request. */
  receive(msg: SetupMsg): void {
    if (msg.action === 'providers' && msg.providers) {
      this.provider.replaceChildren(...msg.providers.map(p => el('option', { value: p }, NAMES[p] ?? p)));
      this.provider.value = msg.provider || msg.providers[0];
      this.model.value = msg.model ?? '';
      this.base.value = msg.api_base ?? '';
      this.showBase();
    }
    if (msg.models && (msg.action === 'providers' || msg.provider === this.provider.value)) {
      this.models.replaceChildren(...msg.models.map(m => el('option', { value: m })));
    }
    if (msg.action === 'test' || msg.action === 'save') {
      this.test.disabled = this.save.disabled = false;
      this.result.dataset.ok = msg.ok === false ? 'false' : 'true';
      this.result.textContent = msg.text ?? '';
      if (msg.ok !== false && msg.action === 'save') {
        this.key.value = '';
        this.saved = true;
      }
    }
  }

  private showBase(): void {
    this.baseRow.hidden = this.provider.value !== COMPATIBLE;
  }

  private ask(action: 'test' | 'save'): void {
    this.test.disabled = this.save.disabled = true;
    this.result.dataset.ok = '';
    this.result.textContent = action === 'test' ? 'Testing…' : 'Saving…';
    this.send({
      type: 'setup',
      action,
      provider: this.provider.value,
      model: this.model.value.trim(),
      api_base: this.provider.value === COMPATIBLE ? this.base.value.trim() : '',
      api_key: this.key.value.trim()
    });
  }
}
