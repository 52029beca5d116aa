// jupyter-agent live widget: renders the kernel's UI messages (see ui/render.py).
// Plain DOM, no framework, no network: works in JupyterLab, Notebook 7 and VS Code.

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function inline(s) {
  return s
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2" target="_blank" rel="noopener">$1</a>');
}

// A small, safe markdown renderer: headings, lists, code fences, paragraphs.
export function markdown(src) {
  const out = [];
  const lines = esc(src).split("\n");
  let i = 0;
  let list = null;
  const closeList = () => { if (list) { out.push(`</${list}>`); list = null; } };
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^```(\w*)/);
    if (fence) {
      closeList();
      const body = [];
      i++;
      while (i < lines.length && !lines[i].startsWith("```")) body.push(lines[i++]);
      i++;
      out.push(`<pre class="ja-code"><code>${body.join("\n")}</code></pre>`);
      continue;
    }
    const h = line.match(/^(#{1,6})\s+(.*)$/);
    const ul = line.match(/^\s*[-*]\s+(.*)$/);
    const ol = line.match(/^\s*\d+[.)]\s+(.*)$/);
    if (h) { closeList(); out.push(`<h${h[1].length}>${inline(h[2])}</h${h[1].length}>`); }
    else if (ul || ol) {
      const kind = ul ? "ul" : "ol";
      if (list !== kind) { closeList(); out.push(`<${kind}>`); list = kind; }
      out.push(`<li>${inline((ul || ol)[1])}</li>`);
    } else if (line.trim() === "") { closeList(); }
    else { closeList(); out.push(`<p>${inline(line)}</p>`); }
    i++;
  }
  closeList();
  return out.join("");
}

function el(tag, cls, attrs) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function render({ model, el: root }) {
  root.classList.add("ja-root");
  const header = el("div", "ja-header");
  const gauge = el("div", "ja-gauge", { "data-testid": "ja-gauge" });
  const gaugeText = el("span", "ja-gauge-text");
  gaugeText.textContent = "";
  const bar = el("div", "ja-bar");
  const fill = el("div", "ja-fill");
  bar.appendChild(fill);
  gauge.append(gaugeText, bar);
  const status = el("span", "ja-status");
  const stop = el("button", "ja-stop", { "data-testid": "ja-stop", type: "button" });
  stop.textContent = "■ Stop";
  stop.onclick = () => { model.send({ type: "stop" }); stop.disabled = true; };
  header.append(status, gauge, stop);
  const stream = el("div", "ja-stream");
  root.append(header, stream);

  const nodes = new Map();
  const texts = new Map();
  let pendingRender = new Set();
  let frame = null;

  const renderSoon = (id) => {
    pendingRender.add(id);
    if (frame) return;
    const run = () => {
      frame = null;
      for (const pid of pendingRender) {
        const node = nodes.get(pid);
        if (node && node._plain) node._body.textContent = texts.get(pid) || "";
        else if (node && node._body) node._body.innerHTML = markdown(texts.get(pid) || "");
      }
      pendingRender = new Set();
    };
    frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame(run) : setTimeout(run, 16);
  };

  function place(id, node) {
    const old = nodes.get(id);
    if (old) old.replaceWith(node); else stream.appendChild(node);
    nodes.set(id, node);
  }

  function textPart(p) {
    if (p.type === "reasoning") {
      const d = el("details", "ja-reasoning", { "data-testid": "ja-reasoning" });
      const s = el("summary");
      s.textContent = "Thinking…";
      const body = el("div", "ja-md");
      d.append(s, body);
      d._body = body;
      return d;
    }
    if (p.role === "user") {
      const div = el("div", "ja-user", { "data-testid": "ja-user" });
      div._body = div;
      div._plain = true;
      return div;
    }
    const div = el("div", "ja-text ja-md", { "data-testid": "ja-text" });
    div._body = div;
    return div;
  }

  function toolPart(p) {
    const card = el("div", `ja-tool ja-${p.status}`, { "data-testid": "ja-tool", "data-tool": p.tool });
    const head = el("div", "ja-tool-head");
    const name = el("span", "ja-tool-name");
    name.textContent = p.tool;
    const input = el("code", "ja-tool-input");
    input.textContent = p.input || "";
    const badge = el("span", "ja-badge", { "data-testid": "ja-tool-status" });
    badge.textContent = p.status;
    if (p.status === "running") badge.prepend(el("span", "ja-spinner"));
    head.append(name, input, badge);
    card.appendChild(head);
    const body = p.error || p.output;
    if (body) {
      const det = el("details", "ja-output");
      if (p.error) det.open = true;
      const s = el("summary");
      s.textContent = p.error ? (p.interrupted ? "interrupted" : "error") : (p.title || "output");
      const pre = el("pre");
      pre.textContent = p.error || p.output;
      det.append(s, pre);
      card.appendChild(det);
    }
    for (const a of p.attachments || []) {
      const img = el("img", "ja-image", { src: a.url, alt: "tool output image" });
      card.appendChild(img);
    }
    return card;
  }

  function onPart(p) {
    if (p.type === "text" || p.type === "reasoning") {
      if (!nodes.has(p.id)) place(p.id, textPart(p));
      texts.set(p.id, p.text || "");
      renderSoon(p.id);
    } else if (p.type === "tool") {
      place(p.id, toolPart(p));
    } else if (p.type === "retry") {
      const div = el("div", "ja-retry", { "data-testid": "ja-retry" });
      const secs = Math.max(0, Math.round((p.next - Date.now()) / 1000));
      div.textContent = `Retrying in ${secs} s (attempt ${p.attempt}): ${p.error}`;
      place(p.id, div);
    } else if (p.type === "compaction") {
      const div = el("div", "ja-compaction", { "data-testid": "ja-compaction" });
      div.textContent = "— history summarised above this point —";
      place(p.id, div);
    } else if (p.type === "file" && p.url) {
      place(p.id, el("img", "ja-image", { src: p.url }));
    }
  }

  function onMessage(m) {
    if (m.summary) {
      for (const [id, node] of nodes) if (node.dataset && node.dataset.message === m.id) node.classList.add("ja-summary");
    }
    if (m.error) {
      const id = `err-${m.id}`;
      const div = el("div", m.error_name === "aborted" ? "ja-notice" : "ja-error", { "data-testid": "ja-error" });
      div.textContent = m.error;
      place(id, div);
    }
  }

  function onPermission(r) {
    const box = el("div", "ja-permission");
    const title = el("div", "ja-permission-title");
    title.textContent = `Allow ${r.permission}? ${r.title || ""} ${r.patterns && r.patterns.length ? "(" + r.patterns.join(", ") + ")" : ""}`;
    box.appendChild(title);
    for (const [reply, label] of [["once", "Allow once"], ["always", "Always"], ["reject", "Reject"]]) {
      const b = el("button", `ja-btn ja-${reply}`, { "data-testid": `ja-approve-${reply}`, type: "button" });
      b.textContent = label;
      b.onclick = () => {
        model.send({ type: "approve", request_id: r.id, reply });
        box.querySelectorAll("button").forEach((x) => (x.disabled = true));
      };
      box.appendChild(b);
    }
    place(`perm-${r.id}`, box);
  }

  let lastSeq = -1;
  function handle(msg) {
    if (typeof msg.seq === "number") {
      if (msg.seq <= lastSeq) return; // already shown (backlog replayed for a late view)
      lastSeq = msg.seq;
    }
    switch (msg.kind) {
      case "part": onPart(msg.part); break;
      case "delta":
        texts.set(msg.id, (texts.get(msg.id) || "") + msg.text);
        renderSoon(msg.id);
        break;
      case "message": onMessage(msg.message); break;
      case "removed": { const n = nodes.get(msg.id); if (n) n.remove(); nodes.delete(msg.id); break; }
      case "gauge":
        gaugeText.textContent = msg.text;
        fill.style.width = `${Math.min(100, msg.percent || 0)}%`;
        gauge.dataset.level = msg.level;
        break;
      case "permission": onPermission(msg.request); break;
      case "permission_done": {
        const n = nodes.get(`perm-${msg.id}`);
        if (n) { n.querySelectorAll("button").forEach((x) => (x.disabled = true)); n.classList.add("ja-answered"); }
        break;
      }
      case "compacted": {
        const div = el("div", "ja-compaction", { "data-testid": "ja-compaction" });
        div.textContent = "— history summarised above this point —";
        place(`compacted-${nodes.size}`, div);
        break;
      }
      case "status":
        root.dataset.state = msg.state;
        status.textContent = msg.state === "busy" ? "working…" : "";
        stop.style.display = msg.state === "busy" ? "" : "none";
        break;
      case "notice": {
        const div = el("div", msg.level === "error" ? "ja-error" : "ja-notice");
        div.textContent = msg.text;
        place(`notice-${nodes.size}`, div);
        break;
      }
    }
  }

  const listener = (msg) => handle(msg);
  model.on("msg:custom", listener);
  model.send({ type: "ready" });
  return () => model.off("msg:custom", listener);
}

export default { render };
