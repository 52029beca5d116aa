// The settings view (the gear in the panel's top bar): each effective setting with where it
// came from, as `%agent config` prints it, the key's state, and the way to the setup view.
// Other settings (a toggle of the panel's own) go in as sections: `addSection`.
import { el } from './dom';
import { SettingsMsg } from './protocol';

export class SettingsView {
  readonly node = el('div', { class: 'ja-settings', 'data-testid': 'ja-settings', hidden: '' });
  private sections = el('div', { class: 'ja-settings-sections' });
  private summary = el('div', { class: 'ja-settings-summary' });
  private table = el('table', { class: 'ja-settings-table', 'data-testid': 'ja-settings-table' });
  private sources = el('div', { class: 'ja-settings-sources' });

  constructor(onSetup: () => void, onClose: () => void) {
    const head = el('div', { class: 'ja-settings-head' });
    const change = el('button', { class: 'ja-button', type: 'button', 'data-testid': 'ja-settings-setup' }, 'Change model or key…');
    const close = el('button', { class: 'ja-button', type: 'button', 'data-testid': 'ja-settings-close' }, 'Close');
    change.addEventListener('click', onSetup);
    close.addEventListener('click', onClose);
    head.append(el('h3', { class: 'ja-settings-title' }, 'Settings'), change, close);
    const all = el('details', { class: 'ja-settings-all' });
    all.append(el('summary', {}, 'Every setting and where it comes from'), this.table, this.sources);
    this.node.append(head, this.summary, this.sections, all);
  }

  /** A section of the panel's own settings (a toggle, …), shown above the list. */
  addSection(title: string, body: HTMLElement): void {
    const section = el('section', { class: 'ja-settings-section' });
    section.append(el('h4', {}, title), body);
    this.sections.append(section);
  }

  get isOpen(): boolean {
    return !this.node.hidden;
  }

  show(msg: SettingsMsg): void {
    this.node.hidden = false;
    const model = msg.settings.find(s => s.key === 'model');
    this.summary.replaceChildren(
      line('Model', msg.model || 'not set', model ? model.origin : ''),
      line('API key', msg.key, '')
    );
    this.table.replaceChildren(el('tr', {}, ''));
    const header = this.table.firstElementChild as HTMLElement;
    header.append(el('th', {}, 'setting'), el('th', {}, 'value'), el('th', {}, 'from'));
    for (const s of msg.settings) {
      const row = el('tr', { 'data-key': s.key, 'data-origin': s.origin });
      const value = el('td', {});
      value.append(el('code', {}, s.value));
      row.append(el('td', {}, s.key), value, el('td', {}, s.origin + (s.locked ? ' (locked)' : '')));
      this.table.append(row);
    }
    this.sources.textContent = `Read from: ${msg.sources.join(', ')}`;
  }

  hide(): void {
    this.node.hidden = true;
  }
}

function line(label: string, value: string, origin: string): HTMLElement {
  const node = el('div', { class: 'ja-settings-line', 'data-testid': `ja-settings-${label.toLowerCase().replace(/\W+/g, '-')}` });
  node.append(el('strong', {}, `${label}: `), document.createTextNode(value));
  if (origin) node.append(el('span', { class: 'ja-settings-origin' }, ` (from ${origin})`));
  return node;
}
