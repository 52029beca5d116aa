// The view: one session's stream (messages, their parts, approvals, notices) under a header
// (status, gauge, Compact, Stop), built from the kernel's UI messages (protocol.ts).
import type {
  HiddenStateMsg, LiveMessage, NoticeMsg, OlderMsg, PartView, PermissionView, ReasoningView, RemovedMsg,
  StatusMsg, TextView, UIMessage, VerifyMsg
} from '../protocol';
import { h } from './dom';
import { mentionChips, splitFenced } from './fenced';
import { Header } from './header';
import { type MessageEntry, MessageList } from './messages';
import { addCodeActions, markdown } from './markdown';
import type { WidgetModel } from './model';
import { attachment, compactionMarker, retryNotice, subtaskNode, toolCard, updateRetry } from './parts';
import { permissionBox, permissionDone } from './permission';
import { ScrollPin } from './pin';
import { hiddenMarker, verifyBox } from './repro';
import { ReviewBar, revertedBox, undoButton } from './undo';

interface PartEntry {
  node: HTMLElement;
  type: PartView['type'];
  messageId: string;
  /** Text and reasoning: where the Markdown goes, and the text so far. */
  body?: HTMLElement;
  text?: string;
}

const READY_TIMEOUT_MS = 3000;
const BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, td, th, dt, dd';

const nextFrame = (run: () => void): number =>
  typeof requestAnimationFrame === 'function' ? requestAnimationFrame(run) : window.setTimeout(run, 16);
const cancelFrame = (id: number): void =>
  typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : window.clearTimeout(id);

export class AgentView {
  private viewId = Math.random().toString(36).slice(2) + Date.now().toString(36);
  private synced = false; // live messages wait for our replay, which already contains them
  private early: LiveMessage[] = [];
  private dirty = new Set<string>();
  private frame: number | null = null;
  private ticker: number | null = null;
  private readyTimer: number | undefined;
  private listener: ((msg: unknown) => void) | null = null;
  private thinking: HTMLDetailsElement | null = null;
  private anchor: { node: Element; top: number } | null = null;
  /** What the user was reading when an earlier page came in, kept in place (`pin.ts`). */
  private pin: ScrollPin;
  private parts = new Map<string, PartEntry>();
  private permissions = new Map<string, HTMLElement>();
  /** Tool calls an open approval waits for (their cards say "waiting for approval"). */
  private waiting = new Map<string, string>();
  private markers = new Map<string, HTMLElement>();
  private verifyNode: HTMLElement | null = null;
  private olderControl: HTMLElement | null = null;
  private header: Header;
  private stream = h('div', { class: 'ja-stream', role: 'log', 'aria-live': 'polite', 'aria-label': 'Agent messages' });
  private messages: MessageList;
  private reviewBar = new ReviewBar();

  constructor(private model: WidgetModel, root: HTMLElement) {
    this.header = new Header(model, root);
    // the panel offers Undo from here on each prompt (a cell's widget does not)
    const undo = model.get('can_revert') ? (id: string) => undoButton(model, id) : undefined;
    this.messages = new MessageList(this.stream, undo);
    root.classList.add('ja-root');
    root.replaceChildren(this.header.node, this.reviewBar.node, this.stream);
    root.setAttribute('tabindex', '-1'); // focus lands here after Stop (the button hides)
    this.pin = new ScrollPin(this.stream, root);
    this.reset();
  }

  private reset(): void {
    this.stream.replaceChildren();
    this.parts = new Map();
    this.messages.clear();
    this.permissions = new Map();
    this.waiting = new Map();
    this.markers = new Map();
    this.verifyNode = null;
    this.olderControl = null;
    this.setStatus({ state: 'idle', text: '' });
  }

  start(): void {
    const listener = (msg: unknown): void => this.receive(msg);
    this.listener = listener;
    this.model.on('msg:custom', listener);
    this.model.send({ type: 'ready', view: this.viewId });
    // A kernel that never answers (gone, or an old version): show what arrives anyway.
    this.readyTimer = window.setTimeout(() => this.goLive(), READY_TIMEOUT_MS);
  }

  stop(): void {
    if (this.listener) this.model.off('msg:custom', this.listener);
    window.clearTimeout(this.readyTimer);
    if (this.ticker !== null) window.clearInterval(this.ticker);
    if (this.frame !== null) cancelFrame(this.frame);
    this.pin.release();
  }

  private goLive(): void {
    if (this.synced) return;
    this.synced = true;
    const early = this.early;
    this.early = [];
    early.forEach(msg => this.handle(msg));
  }

  /** A custom message from the kernel: its UI stream (unknown kinds are ignored). */
  private receive(raw: unknown): void {
    if (!raw || typeof raw !== 'object') return;
    const msg = raw as UIMessage;
    if (msg.kind === 'replay') {
      if (msg.view !== this.viewId) return; // another view's catch-up
      window.clearTimeout(this.readyTimer);
      this.reset();
      this.early = [];
      this.synced = true;
      msg.messages.forEach(m => this.handle(m));
      return;
    }
    if (!this.synced) this.early.push(msg);
    else this.handle(msg);
  }

  private handle(msg: LiveMessage): void {
    switch (msg.kind) {
      case 'part': this.onPart(msg.part); break;
      case 'delta': this.onDelta(msg.part_id, msg.text); break;
      case 'message': this.messages.update(msg.message); break;
      case 'removed': this.onRemoved(msg); break;
      case 'gauge': this.header.setGauge(msg); break;
      case 'permission': this.onPermission(msg.request); break;
      case 'permission_done': {
        const box = this.permissions.get(msg.request_id);
        if (box) permissionDone(box, msg.reply);
        this.setWaiting(msg.request_id, null);
        break;
      }
      case 'compacted': this.onCompacted(); break;
      case 'status': this.setStatus(msg); break;
      case 'notice': this.onNotice(msg); break;
      case 'older': this.onOlder(msg); break;
      case 'hidden_state': this.onHidden(msg); break;
      case 'verify': this.onVerify(msg); break;
      case 'review': this.reviewBar.update(msg); break;
      case 'reverted': this.stream.append(revertedBox(this.model, msg)); break;
      default: break;
    }
  }

  // ---------------------------------------------------------------- parts

  private onPart(p: PartView): void {
    const entry = this.messages.entry(p.message_id);
    const old = this.parts.get(p.id);
    if (!old && p.type !== 'reasoning') this.thoughtsDone();
    if (p.type === 'text' || p.type === 'reasoning') {
      const part = old || this.textPart(p, entry);
      part.text = p.text || '';
      this.renderSoon(p.id);
      return;
    }
    const node = this.partNode(p, old);
    if (!node) return;
    if (old) old.node.replaceWith(node);
    else entry.body.append(node);
    this.parts.set(p.id, { node, type: p.type, messageId: p.message_id });
    if (p.type === 'compaction' && !old) this.messages.adoptSummary(node, p.message_id);
  }

  /** The renderer of each part type that is not streamed text. */
  private partNode(p: Exclude<PartView, TextView | ReasoningView>, old?: PartEntry): HTMLElement | null {
    switch (p.type) {
      case 'tool': return toolCard(p, old?.node, [...this.waiting.values()].includes(p.call_id ?? '\0'));
      case 'retry':
        if (this.ticker === null) this.ticker = window.setInterval(() => this.tick(), 1000);
        return retryNotice(p);
      case 'compaction': return compactionMarker(p);
      case 'file': return attachment(p);
      case 'subtask': return subtaskNode(p);
      default: return null; // a newer kernel's part type
    }
  }

  private textPart(p: TextView | ReasoningView, entry: MessageEntry): PartEntry {
    let node: HTMLElement;
    let body: HTMLElement;
    if (p.type === 'reasoning') {
      body = h('div', { class: 'ja-md' });
      const details = h('details', { class: 'ja-reasoning', 'data-testid': 'ja-reasoning' },
        h('summary', { text: 'Thinking…' }), body);
      this.thinking = details;
      node = details;
    } else {
      const cls = entry.role === 'user' ? 'ja-text ja-md ja-prompt' : 'ja-text ja-md';
      node = body = h('div', { class: cls, 'data-testid': 'ja-text' });
    }
    entry.body.append(node);
    const part: PartEntry = { node, body, text: '', type: p.type, messageId: p.message_id };
    this.parts.set(p.id, part);
    return part;
  }

  /** "Thinking…" only while the reasoning is the newest thing shown. */
  private thoughtsDone(): void {
    if (!this.thinking) return;
    const summary = this.thinking.querySelector('summary');
    if (summary) summary.textContent = 'Thoughts';
    this.thinking.classList.add('ja-done');
    this.thinking = null;
  }

  private onDelta(partId: string, text: string): void {
    const part = this.parts.get(partId);
    if (!part || part.text === undefined) return;
    part.text += text;
    this.renderSoon(partId);
  }

  // Markdown is re-rendered at most once per frame, however many deltas arrived.
  private renderSoon(id: string): void {
    this.dirty.add(id);
    if (this.frame !== null) return;
    this.frame = nextFrame(() => {
      this.frame = null;
      for (const pid of this.dirty) {
        const part = this.parts.get(pid);
        if (part && part.body) {
          const text = part.text ?? '';
          const user = part.type === 'text' && this.messages.get(part.messageId)?.role === 'user';
          const { words, blocks } = user ? splitFenced(text) : { words: text, blocks: [] };
          part.body.innerHTML = markdown(words);
          if (blocks.length) part.body.append(mentionChips(blocks));
          // each paragraph takes its own direction (Hebrew, Arabic next to English)
          part.body.querySelectorAll(BLOCKS).forEach(b => b.setAttribute('dir', 'auto'));
          addCodeActions(part.body);
        }
      }
      this.dirty.clear();
      this.pin.keep();
    });
  }


  private tick(): void {
    const live = [...this.stream.querySelectorAll<HTMLElement>('.ja-retry')];
    live.forEach(node => updateRetry(node));
    const waiting = live.some(node => Number(node.dataset.next) > Date.now());
    if (!waiting && this.ticker !== null) {
      window.clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private onCompacted(): void {
    const markers = this.stream.querySelectorAll('.ja-compaction');
    let marker = markers[markers.length - 1];
    if (!marker) {
      marker = compactionMarker();
      this.stream.append(marker);
    }
    marker.classList.add('ja-done');
  }

  /** "Show earlier messages" above the oldest one shown, while the session has earlier ones. */
  private onOlder(msg: OlderMsg): void {
    this.olderControl?.remove();
    this.olderControl = null;
    const anchor = this.anchor;
    this.anchor = null;
    if (anchor) { // after this frame's Markdown: put what the user was reading back in place
      this.pin.hold(anchor.node, anchor.top);
      const settle = (): void => {
        this.pin.keep();
        delete this.stream.dataset.paging;
      };
      if (typeof requestAnimationFrame === 'function') requestAnimationFrame(settle);
      else settle();
    }
    const { session_id, before } = msg;
    if (!before) return;
    const button = h('button', { class: 'ja-button ja-older', type: 'button', 'data-testid': 'ja-older',
      text: 'Show earlier messages' });
    button.addEventListener('click', () => {
      const first = this.olderControl?.nextElementSibling;
      this.anchor = first ? { node: first, top: first.getBoundingClientRect().top } : null;
      this.stream.dataset.paging = ''; // until the page is in and the view settled
      button.disabled = true;
      button.textContent = 'Loading…';
      this.model.send({ type: 'older', session_id, before });
    });
    this.olderControl = h('div', { class: 'ja-older-row' }, button);
    this.stream.prepend(this.olderControl);
  }

  private onRemoved(msg: RemovedMsg): void {
    if (msg.part_id) {
      this.parts.get(msg.part_id)?.node.remove();
      this.parts.delete(msg.part_id);
      return;
    }
    for (const [id, part] of this.parts) {
      if (part.messageId === msg.message_id) { part.node.remove(); this.parts.delete(id); }
    }
    this.messages.remove(msg.message_id);
  }

  // ---------------------------------------------------------------- status, notices, approvals

  private setStatus(s: Pick<StatusMsg, 'state' | 'text' | 'model'>): void {
    if (s.state !== 'busy') this.thoughtsDone();
    this.header.setStatus(s);
  }

  private onNotice(n: NoticeMsg): void {
    const level = n.level || 'info';
    // several lines (the panel's /help): a block that keeps its lines, in the text's colour
    const block = n.text.includes('\n') ? ' ja-notice-block' : '';
    this.stream.append(h('div', { class: `ja-notice ja-level-${level}${block}`, 'data-testid': level === 'error' ? 'ja-error' : 'ja-notice', text: n.text }));
  }

  /** A run left hidden state (or its code was added): one marker per run, updated in place. */
  private onHidden(msg: HiddenStateMsg): void {
    const node = hiddenMarker(msg, request => this.model.send(request));
    const old = this.markers.get(msg.run);
    if (old) old.replaceWith(node);
    else this.stream.append(node);
    this.markers.set(msg.run, node);
  }

  /** A verification: progress replaced by its table, in one place. */
  private onVerify(msg: VerifyMsg): void {
    const node = verifyBox(msg, request => this.model.send(request));
    if (this.verifyNode?.isConnected && this.verifyNode.dataset.state === 'running') this.verifyNode.replaceWith(node);
    else this.stream.append(node);
    this.verifyNode = node;
  }

  private onPermission(r: PermissionView): void {
    const box = permissionBox(r, answer => this.model.send(answer));
    this.permissions.get(r.id)?.remove();
    this.permissions.set(r.id, box);
    this.stream.append(box);
    this.setWaiting(r.id, r.call_id ?? null);
  }

  /** An approval opened for tool call `callId` (null: answered): its card's badge follows. */
  private setWaiting(requestId: string, callId: string | null): void {
    const before = this.waiting.get(requestId);
    if (callId) this.waiting.set(requestId, callId);
    else this.waiting.delete(requestId);
    const changed = callId ?? before;
    if (!changed) return;
    const card = this.stream.querySelector<HTMLElement>(`.ja-tool[data-call="${CSS.escape(changed)}"]`);
    const badge = card?.querySelector<HTMLElement>('[data-testid=ja-tool-status]');
    if (!card || !badge || !['pending', 'running'].includes(card.dataset.status ?? '')) return;
    const asking = callId !== null;
    badge.dataset.status = asking ? 'waiting' : (card.dataset.status ?? '');
    badge.replaceChildren(...(asking ? [] : [h('span', { class: 'ja-spinner' })]),
      document.createTextNode(asking ? 'waiting for approval' : (card.dataset.status ?? '')));
  }
}

