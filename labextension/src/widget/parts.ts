// One renderer per shown part type other than text and reasoning (those stream into the
// view's Markdown): a tool card, a retry notice, the compaction marker, a file, a subtask;
// and the banner of a message that ended with an error.
import type {
  AttachmentView, CompactionView, ErrorView, FileView, ProgressView, RetryView, SubtaskView, ToolView
} from '../protocol';
import { h } from './dom';
import { addCodeActions, highlight } from './markdown';

const MARKER_TEXT = '— history summarised above this point —';
const ERROR_LABELS: Record<string, string> = {
  aborted: 'Stopped',
  auth: 'Authentication failed',
  api: 'Provider error',
  rate_limit: 'Rate limited',
  output_length: 'Output limit reached',
  context_overflow: 'Context window exceeded',
  unknown: 'Error'
};

/** What a tool's badge says: its status, "waiting for approval" while the user is asked,
 * "rejected" for a refusal (an answer, not a failure). */
function shownStatus(p: ToolView, waiting: boolean): string {
  if (waiting && (p.status === 'pending' || p.status === 'running')) return 'waiting';
  if (p.status === 'error' && p.rejected) return 'rejected';
  return p.status;
}
const BADGE_TEXT: Record<string, string> = { waiting: 'waiting for approval' };

/** A tool call: name, input (highlighted code, or its one-line summary), status, output.
 * `old` is the card it replaces: an output the user opened or closed stays so; `waiting`:
 * an approval for this call is open. */
export function toolCard(p: ToolView, old?: HTMLElement, waiting = false): HTMLElement {
  const wasOpen = old ? old.querySelector<HTMLDetailsElement>('details.ja-output')?.open : undefined;
  const status = shownStatus(p, waiting);
  const badge = h('span', { class: 'ja-badge', 'data-testid': 'ja-tool-status', 'data-status': status },
    status === 'running' ? h('span', { class: 'ja-spinner' }) : null, document.createTextNode(BADGE_TEXT[status] ?? status));
  // the input once: highlighted code (python, bash) or the one-line summary in the head
  const title = p.title && !(p.code || p.input || '').startsWith(p.title.replace(/…$/, '')) ? p.title : '';
  const head = h('div', { class: 'ja-tool-head' },
    h('span', { class: 'ja-tool-name', text: p.tool }),
    p.code ? h('span', { class: 'ja-tool-input ja-tool-desc', text: title }) :
      h('code', { class: 'ja-tool-input', text: p.input || '', title: p.input || '' }),
    badge);
  const card = h('div', { class: `ja-tool ja-status-${status}`, 'data-testid': 'ja-tool',
    'data-tool': p.tool, 'data-status': p.status, 'data-call': p.call_id }, head);
  if (title && !p.code) card.append(h('div', { class: 'ja-tool-title', text: title }));
  if (p.progress && p.status === 'running') card.append(progressLine(p.progress));
  if (p.code) {
    const code = h('code', { class: `hljs language-${p.lang || 'plaintext'}` });
    code.innerHTML = highlight(p.code, p.lang);
    card.append(h('pre', { class: 'ja-code ja-tool-code', 'data-testid': 'ja-tool-code' }, code));
    addCodeActions(card, p.lang === 'python'); // a shell command is no cell: Copy only
  }
  const body = p.error ?? p.output;
  if (body) {
    const label = p.error ? (p.rejected ? 'Why' : p.interrupted ? 'Interrupted' : 'Error') : p.pruned ? 'Output (cleared from context)' : 'Output';
    const failed = Boolean(p.error) && !p.rejected;
    const details = h('details', { class: failed ? 'ja-output ja-output-error' : 'ja-output' },
      h('summary', { text: label }), h('pre', { class: 'ja-tool-output', text: body }));
    details.open = wasOpen ?? failed;
    card.append(details);
  }
  for (const a of p.attachments || []) card.append(attachment(a));
  return card;
}

/** "Crunching 3 of 5 · 60 %" with a bar: a running tool's reported progress. */
function progressLine(progress: ProgressView): HTMLElement {
  const fraction = typeof progress.fraction === 'number' ? progress.fraction : null;
  const percent = fraction === null ? null : Math.round(fraction * 100);
  const text = [progress.message, percent === null ? null : `${percent} %`].filter(Boolean).join(' · ')
    || `${progress.progress}`;
  const line = h('div', { class: 'ja-progress', 'data-testid': 'ja-progress', role: 'progressbar',
    'aria-label': progress.message || 'Progress', 'aria-valuemin': 0, 'aria-valuemax': 100,
    'aria-valuenow': percent === null ? undefined : percent, 'aria-valuetext': text });
  const fill = h('span', { class: 'ja-progress-fill' });
  const bar = h('span', { class: 'ja-progress-bar' + (percent === null ? ' ja-indeterminate' : '') }, fill);
  if (percent !== null) fill.style.width = `${percent}%`;
  line.append(bar, h('span', { class: 'ja-progress-text', text }));
  return line;
}

/** An image shown inline, anything else a download link. */
export function attachment(a: AttachmentView | FileView): HTMLElement {
  if (a.mime.startsWith('image/')) return h('img', { class: 'ja-image', src: a.url, alt: a.filename || a.mime });
  return h('a', { class: 'ja-file', href: a.url, download: a.filename || 'attachment', text: a.filename || a.mime });
}

/** "Retrying in 5 s (attempt 2): 429"; the view counts the seconds down (`updateRetry`). */
export function retryNotice(p: RetryView): HTMLElement {
  const node = h('div', { class: 'ja-retry', 'data-testid': 'ja-retry', 'data-next': p.next });
  node.dataset.attempt = String(p.attempt);
  node.dataset.error = p.error || '';
  updateRetry(node);
  return node;
}

/** Counting down while the wait lasts; once it is over, a line of history ("Retried after
 * attempt 2: …"), as the finished transcript says it. */
export function updateRetry(node: HTMLElement): void {
  const secs = Math.ceil((Number(node.dataset.next) - Date.now()) / 1000);
  const when = secs > 0 ? `Retrying in ${secs} s (attempt ${node.dataset.attempt})` : `Retried after attempt ${node.dataset.attempt}`;
  node.textContent = `${when}: ${node.dataset.error}`;
}

/** The marker stands where the history was cut; the summary sits collapsed inside it. */
export function compactionMarker(p?: CompactionView): HTMLElement {
  const summary = h('details', { class: 'ja-summary', hidden: true },
    h('summary', { text: 'Summary' }), h('div', { class: 'ja-summary-body' }));
  const node = h('div', { class: 'ja-compaction', 'data-testid': 'ja-compaction' },
    h('div', { class: 'ja-compaction-line', text: MARKER_TEXT }), summary);
  if (p && p.auto === false) node.dataset.manual = '';
  return node;
}

export function subtaskNode(p: SubtaskView): HTMLElement {
  return h('div', { class: 'ja-subtask' }, h('strong', { text: `Subtask (${p.agent}): ` }),
    document.createTextNode(p.title || ''));
}

/** "Rate limited: slow down" under the message that ended so. */
export function errorBanner(error: ErrorView): HTMLElement {
  const label = ERROR_LABELS[error.name] || 'Error';
  const text = error.message || `${label}.`;
  // "Stopped by the user." needs no "Stopped:" in front of it
  const head = text.toLowerCase().startsWith(label.toLowerCase()) ? null : h('strong', { text: `${label}: ` });
  return h('div', { class: `ja-error-banner ja-error-${error.name}`, 'data-testid': 'ja-error' },
    head, document.createTextNode(text));
}
