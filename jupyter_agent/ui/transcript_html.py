"""The finished run's HTML in the live widget's own shapes, so a run does not change its look
(or jump in height) when the widget is replaced by the transcript.

The classes are the widget's (``labextension/src/widget/``: ``ja-header``, ``ja-text``,
``ja-reasoning`` "Thoughts", ``ja-tool`` cards with their badge, code and collapsed output,
``ja-retry``, ``ja-error-banner``), styled by the same ``widget.css`` wherever the panel's
extension is installed; the ``jp-agent-transcript-*`` names stay for what reads them
(nbconvert's styles, the code actions). Without a stylesheet (nbconvert, GitHub) it is
plain readable HTML. Everything shown is escaped; Markdown goes through ``markdown``.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from jupyter_agent.core.messages import Attachment
from jupyter_agent.session.display import cap_output
from jupyter_agent.session.rendering import Rendered
from jupyter_agent.ui.code_blocks import code_block

THOUGHTS = "Thoughts"
"""What the live widget calls finished reasoning (``Thinking…`` only while it streams)."""
ERROR_LABELS = {
    "aborted": "Stopped",
    "auth": "Authentication failed",
    "api": "Provider error",
    "rate_limit": "Rate limited",
    "output_length": "Output limit reached",
    "context_overflow": "Context window exceeded",
}
"""As ``parts.ts`` labels the banner of a message that ended with an error."""

Markdown = Callable[[str], str]
_e = html.escape


def header(status: str, line: str, usage: str, percent: int | None, level: str) -> str:
    """The widget's header at rest: what the run did (its status line), then its gauge."""
    width = min(100, max(0, percent or 0))
    gauge = (
        f'<span class="ja-gauge" data-testid="ja-gauge" data-level="{level}" title="{_e(usage)}">'
        f'<span class="ja-gauge-text">{_e(usage)}</span>'
        '<span class="ja-gauge-bar">'
        f'<span class="ja-gauge-fill" style="width: {width}%"></span></span></span>'
        if usage
        else ""
    )
    return (
        '<div class="ja-header">'
        f'<span class="ja-status jp-agent-transcript-status" data-state="{_e(status)}">'
        f'<span class="ja-status-text" title="{_e(line)}">{_e(line)}</span></span>'
        f'<span class="ja-spacer"></span>{gauge}</div>'
    )


def prompt(text: str, markdown: Markdown) -> str:
    return (
        '<div class="ja-msg ja-user"><div class="ja-msg-body">'
        f'<div class="jp-agent-transcript-prompt ja-text ja-md ja-prompt">{markdown(text)}</div></div></div>'
    )


def text(body: str, markdown: Markdown) -> str:
    return f'<div class="jp-agent-transcript-text ja-text ja-md">{markdown(body)}</div>'


def folded(label: str, body: str, markdown: Markdown, *, thinking: bool) -> str:
    """Reasoning ("Thoughts") or a summary, collapsed as in the widget."""
    if thinking:
        return (
            f'<details class="ja-reasoning ja-done"><summary>{THOUGHTS}</summary>'
            f'<div class="ja-md">{markdown(body)}</div></details>'
        )
    return (
        f'<details class="ja-summary"><summary>{_e(label)}</summary>'
        f'<div class="ja-summary-body ja-md">{markdown(body)}</div></details>'
    )


def tool(r: Rendered, cap: int, images: list[Attachment]) -> str:
    """A tool card: name, input (or its code), badge, the output collapsed (an error open)."""
    rejected = r.rejected and r.status == "error"
    status = "rejected" if rejected else r.status
    summary = (
        ""
        if r.code.strip()
        else f'<code class="ja-tool-input" title="{_e(r.summary)}">{_e(r.summary)}</code>'
    )
    desc = '<span class="ja-tool-input ja-tool-desc"></span>' if r.code.strip() else ""
    parts = [
        f'<div class="jp-agent-transcript-tool ja-tool ja-status-{_e(status)}" data-tool="{_e(r.name)}"'
        f' data-status="{_e(r.status)}"><div class="ja-tool-head">'
        f'<span class="ja-tool-name">{_e(r.name)}</span>'
        f'{desc}{summary}<span class="ja-badge" data-status="{_e(status)}">{_e(status)}</span></div>'
    ]
    if r.code.strip():
        code = cap_output(r.code.strip("\n"), cap * 10)
        parts.append(f'<div class="ja-tool-code">{code_block(code, r.lang)}</div>')
    body = r.error or r.output
    if body.strip():
        failed = bool(r.error) and not rejected
        label = "Why" if rejected and r.error else "Error" if r.error else "Output"
        parts.append(
            f'<details class="ja-output{" ja-output-error" if failed else ""}"{" open" if failed else ""}>'
            f"<summary>{label}</summary>"
            f'<pre class="ja-tool-output">{_e(cap_output(body, cap))}</pre></details>'
        )
    for a in images:
        parts.append(f'<img class="ja-image" src="{_e(a.url)}" alt="{_e(a.filename or a.mime)}">')
    parts.append("</div>")
    return "".join(parts)


def retry(attempt: int, error: str) -> str:
    """A retry that happened, as the live view says it once its wait is over."""
    return f'<div class="ja-retry" data-attempt="{attempt}">{_e(retried(attempt, error))}</div>'


def retried(attempt: int, error: str) -> str:
    return f"Retried after attempt {attempt}: {error}"


def error(name: str, message: str) -> str:
    label = ERROR_LABELS.get(name, "Error")
    head = "" if message.lower().startswith(label.lower()) else f"<strong>{_e(label)}: </strong>"
    return (
        f'<div class="jp-agent-transcript-error ja-error-banner ja-error-{_e(name)}">'
        f"{head}{_e(message or label + '.')}</div>"
    )


def notice(text_: str) -> str:
    return f'<div class="jp-agent-transcript-notice ja-notice">{_e(text_)}</div>'


def message(body: list[str], user: bool = False) -> str:
    """One message of the stream, its parts inside (as the widget's ``MessageList``)."""
    inner = "".join(body)
    return f'<div class="ja-msg{" ja-user" if user else ""}"><div class="ja-msg-body">{inner}</div></div>'


def root(session_id: str, status: str, inner: list[str]) -> str:
    return (
        f'<div class="jp-agent-transcript ja-transcript" data-session-id="{_e(session_id)}"'
        f' data-status="{_e(status)}">' + "\n".join(inner) + "</div>"
    )
