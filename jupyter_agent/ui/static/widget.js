// jupyter-agent live widget: renders the kernel's UI messages (see ui/protocol.py).
// Plain DOM, no framework, no network: works in JupyterLab 4, Notebook 7 and VS Code.
//
// Kernel → view: custom messages {kind: part|delta|message|removed|gauge|permission|
//   permission_done|compacted|status|notice|replay}.
// View → kernel: {type: ready, view} once per view (the kernel answers with one `replay`
//   holding everything sent so far), {type: stop}, {type: approve, request_id, reply},
//   {type: compact}.

// ------------------------------------------------------------------ markdown

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const INLINE_TOKENS = /(`[^`]+`|\[[^\]]+\]\((?:https?:|mailto:)[^)\s]+\))/;

function emphasis(s) {
  return s
    .replace(/\*\*(?=\S)([^*]+?)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|\W)__(?=\S)([^_]+?)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/(^|[^*])\*(?=\S)([^*]+?)\*(?!\*)/g, "$1<em>$2</em>")
    .replace(/(^|\W)_(?=\S)([^_]+?)_(?!\w)/g, "$1<em>$2</em>");
}

// `s` is already HTML-escaped; code spans and link targets are cut out first so nothing
// inside them is styled.
function inline(s) {
  return s
    .split(INLINE_TOKENS)
    .map((piece, i) => {
      if (i % 2 === 0) return emphasis(piece);
      if (piece.startsWith("`")) return `<code>${piece.slice(1, -1)}</code>`;
      const link = piece.match(/^\[([^\]]+)\]\((.+)\)$/);
      return `<a href="${link[2]}" target="_blank" rel="noopener noreferrer">${emphasis(link[1])}</a>`;
    })
    .join("");
}

const cells = (row) => row.replace(/^\s*\|/, "").replace(/\|\s*$/, "").split("|").map((c) => c.trim());
const isTableRule = (line) => /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line);

// A small, safe markdown renderer: everything is escaped first, then a few block and
// inline forms become tags. An unclosed code fence (still streaming) runs to the end.
export function markdown(src) {
  const lines = escapeHtml(src).split("\n");
  const out = [];
  let para = [];
  let list = null;
  const endPara = () => { if (para.length) out.push(`<p>${inline(para.join(" "))}</p>`); para = []; };
  const endList = () => { if (list) out.push(`</${list}>`); list = null; };
  const endBlocks = () => { endPara(); endList(); };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)\s*([\w+-]*)/);
    if (fence) {
      endBlocks();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      const lang = fence[2] ? ` data-lang="${fence[2]}"` : "";
      out.push(`<pre class="ja-code"${lang}><code>${body.join("\n")}</code></pre>`);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && isTableRule(lines[i + 1])) {
      endBlocks();
      const head = cells(line).map((c) => `<th>${inline(c)}</th>`).join("");
      const rows = [];
      for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i++) {
        rows.push(`<tr>${cells(lines[i]).map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`);
      }
      i--;
      out.push(`<table><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`);
      continue;
    }
    const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    const bullet = line.match(/^\s*[-*+]\s+(.*)$/);
    const numbered = line.match(/^\s*\d+[.)]\s+(.*)$/);
    const quote = line.match(/^\s*&gt;\s?(.*)$/);
    if (heading) {
      endBlocks();
      const n = heading[1].length;
      out.push(`<h${n}>${inline(heading[2])}</h${n}>`);
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      endBlocks();
      out.push("<hr>");
    } else if (bullet || numbered) {
      endPara();
      const kind = bullet ? "ul" : "ol";
      if (list !== kind) { endList(); out.push(`<${kind}>`); list = kind; }
      out.push(`<li>${inline((bullet || numbered)[1])}</li>`);
    } else if (quote) {
      endBlocks();
      out.push(`<blockquote>${inline(quote[1])}</blockquote>`);
    } else if (line.trim() === "") {
      endBlocks();
    } else {
      endList();
      para.push(line.trim());
    }
  }
  endBlocks();
  return out.join("");
}

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
    this.statusText = h("span", { class: "ja-status-text" });
    this.status = h("span", { class: "ja-status" }, h("span", { class: "ja-spinner" }), this.statusText);
    this.gaugeText = h("span", { class: "ja-gauge-text" });
    this.gaugeFill = h("span", { class: "ja-gauge-fill" });
    this.gauge = h("span", { class: "ja-gauge", "data-testid": "ja-gauge", hidden: true },
      this.gaugeText, h("span", { class: "ja-gauge-bar" }, this.gaugeFill));
    this.compactButton = h("button", { class: "ja-button ja-compact", type: "button", text: "Compact",
      title: "Summarise the history now", hidden: !this.model.get("can_compact") });
    this.compactButton.addEventListener("click", () => {
      this.compactButton.disabled = true;
      this.model.send({ type: "compact" });
    });
    this.stopButton = h("button", { class: "ja-button ja-stop", type: "button", "data-testid": "ja-stop",
      text: "■ Stop", title: "Stop the agent" });
    this.stopButton.addEventListener("click", () => {
      this.stopButton.disabled = true;
      this.stopButton.textContent = "Stopping…";
      this.model.send({ type: "stop" });
    });
    const header = h("div", { class: "ja-header" }, this.status, h("span", { class: "ja-spacer" }), this.gauge, this.compactButton, this.stopButton);
    this.stream = h("div", { class: "ja-stream" });
    root.append(header, this.stream);
  }

  reset() {
    this.stream.replaceChildren();
    this.parts = new Map(); // part id → {node, body, text, type, messageId}
    this.messages = new Map(); // message id → {node, body, role}
    this.permissions = new Map();
    this.lastMarker = null;
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
      this.stream.append(entry.node);
    }
    if (role) {
      entry.role = role;
      entry.node.classList.toggle("ja-user", role === "user");
    }
    return entry;
  }

  onMessage(m) {
    const entry = this.messageEntry(m.id, m.role);
    entry.node.dataset.agent = m.agent;
    if (m.summary && !entry.summarised) {
      entry.summarised = true;
      const marker = this.lastMarker || this.marker();
      const holder = marker.querySelector(".ja-summary");
      holder.hidden = false;
      holder.querySelector(".ja-summary-body").append(entry.node);
    }
    entry.node.querySelector(":scope > .ja-error-banner")?.remove();
    if (m.error) {
      const label = ERROR_LABELS[m.error.name] || "Error";
      const banner = h("div", { class: `ja-error-banner ja-error-${m.error.name}`, "data-testid": "ja-error" },
        h("strong", { text: `${label}: ` }), document.createTextNode(m.error.message));
      entry.node.append(banner);
    }
  }

  onPart(p) {
    const entry = this.messageEntry(p.message_id);
    const old = this.parts.get(p.id);
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
  }

  textPart(p, entry) {
    let node;
    let body;
    if (p.type === "reasoning") {
      body = h("div", { class: "ja-md" });
      node = h("details", { class: "ja-reasoning", "data-testid": "ja-reasoning" },
        h("summary", { text: "Thinking…" }), body);
    } else {
      const cls = entry.role === "user" ? "ja-text ja-md ja-prompt" : "ja-text ja-md";
      node = body = h("div", { class: cls, "data-testid": "ja-text" });
    }
    entry.body.append(node);
    const part = { node, body, text: "", type: p.type, messageId: p.message_id };
    this.parts.set(p.id, part);
    return part;
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
        if (part && part.body) part.body.innerHTML = markdown(part.text);
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
    const head = h("div", { class: "ja-tool-head" },
      h("span", { class: "ja-tool-name", text: p.tool }),
      h("code", { class: "ja-tool-input", text: p.input || "", title: p.input || "" }),
      badge);
    const card = h("div", { class: `ja-tool ja-status-${p.status}`, "data-testid": "ja-tool",
      "data-tool": p.tool, "data-status": p.status }, head);
    if (p.title) card.append(h("div", { class: "ja-tool-title", text: p.title }));
    const body = p.error ?? p.output;
    if (body) {
      const label = p.error ? (p.interrupted ? "Interrupted" : "Error") : p.pruned ? "Output (cleared from context)" : "Output";
      const details = h("details", { class: p.error ? "ja-output ja-output-error" : "ja-output" },
        h("summary", { text: label }), h("pre", { text: body }));
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
    this.lastMarker = node;
    return node;
  }

  onCompacted() {
    (this.lastMarker || this.marker()).classList.add("ja-done");
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
    this.gauge.title = g.percent == null ? "Context used (the model's limit is unknown)" : "Context window used";
  }

  setStatus(s) {
    const busy = s.state === "busy";
    this.root.dataset.state = s.state;
    this.status.dataset.state = s.state;
    this.statusText.textContent = s.text || (busy ? "Working…" : "");
    this.stopButton.hidden = !busy;
    this.stopButton.disabled = false;
    this.stopButton.textContent = "■ Stop";
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
    for (const [reply, label] of [["once", "Allow once"], ["always", "Always"], ["reject", "Reject"]]) {
      const button = h("button", { class: `ja-button ja-approve-${reply}`, type: "button",
        "data-testid": `ja-approve-${reply}`, text: label });
      button.addEventListener("click", () => {
        this.model.send({ type: "approve", request_id: r.id, reply });
        buttons.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      });
      buttons.append(button);
    }
    box.append(buttons);
    this.permissions.get(r.id)?.remove();
    this.permissions.set(r.id, box);
    this.stream.append(box);
  }

  onPermissionDone(msg) {
    const box = this.permissions.get(msg.request_id);
    if (!box) return;
    box.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    box.classList.add("ja-answered");
    box.querySelector(".ja-permission-answer")?.remove();
    box.append(h("div", { class: "ja-permission-answer", text: REPLY_LABELS[msg.reply] || msg.reply }));
  }
}

function render({ model, el }) {
  const view = new AgentView(model, el);
  view.start();
  return () => view.stop();
}

export default { render };
