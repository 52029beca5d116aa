// The view's header: what the agent is doing, the context gauge, Compact and Stop.
import type { GaugeMsg, StatusMsg } from '../protocol';
import { h } from './dom';
import { iconLabel, setLabel } from './markdown';
import type { WidgetModel } from './model';

export class Header {
  readonly node: HTMLElement;
  private stopping = false;
  private statusText = h('span', { class: 'ja-status-text' });
  /** The model of the running run (from its RunStarted): "Working… · openai/gpt-5". */
  private statusModel = h('span', { class: 'ja-status-model', 'data-testid': 'ja-status-model' });
  private status = h('span', { class: 'ja-status', role: 'status' }, h('span', { class: 'ja-spinner' }),
    this.statusText, this.statusModel);
  private contained = h('span', { class: 'ja-contained', 'data-testid': 'ja-contained', text: 'contained',
    title: 'This kernel runs inside the sandbox: the agent\'s code and your cells cannot write outside the project or read hidden credentials' });
  private gaugeText = h('span', { class: 'ja-gauge-text' });
  /** The cost, apart: a narrow view drops it whole (it stays in the tooltip), never cut. */
  private gaugeCost = h('span', { class: 'ja-gauge-cost', 'data-testid': 'ja-gauge-cost', hidden: true });
  private gaugeFill = h('span', { class: 'ja-gauge-fill' });
  private gauge = h('span', { class: 'ja-gauge', 'data-testid': 'ja-gauge', hidden: true },
    this.gaugeText, this.gaugeCost, h('span', { class: 'ja-gauge-bar' }, this.gaugeFill));
  private compactButton: HTMLButtonElement;
  private stopButton: HTMLButtonElement;

  /** `root` is the view's element: Escape in it stops the run, focus returns to it after. */
  constructor(private model: WidgetModel, private root: HTMLElement) {
    this.compactButton = iconLabel(h('button', { class: 'ja-button ja-compact', type: 'button',
      title: 'Summarise the history now', 'aria-label': 'Compact: summarise the history now',
      hidden: !this.model.get('can_compact') }), 'compact', 'Compact');
    this.compactButton.addEventListener('click', () => {
      this.compactButton.disabled = true;
      this.model.send({ type: 'compact' });
    });
    this.stopButton = iconLabel(h('button', { class: 'ja-button ja-stop', type: 'button', 'data-testid': 'ja-stop',
      title: 'Stop the agent (Escape)', 'aria-label': 'Stop the agent', 'aria-keyshortcuts': 'Escape' }), 'stop', 'Stop');
    this.stopButton.addEventListener('click', () => this.requestStop());
    root.addEventListener('keydown', event => {
      if (event.key === 'Escape' && this.requestStop()) event.preventDefault();
    });
    this.contained.hidden = !this.model.get('contained');
    this.node = h('div', { class: 'ja-header' }, this.status, this.contained, h('span', { class: 'ja-spacer' }), this.gauge,
      this.compactButton, this.stopButton);
  }

  /** Stop the run (the button or Escape); false when nothing runs. */
  private requestStop(): boolean {
    if (this.stopButton.hidden || this.stopButton.disabled) return false;
    this.stopping = true;
    this.stopButton.disabled = true;
    setLabel(this.stopButton, 'Stopping…');
    this.model.send({ type: 'stop' });
    return true;
  }

  setGauge(g: GaugeMsg): void {
    this.gauge.hidden = false;
    this.gauge.dataset.level = g.level;
    this.gaugeText.textContent = g.usage || g.text;
    this.gaugeCost.textContent = g.usage && g.cost ? g.cost : '';
    this.gaugeCost.hidden = !(g.usage && g.cost);
    this.gaugeFill.style.width = `${Math.min(100, Math.max(0, g.percent ?? 0))}%`;
    // the whole line in the tooltip: a narrow panel cuts the text with an ellipsis
    this.gauge.title = `${g.text} — ${g.percent == null ? "context used (the model's limit is unknown)" : 'context window used'}`;
  }

  setStatus(s: Pick<StatusMsg, 'state' | 'text' | 'model'>): void {
    const busy = s.state === 'busy';
    if (!busy && this.stopping) {
      // the Stop button hides: keep the keyboard user in the panel's prompt (or this view)
      this.stopping = false;
      const prompt = this.root.closest('.ja-panel')?.querySelector<HTMLTextAreaElement>('[data-testid=ja-prompt]');
      (prompt && !prompt.disabled ? prompt : this.root).focus();
    }
    this.root.dataset.state = s.state;
    this.status.dataset.state = s.state;
    this.statusText.textContent = s.text || (busy ? 'Working…' : '');
    this.statusModel.textContent = busy && s.model ? s.model : '';
    this.statusModel.hidden = !(busy && s.model);
    this.stopButton.hidden = !busy;
    this.stopButton.disabled = false;
    setLabel(this.stopButton, 'Stop');
    this.compactButton.hidden = busy || !this.model.get('can_compact');
    this.compactButton.disabled = false;
  }
}
