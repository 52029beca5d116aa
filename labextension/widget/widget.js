// jupyter-agent live widget: renders the kernel's UI messages (see ui/protocol.py).
// Plain DOM, no framework, no network: works in JupyterLab 4, Notebook 7 and VS Code.
// Bundled with its Markdown renderer (markdown.js) into jupyter_agent/ui/static/widget.js
// by labextension/build-widget.mjs; the side panel imports this source directly.
//
// Kernel → view: custom messages {kind: part|delta|message|removed|gauge|permission|
//   permission_done|compacted|status|notice|older|replay}.
// View → kernel: {type: ready, view} once per view (the kernel answers with one `replay`
//   holding everything sent so far), {type: stop}, {type: approve, request_id, reply},
//   {type: compact}, and in the side panel {type: older, session_id, before} for the page of
//   messages before the oldest shown (they arrive as usual and take their place by id).

import { addCodeActions, escapeHtml, highlight, iconLabel, markdown, setLabel } from "./markdown.js";

export { escapeHtml, markdown };

// ------------------------------------------------------------------ DOM helpers

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const ERROR_LABELS = {
  aborted: "Stopped",
  auth: "Authentication failed",
  api: "Provider error",
  rate_limit: "Rate limited",
  output_length: "Output limit reached",
  context_overflow: "Context window exceeded",
  unknown: "Error",
};
const REPLY_LABELS = { once: "Allowed once", always: "Always allowed", reject: "Rejected" };
const MARKER_TEXT = "— history summarised above this point —";
const READY_TIMEOUT_MS = 3000;
const BLOCKS = "p, li, h1, h2, h3, h4, h5, h6, blockquote, td, th, dt, dd";

// ------------------------------------------------------------------ the view

class AgentView {
  constructor(model, root) {
    this.model = model;
    this.root = root;
    this.viewId = Math.random().toString(36).slice(2) + Date.now().toString(36);
    this.synced = false; // live messages wait for our replay, which already contains them
    this.early = [];
    this.dirty = new Set();
    this.frame = null;
    this.ticker = null;
    this.build();
    this.reset();
  }

  build() {
    const root = this.root;
    root.classList.add("ja-root");
    root.replaceChildren();
    root.setAttribute("tabindex", "-1"); // focus lands here after Stop (the button hides)
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.requestStop()) event.preventDefault();
    });
    this.statusText = h("span", { class: "ja-status-text" });
    this.status = h("span", { class: "ja-status", role: "status" }, h("span", { class: "ja-spinner" }), this.statusText);
    this.gaugeText = h("span", { class: "ja-gauge-text" });
    this.gaugeFill = h("span", { class: "ja-gauge-fill" });
    this.gauge = h("span", { class: "ja-gauge", "data-testid": "ja-gauge", hidden: true },
      this.gaugeText, h("span", { class: "ja-gauge-bar" }, this.gaugeFill));
    this.compactButton = iconLabel(h("button", { class: "ja-button ja-compact", type: "button",
      title: "Summarise the history now", "aria-label": "Compact: summarise the history now",
      hidden: !this.model.get("can_compact") }), "compact", "Compact");
    this.compactButton.addEventListener("click", () => {
      this.compactButton.disabled = true;
      this.model.send({ type: "compact" });
    });
    this.stopButton = iconLabel(h("button", { class: "ja-button ja-stop", type: "button", "data-testid": "ja-stop",
      title: "Stop the agent (Escape)", "aria-label": "Stop the agent", "aria-keyshortcuts": "Escape" }), "stop", "Stop");
    this.stopButton.addEventListener("click", () => this.requestStop());
    const header = h("div", { class: "ja-header" }, this.status, h("span", { class: "ja-spacer" }), this.gauge, this.compactButton, this.stopButton);
    this.stream = h("div", { class: "ja-stream", role: "log", "aria-live": "polite", "aria-label": "Agent messages" });
    root.append(header, this.stream);
  }

  /** Stop the run (the button or Escape); false when nothing runs. */
  requestStop() {
    if (this.stopButton.hidden || this.stopButton.disabled) return false;
    this.stopping = true;
    this.stopButton.disabled = true;
    setLabel(this.stopButton, "Stopping…");
    this.model.send({ type: "stop" });
    return true;
  }

  reset() {
    this.stream.replaceChildren();
    this.parts = new Map(); // part id → {node, body, text, type, messageId}
    this.messages = new Map(); // message id → {node, body, role}
    this.permissions = new Map();
    this.olderControl = null;
    this.newest = null;
    this.setStatus({ state: "idle", text: "" });
  }

  start() {
    this.listener = (msg) => this.receive(msg);
    this.model.on("msg:custom", this.listener);
    this.model.send({ type: "ready", view: this.viewId });
    // A kernel that never answers (gone, or an old version): show what arrives anyway.
    this.readyTimer = setTimeout(() => this.goLive(), READY_TIMEOUT_MS);
  }

  stop() {
    if (this.listener) this.model.off("msg:custom", this.listener);
    clearTimeout(this.readyTimer);
    clearInterval(this.ticker);
    if (this.frame !== null) (globalThis.cancelAnimationFrame || clearTimeout)(this.frame);
  }

  goLive() {
    if (this.synced) return;
    this.synced = true;
    const early = this.early;
    this.early = [];
    early.forEach((msg) => this.handle(msg));
  }

  receive(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.kind === "replay") {
      if (msg.view !== this.viewId) return; // another view's catch-up
      clearTimeout(this.readyTimer);
      this.reset();
      this.early = [];
      this.synced = true;
      msg.messages.forEach((m) => this.handle(m));
      return;
    }
    if (!this.synced) this.early.push(msg);
    else this.handle(msg);
  }

  handle(msg) {
    switch (msg.kind) {
      case "part": this.onPart(msg.part); break;
      case "delta": this.onDelta(msg); break;
      case "message": this.onMessage(msg.message); break;
      case "removed": this.onRemoved(msg); break;
      case "gauge": this.onGauge(msg); break;
      case "permission": this.onPermission(msg.request); break;
      case "permission_done": this.onPermissionDone(msg); break;
      case "compacted": this.onCompacted(); break;
      case "status": this.setStatus(msg); break;
      case "notice": this.onNotice(msg); break;
      case "older": this.onOlder(msg); break;
      default: break;
    }
  }

  // ---------------------------------------------------------------- messages & parts

  messageEntry(id, role) {
    let entry = this.messages.get(id);
    if (!entry) {
      const body = h("div", { class: "ja-msg-body" });
      entry = { node: h("div", { class: "ja-msg", "data-message": id }, body), body, role: role || "assistant" };
      this.messages.set(id, entry);
      this.place(id, entry.node);
    }
    if (role) {
      entry.role = role;
      entry.node.classList.toggle("ja-user", role === "user");
    }
    return entry;
  }

  /** Messages stand in id order (ids ascend with time): an earlier page slots in above. */
  place(id, node) {
    if (this.newest === null || id > this.newest) { // live messages: the newest, appended
      this.newest = id;
      this.stream.append(node);
      return;
    }
    let next = null;
    for (const [other, entry] of this.messages) {
      if (other > id && entry.node.isConnected && entry.node.parentNode === this.stream &&
          (next === null || other < next.id)) next = { id: other, node: entry.node };
    }
    if (next) this.stream.insertBefore(node, next.node);
    else this.stream.append(node);
  }

  /** The compaction marker a summary belongs to: the nearest one above its message. */
  markerBefore(id) {
    let found = null;
    for (const marker of this.stream.querySelectorAll(".ja-compaction")) {
      const owner = marker.closest("[data-message]")?.dataset.message;
      if (owner === undefined || owner < id) found = marker;
    }
    return found;
  }

  /** The summary sits collapsed inside its compaction marker. */
  fold(entry, marker) {
    entry.summarised = true;
    const holder = marker.querySelector(".ja-summary");
    holder.hidden = false;
    holder.querySelector(".ja-summary-body").append(entry.node);
  }

  /** A marker from an earlier page takes in the summary shown before it arrived. */
  adoptSummary(marker, ownerId) {
    let next = null;
    for (const [id, entry] of this.messages) if (id > ownerId && (next === null || id < next.id)) next = { id, entry };
    if (next && next.entry.summary && !next.entry.summarised) this.fold(next.entry, marker);
  }

  onMessage(m) {
    const entry = this.messageEntry(m.id, m.role);
    entry.node.dataset.agent = m.agent;
    entry.summary = Boolean(m.summary);
    if (m.summary && !entry.summarised) {
      const marker = this.markerBefore(m.id); // none yet: its compaction is on an earlier page
      if (marker) this.fold(entry, marker);
    }
    entry.node.querySelector(":scope > .ja-error-banner")?.remove();
    if (m.error) {
      const label = ERROR_LABELS[m.error.name] || "Error";
      const text = m.error.message || `${label}.`;
      // "Stopped by the user." needs no "Stopped:" in front of it
      const head = text.toLowerCase().startsWith(label.toLowerCase()) ? null : h("strong", { text: `${label}: ` });
      const banner = h("div", { class: `ja-error-banner ja-error-${m.error.name}`, "data-testid": "ja-error" },
        head, document.createTextNode(text));
      entry.node.append(banner);
    }
  }

  onPart(p) {
    const entry = this.messageEntry(p.message_id);
    const old = this.parts.get(p.id);
    if (!old && p.type !== "reasoning") this.thoughtsDone();
    if (p.type === "text" || p.type === "reasoning") {
      const part = old || this.textPart(p, entry);
      part.text = p.text || "";
      this.renderSoon(p.id);
      return;
    }
    const node = this.partNode(p, old);
    if (!node) return;
    if (old) old.node.replaceWith(node);
    else entry.body.append(node);
    this.parts.set(p.id, { node, type: p.type, messageId: p.message_id });
    if (p.type === "compaction" && !old) this.adoptSummary(node, p.message_id);
  }

  textPart(p, entry) {
    let node;
    let body;
    if (p.type === "reasoning") {
      body = h("div", { class: "ja-md" });
      node = h("details", { class: "ja-reasoning", "data-testid": "ja-reasoning" },
        h("summary", { text: "Thinking…" }), body);
      this.thinking = node;
    } else {
      const cls = entry.role === "user" ? "ja-text ja-md ja-prompt" : "ja-text ja-md";
      node = body = h("div", { class: cls, "data-testid": "ja-text" });
    }
    entry.body.append(node);
    const part = { node, body, text: "", type: p.type, messageId: p.message_id };
    this.parts.set(p.id, part);
    return part;
  }

  /** "Thinking…" only while the reasoning is the newest thing shown. */
  thoughtsDone() {
    if (!this.thinking) return;
    const summary = this.thinking.querySelector("summary");
    if (summary) summary.textContent = "Thoughts";
    this.thinking.classList.add("ja-done");
    this.thinking = null;
  }

  onDelta(msg) {
    const part = this.parts.get(msg.part_id);
    if (!part || part.text === undefined) return;
    part.text += msg.text;
    this.renderSoon(msg.part_id);
  }

  // Markdown is re-rendered at most once per frame, however many deltas arrived.
  renderSoon(id) {
    this.dirty.add(id);
    if (this.frame !== null) return;
    const run = () => {
      this.frame = null;
      for (const pid of this.dirty) {
        const part = this.parts.get(pid);
        if (part && part.body) {
          const user = part.type === "text" && this.messages.get(part.messageId)?.role === "user";
          const { words, blocks } = user ? splitFenced(part.text) : { words: part.text, blocks: [] };
          part.body.innerHTML = markdown(words);
          if (blocks.length) part.body.append(mentionChips(blocks));
          // each paragraph takes its own direction (Hebrew, Arabic next to English)
          part.body.querySelectorAll(BLOCKS).forEach((b) => b.setAttribute("dir", "auto"));
          addCodeActions(part.body);
        }
      }
      this.dirty.clear();
    };
    this.frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame(run) : setTimeout(run, 16);
  }

  partNode(p, old) {
    switch (p.type) {
      case "tool": return this.toolCard(p, old);
      case "retry": return this.retryNotice(p);
      case "compaction": return this.marker(p);
      case "file": return this.fileNode(p);
      case "subtask":
        return h("div", { class: "ja-subtask" }, h("strong", { text: `Subtask (${p.agent}): ` }),
          document.createTextNode(p.title || ""));
      default: return null;
    }
  }

  toolCard(p, old) {
    const wasOpen = old ? old.node.querySelector("details.ja-output")?.open : undefined;
    const badge = h("span", { class: "ja-badge", "data-testid": "ja-tool-status", "data-status": p.status },
      p.status === "running" ? h("span", { class: "ja-spinner" }) : null, document.createTextNode(p.status));
    // the input once: highlighted code (python, bash) or the one-line summary in the head
    const title = p.title && !(p.code || p.input || "").startsWith(p.title.replace(/…$/, "")) ? p.title : "";
    const head = h("div", { class: "ja-tool-head" },
      h("span", { class: "ja-tool-name", text: p.tool }),
      p.code ? h("span", { class: "ja-tool-input ja-tool-desc", text: title }) :
        h("code", { class: "ja-tool-input", text: p.input || "", title: p.input || "" }),
      badge);
    const card = h("div", { class: `ja-tool ja-status-${p.status}`, "data-testid": "ja-tool",
      "data-tool": p.tool, "data-status": p.status }, head);
    if (title && !p.code) card.append(h("div", { class: "ja-tool-title", text: title }));
    if (p.progress && p.status === "running") card.append(progressLine(p.progress));
    if (p.code) {
      const code = h("code", { class: `hljs language-${p.lang || "plaintext"}` });
      code.innerHTML = highlight(p.code, p.lang);
      card.append(h("pre", { class: "ja-code ja-tool-code", "data-testid": "ja-tool-code" }, code));
      addCodeActions(card, p.lang === "python"); // a shell command is no cell: Copy only
    }
    const body = p.error ?? p.output;
    if (body) {
      const label = p.error ? (p.interrupted ? "Interrupted" : "Error") : p.pruned ? "Output (cleared from context)" : "Output";
      const details = h("details", { class: p.error ? "ja-output ja-output-error" : "ja-output" },
        h("summary", { text: label }), h("pre", { class: "ja-tool-output", text: body }));
      details.open = wasOpen ?? Boolean(p.error);
      card.append(details);
    }
    for (const a of p.attachments || []) card.append(this.attachment(a));
    return card;
  }

  attachment(a) {
    if (a.mime.startsWith("image/")) return h("img", { class: "ja-image", src: a.url, alt: a.filename || a.mime });
    return h("a", { class: "ja-file", href: a.url, download: a.filename || "attachment", text: a.filename || a.mime });
  }

  fileNode(p) {
    return this.attachment({ mime: p.mime || "", url: p.url || "", filename: p.filename });
  }

  retryNotice(p) {
    const node = h("div", { class: "ja-retry", "data-testid": "ja-retry", "data-next": p.next });
    node.dataset.attempt = p.attempt;
    node.dataset.error = p.error || "";
    this.updateRetry(node);
    if (this.ticker === null) this.ticker = setInterval(() => this.tick(), 1000);
    return node;
  }

  updateRetry(node) {
    const secs = Math.max(0, Math.ceil((Number(node.dataset.next) - Date.now()) / 1000));
    const when = secs > 0 ? `Retrying in ${secs} s` : "Retrying now";
    node.textContent = `${when} (attempt ${node.dataset.attempt}): ${node.dataset.error}`;
  }

  tick() {
    const live = this.stream.querySelectorAll(".ja-retry");
    live.forEach((node) => this.updateRetry(node));
    const waiting = [...live].some((node) => Number(node.dataset.next) > Date.now());
    if (!waiting) { clearInterval(this.ticker); this.ticker = null; }
  }

  // The marker stands where the history was cut; the summary sits collapsed inside it.
  marker(p) {
    const summary = h("details", { class: "ja-summary", hidden: true },
      h("summary", { text: "Summary" }), h("div", { class: "ja-summary-body" }));
    const node = h("div", { class: "ja-compaction", "data-testid": "ja-compaction" },
      h("div", { class: "ja-compaction-line", text: MARKER_TEXT }), summary);
    if (p && p.auto === false) node.dataset.manual = "";
    if (!p) this.stream.append(node);
    return node;
  }

  onCompacted() {
    const markers = this.stream.querySelectorAll(".ja-compaction");
    (markers[markers.length - 1] || this.marker()).classList.add("ja-done");
  }

  /** "Show earlier messages" above the oldest one shown, while the session has earlier ones. */
  onOlder(msg) {
    this.olderControl?.remove();
    this.olderControl = null;
    const anchor = this.anchor;
    this.anchor = null;
    if (anchor) { // after this frame's Markdown: put what the user was reading back in place
      const settle = () => {
        const scroller = scrollParent(anchor.node);
        if (scroller && anchor.node.isConnected) scroller.scrollTop += anchor.node.getBoundingClientRect().top - anchor.top;
        delete this.stream.dataset.paging;
      };
      if (typeof requestAnimationFrame === "function") requestAnimationFrame(settle);
      else settle();
    }
    if (!msg.before) return;
    const button = h("button", { class: "ja-button ja-older", type: "button", "data-testid": "ja-older",
      text: "Show earlier messages" });
    button.addEventListener("click", () => {
      const first = this.olderControl?.nextElementSibling;
      this.anchor = first ? { node: first, top: first.getBoundingClientRect().top } : null;
      this.stream.dataset.paging = ""; // until the page is in and the view settled
      button.disabled = true;
      button.textContent = "Loading…";
      this.model.send({ type: "older", session_id: msg.session_id, before: msg.before });
    });
    this.olderControl = h("div", { class: "ja-older-row" }, button);
    this.stream.prepend(this.olderControl);
  }

  onRemoved(msg) {
    if (msg.part_id) {
      this.parts.get(msg.part_id)?.node.remove();
      this.parts.delete(msg.part_id);
      return;
    }
    for (const [id, part] of this.parts) {
      if (part.messageId === msg.message_id) { part.node.remove(); this.parts.delete(id); }
    }
    this.messages.get(msg.message_id)?.node.remove();
    this.messages.delete(msg.message_id);
  }

  // ---------------------------------------------------------------- header & prompts

  onGauge(g) {
    this.gauge.hidden = false;
    this.gauge.dataset.level = g.level;
    this.gaugeText.textContent = g.text;
    this.gaugeFill.style.width = `${Math.min(100, Math.max(0, g.percent ?? 0))}%`;
    // the whole line in the tooltip: a narrow panel cuts the text with an ellipsis
    this.gauge.title = `${g.text} — ${g.percent == null ? "context used (the model's limit is unknown)" : "context window used"}`;
  }

  setStatus(s) {
    const busy = s.state === "busy";
    if (!busy) this.thoughtsDone();
    if (!busy && this.stopping) {
      // the Stop button hides: keep the keyboard user in the panel's prompt (or this view)
      this.stopping = false;
      const prompt = this.root.closest(".ja-panel")?.querySelector("[data-testid=ja-prompt]");
      (prompt && !prompt.disabled ? prompt : this.root).focus();
    }
    this.root.dataset.state = s.state;
    this.status.dataset.state = s.state;
    this.statusText.textContent = s.text || (busy ? "Working…" : "");
    this.stopButton.hidden = !busy;
    this.stopButton.disabled = false;
    setLabel(this.stopButton, "Stop");
    this.compactButton.hidden = busy || !this.model.get("can_compact");
    this.compactButton.disabled = false;
  }

  onNotice(n) {
    const level = n.level || "info";
    this.stream.append(h("div", { class: `ja-notice ja-level-${level}`, "data-testid": level === "error" ? "ja-error" : "ja-notice", text: n.text }));
  }

  onPermission(r) {
    const patterns = (r.patterns || []).length
      ? h("div", { class: "ja-permission-patterns" }, document.createTextNode("“Always” allows: "),
        h("code", { text: r.patterns.join(", ") }))
      : null;
    const box = h("div", { class: "ja-permission", "data-testid": "ja-permission", "data-request": r.id },
      h("div", { class: "ja-permission-title" }, h("strong", { text: `Allow ${r.permission}?` }),
        document.createTextNode(r.title ? ` ${r.title}` : "")),
      patterns);
    const buttons = h("div", { class: "ja-permission-buttons" });
    // an optional reason goes to the model with a rejection ("use pathlib instead")
    const reason = h("input", { class: "ja-reject-reason", type: "text", "data-testid": "ja-reject-reason",
      placeholder: "Reason if you reject (optional, sent to the agent)", "aria-label": "Reason for rejecting" });
    const answer = (reply) => {
      const message = reply === "reject" ? reason.value.trim() : "";
      this.model.send({ type: "approve", request_id: r.id, reply, ...(message ? { message } : {}) });
      buttons.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      reason.disabled = true;
    };
    reason.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      event.stopPropagation();
      if (reason.value.trim()) answer("reject");
    });
    for (const [reply, label] of [["once", "Allow once"], ["always", "Always"], ["reject", "Reject"]]) {
      const button = h("button", { class: `ja-button ja-approve-${reply}`, type: "button",
        "data-testid": `ja-approve-${reply}`, text: label });
      button.addEventListener("click", () => answer(reply));
      buttons.append(button);
    }
    buttons.append(reason);
    box.append(buttons);
    this.permissions.get(r.id)?.remove();
    this.permissions.set(r.id, box);
    this.stream.append(box);
  }

  onPermissionDone(msg) {
    const box = this.permissions.get(msg.request_id);
    if (!box) return;
    box.querySelectorAll("button, input").forEach((b) => { b.disabled = true; });
    box.classList.add("ja-answered");
    box.querySelector(".ja-permission-answer")?.remove();
    box.append(h("div", { class: "ja-permission-answer", text: REPLY_LABELS[msg.reply] || msg.reply }));
  }
}

// A prompt is the user's words, then one fenced block per mention / cell / traceback
// (`<mention_1a2b3c4d ref="@df">…</mention_1a2b3c4d>`, see core/fence.py): shown as chips.
const OPEN_TAG = /<([a-z]+_[0-9a-f]{8})((?:\s+[\w-]+="[^"]*")*)>\n/g;
const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };

function unescapeAttr(value) {
  return value.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e]);
}

/** Fenced blocks from `at` to the end of `text` (each after whitespace), or null. */
function blocksFrom(text, at) {
  const blocks = [];
  let pos = at;
  while (pos < text.length) {
    const rest = text.slice(pos);
    const open = rest.match(/^\s*<([a-z]+_[0-9a-f]{8})((?:\s+[\w-]+="[^"]*")*)>\n/);
    if (!open) return /^\s*$/.test(rest) ? blocks : null;
    const tag = open[1];
    const close = rest.indexOf(`\n</${tag}>`, open[0].length - 1);
    if (close < 0) return null;
    const ref = (open[2].match(/\sref="([^"]*)"/) || [])[1];
    blocks.push({ kind: tag.split("_")[0], ref: ref === undefined ? tag.split("_")[0] : unescapeAttr(ref),
      body: rest.slice(open[0].length, close) });
    pos += close + tag.length + 4;
  }
  return blocks;
}

/** {words, blocks}: what the user typed and the context blocks appended to it. */
export function splitFenced(text) {
  for (const match of text.matchAll(OPEN_TAG)) {
    const blocks = blocksFrom(text, match.index);
    if (blocks && blocks.length) return { words: text.slice(0, match.index).trimEnd(), blocks };
  }
  return { words: text, blocks: [] };
}

function mentionChips(blocks) {
  const row = h("div", { class: "ja-mentions" });
  for (const block of blocks) {
    const chip = h("details", { class: `ja-mention ja-mention-${block.kind}`, "data-testid": "ja-mention",
      "data-kind": block.kind },
    h("summary", { text: block.ref, title: `What the agent got for ${block.ref}` }),
    h("pre", { class: "ja-mention-body", text: block.body }));
    row.append(chip);
  }
  return row;
}

/** "Crunching 3 of 5 · 60 %" with a bar: a running tool's reported progress. */
function progressLine(progress) {
  const fraction = typeof progress.fraction === "number" ? progress.fraction : null;
  const percent = fraction === null ? null : Math.round(fraction * 100);
  const text = [progress.message, percent === null ? null : `${percent} %`].filter(Boolean).join(" · ")
    || `${progress.progress}`;
  const line = h("div", { class: "ja-progress", "data-testid": "ja-progress", role: "progressbar",
    "aria-label": progress.message || "Progress", "aria-valuemin": 0, "aria-valuemax": 100,
    "aria-valuenow": percent === null ? undefined : percent, "aria-valuetext": text });
  const bar = h("span", { class: "ja-progress-bar" + (percent === null ? " ja-indeterminate" : "") },
    h("span", { class: "ja-progress-fill" }));
  if (percent !== null) bar.firstChild.style.width = `${percent}%`;
  line.append(bar, h("span", { class: "ja-progress-text", text }));
  return line;
}

/** The element that scrolls ``node`` (the side panel's stream, or the page). */
function scrollParent(node) {
  for (let p = node.parentElement; p; p = p.parentElement) {
    const overflow = getComputedStyle(p).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && p.scrollHeight > p.clientHeight) return p;
  }
  return document.scrollingElement;
}

function render({ model, el }) {
  const view = new AgentView(model, el);
  view.start();
  return () => view.stop();
}

export default { render };
