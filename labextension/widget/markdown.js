// Markdown for the agent's answers, shared by the cell widget and the side panel:
// marked (GFM) + KaTeX (as MathML: no fonts or stylesheet to ship) + highlight.js,
// sanitised with DOMPurify. Code blocks get actions (copy; insert/replace a cell when
// JupyterLab's side panel extension is loaded and answers the `jupyter-agent:code` event).
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdownLang from "highlight.js/lib/languages/markdown";
import plaintext from "highlight.js/lib/languages/plaintext";
import python from "highlight.js/lib/languages/python";
import r from "highlight.js/lib/languages/r";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";
import markedKatex from "marked-katex-extension";

const LANGUAGES = { bash, css, diff, javascript, json, markdown: markdownLang, plaintext, python, r, sql,
  typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "shell", "console", "zsh"], { languageName: "bash" });
hljs.registerAliases(["py", "ipython", "python3"], { languageName: "python" });
hljs.registerAliases(["js"], { languageName: "javascript" });
hljs.registerAliases(["ts"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["text", "txt", "output"], { languageName: "plaintext" });

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Highlighted HTML for `code` (escaped); unknown languages stay plain. */
export function highlight(code, lang) {
  const name = (lang || "").toLowerCase();
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
marked.use(markedKatex({ throwOnError: false, output: "mathml", nonStandard: true }));
marked.use({
  renderer: {
    code({ text, lang }) {
      const name = (lang || "").trim().split(/\s+/)[0].toLowerCase();
      const cls = name ? ` class="language-${escapeHtml(name)} hljs"` : ' class="hljs"';
      return `<pre class="ja-code"${name ? ` data-lang="${escapeHtml(name)}"` : ""}><code${cls}>${highlight(text, name)}</code></pre>`;
    },
  },
});

const PURIFY = { ADD_ATTR: ["target"], FORBID_TAGS: ["style", "form", "input", "button"] };
let hooked = false;

/** Sanitised HTML for a Markdown source (may be incomplete: it is still streaming). */
export function markdown(src) {
  if (!hooked && DOMPurify.isSupported) {
    hooked = true;
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A" && node.getAttribute("href")) {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      }
    });
  }
  const html = marked.parse(String(src ?? ""), { async: false });
  return DOMPurify.isSupported ? DOMPurify.sanitize(html, PURIFY) : escapeHtml(src);
}

// ------------------------------------------------------------------ code actions

const ACTIONS = [
  ["copy", "Copy", "Copy the code"],
  ["insert", "Insert below", "Insert the code in a new cell below the active cell"],
  ["replace", "Replace cell", "Replace the active cell's source with the code"],
];

/** Is the JupyterLab extension there to insert/replace cells (the `jupyter-agent:code` event)? */
function notebookActions() {
  return typeof document !== "undefined" && document.body?.dataset.jupyterAgentActions === "1";
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // no clipboard permission (an insecure origin): a hidden textarea and execCommand
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** Give every `pre > code` under `root` a bar above it (the language, then Copy and, when
 * `cellActions`, Insert below / Replace cell): a bar of its own, so it never covers code. */
export function addCodeActions(root, cellActions = true) {
  for (const pre of root.querySelectorAll("pre")) wrapCode(pre, cellActions);
}

/** A saved run's static transcript (`.jp-agent-transcript`, HTML written by the kernel): its
 * code is highlighted and gets the same bar (Python and answers' code may go into cells, a
 * shell command is Copy only); tool outputs stay as they are. */
export function addTranscriptActions(root) {
  for (const code of root.querySelectorAll('pre > code[class*="language-"]')) {
    const lang = (code.className.match(/language-(\S+)/) || [])[1] || "";
    if (!code.classList.contains("hljs")) {
      code.innerHTML = highlight(code.textContent ?? "", lang);
      code.classList.add("hljs");
    }
    wrapCode(code.parentElement, !code.closest(".jp-agent-transcript-tool") || lang === "python");
  }
  for (const pre of root.querySelectorAll(".jp-agent-transcript-text pre")) wrapCode(pre, true);
}

function wrapCode(pre, cellActions) {
  const code = pre.querySelector(":scope > code");
  if (!code || pre.parentElement?.classList.contains("ja-codeblock")) return;
  const wrap = document.createElement("div");
  wrap.className = "ja-codeblock";
  const bar = document.createElement("div");
  bar.className = "ja-code-actions";
  const lang = document.createElement("span");
  lang.className = "ja-code-lang";
  lang.textContent = pre.dataset.lang || (code.className.match(/language-(\S+)/) || [])[1] || "";
  bar.append(lang);
  for (const [action, label, title] of ACTIONS) {
    if (action !== "copy" && !(cellActions && notebookActions())) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = `ja-code-action ja-code-${action}`;
    button.dataset.testid = `ja-code-${action}`;
    button.textContent = label;
    button.title = title;
    button.setAttribute("aria-label", title);
    button.addEventListener("click", async (event) => {
      event.preventDefault();
      const text = code.textContent ?? "";
      if (action === "copy") {
        const ok = await copyText(text);
        button.textContent = ok ? "Copied" : "Copy failed";
        setTimeout(() => { button.textContent = label; }, 1500);
        return;
      }
      button.dispatchEvent(new CustomEvent("jupyter-agent:code", { bubbles: true, detail: { action, code: text } }));
    });
    bar.append(button);
  }
  pre.replaceWith(wrap);
  wrap.append(bar, pre);
}
