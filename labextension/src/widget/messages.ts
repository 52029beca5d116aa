// The stream's messages in id order (an earlier page slots in above), each summary folded
// into the compaction marker it belongs to.
import type { MessageView } from '../protocol';
import { h } from './dom';
import { errorBanner } from './parts';

export interface MessageEntry {
  node: HTMLElement;
  body: HTMLElement;
  role: MessageView['role'];
  summary?: boolean;
  /** Folded into its compaction marker. */
  summarised?: boolean;
}

export class MessageList {
  private entries = new Map<string, MessageEntry>();
  private newest: string | null = null;

  /** `undo`: the panel's "Undo from here" control for a prompt (none in a cell's widget). */
  constructor(private stream: HTMLElement, private undo?: (id: string) => HTMLElement) {}

  clear(): void {
    this.entries = new Map();
    this.newest = null;
  }

  get(id: string): MessageEntry | undefined {
    return this.entries.get(id);
  }

  remove(id: string): void {
    this.entries.get(id)?.node.remove();
    this.entries.delete(id);
  }

  /** The entry of message `id` (made and placed when new). */
  entry(id: string, role?: MessageView['role']): MessageEntry {
    let entry = this.entries.get(id);
    if (!entry) {
      const body = h('div', { class: 'ja-msg-body' });
      entry = { node: h('div', { class: 'ja-msg', 'data-message': id }, body), body, role: role || 'assistant' };
      this.entries.set(id, entry);
      this.place(id, entry.node);
    }
    if (role) {
      entry.role = role;
      entry.node.classList.toggle('ja-user', role === 'user');
      if (role === 'user' && this.undo && !entry.node.querySelector(':scope > .ja-undo')) entry.node.append(this.undo(id));
    }
    return entry;
  }

  /** Messages stand in id order (ids ascend with time): an earlier page slots in above. */
  private place(id: string, node: HTMLElement): void {
    if (this.newest === null || id > this.newest) { // live messages: the newest, appended
      this.newest = id;
      this.stream.append(node);
      return;
    }
    let next: { id: string; node: HTMLElement } | null = null;
    for (const [other, entry] of this.entries) {
      if (other > id && entry.node.isConnected && entry.node.parentNode === this.stream &&
          (next === null || other < next.id)) next = { id: other, node: entry.node };
    }
    if (next) this.stream.insertBefore(node, next.node);
    else this.stream.append(node);
  }

  /** The compaction marker a summary belongs to: the nearest one above its message. */
  private markerBefore(id: string): HTMLElement | null {
    let found: HTMLElement | null = null;
    for (const marker of this.stream.querySelectorAll<HTMLElement>('.ja-compaction')) {
      const owner = marker.closest<HTMLElement>('[data-message]')?.dataset.message;
      if (owner === undefined || owner < id) found = marker;
    }
    return found;
  }

  /** The summary sits collapsed inside its compaction marker. */
  private fold(entry: MessageEntry, marker: HTMLElement): void {
    entry.summarised = true;
    const holder = marker.querySelector<HTMLElement>('.ja-summary')!;
    holder.hidden = false;
    holder.querySelector('.ja-summary-body')!.append(entry.node);
  }

  /** A marker from an earlier page takes in the summary shown before it arrived. */
  adoptSummary(marker: HTMLElement, ownerId: string): void {
    let next: { id: string; entry: MessageEntry } | null = null;
    for (const [id, entry] of this.entries) if (id > ownerId && (next === null || id < next.id)) next = { id, entry };
    if (next && next.entry.summary && !next.entry.summarised) this.fold(next.entry, marker);
  }

  /** A message's header: role, agent, summary (folded into its marker), error banner. */
  update(m: MessageView): void {
    const entry = this.entry(m.id, m.role);
    entry.node.dataset.agent = m.agent;
    entry.summary = Boolean(m.summary);
    if (m.summary && !entry.summarised) {
      const marker = this.markerBefore(m.id); // none yet: its compaction is on an earlier page
      if (marker) this.fold(entry, marker);
    }
    entry.node.querySelector(':scope > .ja-error-banner')?.remove();
    if (m.error) entry.node.append(errorBanner(m.error));
  }
}
