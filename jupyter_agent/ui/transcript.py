"""The static transcript that replaces a cell's live widget when its run ends.

A saved notebook keeps no live widget: after a kernel restart JupyterLab shows "model
not found", nbconvert and GitHub show the widget's ``text/plain``. So when a run ends the
cell's display is replaced by this bundle — HTML, Markdown and plain text, no JavaScript —
which every viewer renders. Model text is Markdown rendered with raw HTML escaped (a
trusted notebook would otherwise run whatever HTML the model wrote).

Front-end contract (the labextension styles and highlights it): the root is
``<div class="jp-agent-transcript" data-session-id=… data-status=…>``; code blocks are
``<div class="highlight"><pre><code class="language-xxx">`` with Pygments' token classes
(``code_blocks.py``: nbconvert styles those). Notices (an unknown context window, an MCP
server that failed) belong to the live view: the transcript keeps what the run produced.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel

from jupyter_agent.context.overflow import gauge
from jupyter_agent.core.messages import AssistantMessage, MessageWithParts
from jupyter_agent.session.display import cap_output
from jupyter_agent.session.rendering import BRIEF, Rendered, render_part
from jupyter_agent.ui import transcript_html as shapes
from jupyter_agent.ui.code_blocks import code_block
from jupyter_agent.ui.render import gauge_message

RunStatus = Literal["done", "stopped", "failed"]
OUTPUT_CAP = 2_000
"""Characters of a tool's output kept in the notebook (the store keeps all of it)."""
PROMPT_CAP = 2_000
"""Characters of the prompt echoed in the notebook: a pasted file is in the store already."""
MAX_IMAGES = 4
METADATA_KEY = "jupyter_agent"


class RunSummary(BaseModel):
    """What the status line at the end of a run says."""

    status: RunStatus
    elapsed_s: float
    model: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    contained: bool = False
    """The run was in a contained kernel (``tools/kernel_kind.py``): the line says so."""

    def line(self) -> str:
        bits = [self.status, _duration(self.elapsed_s)]
        if self.contained:
            bits.append("contained")
        if self.model:
            bits.append(self.model)
        if self.tokens_in or self.tokens_out:
            bits.append(f"{self.tokens_in:,} tokens in · {self.tokens_out:,} out")
        if self.cost > 0:
            bits.append(f"${self.cost:.4f}")
        return " · ".join(bits)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def summarize(
    messages: Iterable[MessageWithParts], status: RunStatus, elapsed_s: float, model: str = ""
) -> RunSummary:
    """Tokens and cost of the assistant messages of one run; ``failed`` if the last one errored."""
    summary = RunSummary(status=status, elapsed_s=elapsed_s, model=model)
    last_error = None
    for m in messages:
        if not isinstance(m.info, AssistantMessage):
            continue
        t = m.info.tokens
        summary.tokens_in += t.input + t.cache.read + t.cache.write
        summary.tokens_out += t.output + t.reasoning
        summary.cost += m.info.cost
        last_error = m.info.error
        summary.model = summary.model or m.info.model
    if status == "done" and last_error is not None:
        summary.status = "stopped" if last_error.name == "aborted" else "failed"
    return summary


@lru_cache(maxsize=1)
def _markdown() -> Any:
    # mistune loads when a finished run writes its transcript
    import mistune

    class Renderer(mistune.HTMLRenderer):
        def block_code(self, code: str, info: str | None = None) -> str:
            return code_block(code, (info or "").strip().split(" ")[0]) + "\n"

    plugins = ["strikethrough", "table", "url", "task_lists"]
    return mistune.create_markdown(escape=True, renderer=Renderer(escape=True), plugins=plugins)


_MATH = re.compile(
    r"(?P<code>```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]+`)"
    r"|(?P<math>\$\$[\s\S]+?\$\$|\\\[[\s\S]+?\\\]|\\\([\s\S]+?\\\)"
    r"|(?<![\\$\w])\$(?=\S)[^$\n]+?(?<=\S)\$(?![\w$]))"
)
"""Code (left alone) or LaTeX: ``$$…$$``, ``\\[…\\]``, ``\\(…\\)``, ``$…$`` (not ``$5 and $10``)."""


def markdown_html(text: str) -> str:
    """Markdown → HTML with any raw HTML escaped; fenced code keeps ``language-xxx``.

    LaTeX is taken out before the Markdown pass and put back verbatim (escaped), as
    JupyterLab does for Markdown cells: ``$x*y*z$`` must not turn into emphasis, and
    JupyterLab's MathJax typesets the output's ``$…$`` afterwards."""
    math: list[str] = []

    def hide(match: re.Match[str]) -> str:
        if match.group("code") is not None:
            return match.group(0)
        math.append(match.group(0))
        return f"JAMATHSPAN{len(math) - 1}X"

    rendered = str(_markdown()(_MATH.sub(hide, text)))
    return re.sub(r"JAMATHSPAN(\d+)X", lambda m: html.escape(math[int(m.group(1))], quote=False), rendered)


class _Builder:
    """Collects the three renderings side by side, part by part (HTML per message)."""

    def __init__(self, streamed: bool = False) -> None:
        self.html: list[str] = []
        self.body: list[str] = []
        """The HTML of the message being built."""
        self.md: list[str] = []
        self.plain: list[str] = []
        self.images = 0
        self.streamed = streamed
        """The run's answer and tool lines went to stdout as they came (``console_stream.py``):
        a terminal front end printed them already, and prints ``text/plain`` too."""
        self.quiet = False
        """Set while an assistant message is added in a streamed run: no plain text for it."""

    def _plain(self, line: str) -> None:
        if not self.quiet:
            self.plain.append(line)

    def end_message(self, user: bool = False) -> None:
        if self.body:
            self.html.append(shapes.message(self.body, user))
        self.body = []

    def text(self, text: str) -> None:
        self.body.append(shapes.text(text, markdown_html))
        self.md.append(text)
        self._plain(text)

    def details(self, label: str, body: str, plain: bool = False, thinking: bool = False) -> None:
        """Collapsed in HTML and Markdown; in plain text only when asked (a summary, not thinking)."""
        text = cap_output(body, OUTPUT_CAP)
        if plain:
            self._plain(f"{label}:\n{text}")
        shown = shapes.THOUGHTS if thinking else label
        self.body.append(shapes.folded(label, text, markdown_html, thinking=thinking))
        self.md.append(f"<details><summary>{html.escape(shown)}</summary>\n\n{_fence(text)}\n\n</details>")

    def part(self, r: Rendered) -> None:
        if r.name:
            self.tool(r)
        elif r.attempt is not None:
            self.body.append(shapes.retry(r.attempt, r.error))
            self.md.append(f"*{_inline(shapes.retried(r.attempt, r.error))}*")
            self.plain.append(f"[{shapes.retried(r.attempt, r.error)}]")
        elif r.text.strip() and r.label:
            self.details(r.label, r.text, plain=not r.aside, thinking=r.aside)
        elif r.text.strip():
            self.text(r.text)

    def tool(self, r: Rendered) -> None:
        status = "rejected" if r.rejected and r.status == "error" else r.status
        line = f"{r.name} {r.summary} — {status}" if r.summary else f"{r.name} — {status}"
        images = [a for a in r.attachments if a.mime.startswith("image/")][: max(0, MAX_IMAGES - self.images)]
        self.images += len(images)
        self.body.append(shapes.tool(r, OUTPUT_CAP, images))
        self.md.append(f"- `{r.name}` {_inline(r.summary)} — *{status}*")
        self.md.extend(f"*({a.mime} attached: see the HTML view)*" for a in images)
        self._plain(f"[{line}]")

    def error(self, name: str, text: str) -> None:
        self.body.append(shapes.error(name, text))
        if name == "aborted":  # a remark in the view; the status line says "stopped" already
            return
        self.md.append(f"> **Error:** {_inline(text)}")
        self.plain.append(f"Error: {text}")


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text}\n{ticks}"


def _inline(text: str) -> str:
    return text.replace("\n", " ").replace("`", "'")


def _message(b: _Builder, m: MessageWithParts) -> None:
    info = m.info
    shown = [r for p in m.parts if (r := render_part(p, BRIEF, info)) is not None]
    if not isinstance(info, AssistantMessage):  # the prompt is echoed above; a compaction marks where it cut
        marker = next((r for r in shown if r.marker), None)
        if marker is not None:
            b.text(marker.text)
            b.end_message()
        return
    b.quiet = b.streamed  # printed as it streamed: the text view keeps only the errors
    for r in shown:
        b.part(r)
    b.quiet = False
    if info.error is not None:
        b.error(info.error.name, info.error.message)
    b.end_message()


def transcript_bundle(
    *,
    session_id: str,
    prompt: str,
    messages: Iterable[MessageWithParts],
    summary: RunSummary,
    notices: Iterable[str] = (),
    context: int | None = None,
    streamed: bool = False,
) -> tuple[dict[str, str], dict[str, Any]]:
    """(data, metadata) of the display that replaces the live widget; data has no JavaScript.
    The HTML keeps the widget's look (its header with the gauge for ``context``, its cards).
    ``streamed``: the answer went to stdout as it came, so ``text/plain`` (what a terminal front
    end such as ``jupyter console`` prints) leaves it out; HTML and Markdown keep it."""
    b = _Builder(streamed)
    messages = list(messages)
    prompt = cap_output(prompt, PROMPT_CAP)
    if prompt.strip():
        b.html.append(shapes.prompt(prompt, markdown_html))
        b.md.append("> **You:** " + prompt.replace("\n", "\n> "))
        b.plain.append(f"You: {prompt}")
    for m in messages:
        _message(b, m)
    for notice in notices:
        b.html.append(shapes.notice(notice))
        b.md.append(f"*{_inline(notice)}*")
        b.plain.append(notice)
    status_line = f"{summary.line()} · session {session_id}"
    b.md.append(f"*{status_line}*")
    b.plain.append(f"— {status_line}")
    used = gauge(messages, context)
    shown = gauge_message(used.tokens, used.percent) if used.tokens else None
    head = shapes.header(
        summary.status,
        status_line,
        shown.usage if shown else "",
        used.percent,
        shown.level if shown else "ok",
    )
    data = {
        "text/html": shapes.root(
            session_id, summary.status, [head, '<div class="ja-stream">', *b.html, "</div>"]
        ),
        "text/markdown": "\n\n".join(b.md),
        "text/plain": "\n".join(b.plain),
    }
    metadata = {METADATA_KEY: {"session_id": session_id, "status": summary.status}}
    return data, metadata
