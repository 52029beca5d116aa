// A prompt is the user's words, then one fenced block per mention / cell / traceback
// (`<mention_1a2b3c4d ref="@df">…</mention_1a2b3c4d>`, see core/fence.py): shown as chips.
import { h } from './dom';

export interface FencedBlock {
  /** The tag's name before the nonce: `mention`, `cell`, `traceback`. */
  kind: string;
  /** What the user wrote (`@df`), else the kind. */
  ref: string;
  body: string;
}

const OPEN_TAG = /<([a-z]+_[0-9a-f]{8})((?:\s+[\w-]+="[^"]*")*)>\n/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'" };

function unescapeAttr(value: string): string {
  return value.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, e => ENTITIES[e]);
}

/** Fenced blocks from `at` to the end of `text` (each after whitespace), or null. */
function blocksFrom(text: string, at: number): FencedBlock[] | null {
  const blocks: FencedBlock[] = [];
  let pos = at;
  while (pos < text.length) {
    const rest = text.slice(pos);
    const open = rest.match(/^\s*<([a-z]+_[0-9a-f]{8})((?:\s+[\w-]+="[^"]*")*)>\n/);
    if (!open) return /^\s*$/.test(rest) ? blocks : null;
    const tag = open[1];
    const close = rest.indexOf(`\n</${tag}>`, open[0].length - 1);
    if (close < 0) return null;
    const ref = (open[2].match(/\sref="([^"]*)"/) || [])[1];
    const kind = tag.split('_')[0];
    blocks.push({ kind, ref: ref === undefined ? kind : unescapeAttr(ref), body: rest.slice(open[0].length, close) });
    pos += close + tag.length + 4;
  }
  return blocks;
}

/** What the user typed and the context blocks appended to it. */
export function splitFenced(text: string): { words: string; blocks: FencedBlock[] } {
  for (const match of text.matchAll(OPEN_TAG)) {
    const blocks = blocksFrom(text, match.index ?? 0);
    if (blocks && blocks.length) return { words: text.slice(0, match.index).trimEnd(), blocks };
  }
  return { words: text, blocks: [] };
}

/** One collapsed chip per block: its ref, opening to what the agent got. */
export function mentionChips(blocks: FencedBlock[]): HTMLElement {
  const row = h('div', { class: 'ja-mentions' });
  for (const block of blocks) {
    const chip = h('details', { class: `ja-mention ja-mention-${block.kind}`, 'data-testid': 'ja-mention',
      'data-kind': block.kind },
    h('summary', { text: block.ref, title: `What the agent got for ${block.ref}` }),
    h('pre', { class: 'ja-mention-body', text: block.body }));
    row.append(chip);
  }
  return row;
}
