// Markdown for the agent's answers, shared by the cell widget and the side panel:
// marked (GFM) + KaTeX (as MathML: no fonts or stylesheet to ship) + highlight.js,
// sanitised with DOMPurify. Code blocks get actions (copy; insert/replace a cell when
// JupyterLab's side panel extension is loaded and answers the `jupyter-agent:code` event).
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdownLang from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import r from 'highlight.js/lib/languages/r';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, Tokens } from 'marked';
import markedKatex from 'marked-katex-extension';

const LANGUAGES = { bash, css, diff, javascript, json, markdown: markdownLang, plaintext, python, r, sql,
  typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'console', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['py', 'ipython', 'python3'], { languageName: 'python' });
hljs.registerAliases(['js'], { languageName: 'javascript' });
hljs.registerAliases(['ts'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['text', 'txt', 'output'], { languageName: 'plaintext' });

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, c => ESCAPES[c]);
}

/** Highlighted HTML for `code` (escaped); unknown languages stay plain. */
export function highlight(code: string, lang?: string | null): string {
  const name = (lang || '').toLowerCase();
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

const marked = new Marked({ gfm: true, breaks: false });
marked.use(markedKatex({ throwOnError: false, output: 'mathml', nonStandard: true }));
marked.use({
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const name = (lang || '').trim().split(/\s+/)[0].toLowerCase();
      const cls = name ? ` class="language-${escapeHtml(name)} hljs"` : ' class="hljs"';
      return `<pre class="ja-code"${name ? ` data-lang="${escapeHtml(name)}"` : ''}><code${cls}>${highlight(text, name)}</code></pre>`;
    }
  }
});

const PURIFY = { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form', 'input', 'button'] };
let hooked = false;

/** Sanitised HTML for a Markdown source (may be incomplete: it is still streaming). */
export function markdown(src: string | null | undefined): string {
  if (!hooked && DOMPurify.isSupported) {
    hooked = true;
    DOMPurify.addHook('afterSanitizeAttributes', node => {
      if (node.tagName === 'A' && node.getAttribute('href')) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
  }
  const html = marked.parse(String(src ?? ''), { async: false });
  return DOMPurify.isSupported ? DOMPurify.sanitize(html, PURIFY) : escapeHtml(src);
}

// ------------------------------------------------------------------ icons

// 16 px line icons in the text colour: a narrow side panel shows buttons as icons alone
// (their names stay in aria-label and title), a wide one as icon and name.
const PATHS = {
  copy: '<rect x="5.5" y="5.5" width="8" height="8" rx="1.5"/><path d="M10.5 5.5v-2a1.5 1.5 0 0 0-1.5-1.5H4A1.5 1.5 0 0 0 2.5 3.5V9A1.5 1.5 0 0 0 4 10.5h1.5"/>',
  insert: '<path d="M2.5 3h11M8 6v7M4.5 9.5 8 13l3.5-3.5"/>',
  replace: '<path d="M2.5 6h9l-2.5-2.5M13.5 10h-9l2.5 2.5"/>',
  stop: '<rect x="3.5" y="3.5" width="9" height="9" rx="1" fill="currentColor"/>',
  compact: '<path d="M3 2.5 8 6.5l5-4M3 13.5l5-4 5 4"/>',
  new: '<path d="M8 3v10M3 8h10"/>',
  rename: '<path d="M10.5 2.5l3 3-8 8H2.5v-3z"/>',
  delete: '<path d="M2.5 4.5h11M6 4.5V3h4v1.5M4 4.5l.8 9h6.4l.8-9"/>',
  settings: '<circle cx="8" cy="8" r="2.2"/><path d="M8 1.8v2M8 12.2v2M1.8 8h2M12.2 8h2M3.6 3.6l1.4 1.4M11 11l1.4 1.4M3.6 12.4 5 11M11 5l1.4-1.4"/>'
};
export type Icon = keyof typeof PATHS;

/** An icon (aria-hidden) and the button's name as a label that hides in a narrow panel. */
export function iconLabel<T extends HTMLElement>(button: T, icon: Icon, label: string): T {
  const svg = `<svg class="ja-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round">${PATHS[icon] || ''}</svg>`;
  button.innerHTML = `${svg}<span class="ja-label"></span>`;
  setLabel(button, label);
  return button;
}

/** Change what an icon button says ("Copied", "Stopping…"): the label, the icon stays. */
export function setLabel(button: HTMLElement, label: string): void {
  const span = button.querySelector('.ja-label');
  if (span) span.textContent = label;
  else button.textContent = label;
}

// ------------------------------------------------------------------ code actions

type Action = 'copy' | 'insert' | 'replace';
const ACTIONS: [Action, string, string][] = [
  ['copy', 'Copy', 'Copy the code'],
  ['insert', 'Insert below', 'Insert the code in a new cell below the active cell'],
  ['replace', 'Replace cell', "Replace the active cell's source with the code"]
];

/** Is the JupyterLab extension there to insert/replace cells (the `jupyter-agent:code` event)? */
function notebookActions(): boolean {
  return typeof document !== 'undefined' && document.body?.dataset.jupyterAgentActions === '1';
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // no clipboard permission (an insecure origin): a hidden textarea and execCommand
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** Give every `pre > code` under `root` a bar above it (the language, then Copy and, when
 * `cellActions`, Insert below / Replace cell): a bar of its own, so it never covers code. */
export function addCodeActions(root: ParentNode, cellActions = true): void {
  for (const pre of root.querySelectorAll('pre')) wrapCode(pre, cellActions);
}

/** A saved run's static transcript (`.jp-agent-transcript`, HTML written by the kernel): its
 * code is highlighted and gets the same bar (Python and answers' code may go into cells, a
 * shell command is Copy only); tool outputs stay as they are. */
export function addTranscriptActions(root: ParentNode): void {
  for (const code of root.querySelectorAll<HTMLElement>('pre > code[class*="language-"]')) {
    const lang = (code.className.match(/language-(\S+)/) || [])[1] || '';
    if (!code.classList.contains('hljs')) {
      code.innerHTML = highlight(code.textContent ?? '', lang);
      code.classList.add('hljs');
    }
    // the selector guarantees a parent <pre>
    wrapCode(code.parentElement as HTMLElement, !code.closest('.jp-agent-transcript-tool') || lang === 'python');
  }
  for (const pre of root.querySelectorAll<HTMLElement>('.jp-agent-transcript-text pre')) wrapCode(pre, true);
}

function wrapCode(pre: HTMLElement, cellActions: boolean): void {
  const code = pre.querySelector(':scope > code');
  if (!code || pre.parentElement?.classList.contains('ja-codeblock')) return;
  const wrap = document.createElement('div');
  wrap.className = 'ja-codeblock';
  const bar = document.createElement('div');
  bar.className = 'ja-code-actions';
  const lang = document.createElement('span');
  lang.className = 'ja-code-lang';
  lang.textContent = pre.dataset.lang || (code.className.match(/language-(\S+)/) || [])[1] || '';
  bar.append(lang);
  for (const [action, label, title] of ACTIONS) {
    if (action !== 'copy' && !(cellActions && notebookActions())) continue;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `ja-code-action ja-code-${action}`;
    button.dataset.testid = `ja-code-${action}`;
    iconLabel(button, action, label);
    button.title = title;
    button.setAttribute('aria-label', title);
    button.addEventListener('click', async event => {
      event.preventDefault();
      const text = code.textContent ?? '';
      if (action === 'copy') {
        const ok = await copyText(text);
        setLabel(button, ok ? 'Copied' : 'Copy failed');
        button.setAttribute('aria-label', ok ? 'Copied' : 'Copy failed');
        setTimeout(() => { setLabel(button, label); button.setAttribute('aria-label', title); }, 1500);
        return;
      }
      button.dispatchEvent(new CustomEvent('jupyter-agent:code', { bubbles: true, detail: { action, code: text } }));
    });
    bar.append(button);
  }
  pre.replaceWith(wrap);
  wrap.append(bar, pre);
}
