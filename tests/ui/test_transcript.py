"""The static transcript a finished run leaves in the cell: readable everywhere, no script."""

from __future__ import annotations

import re

from jupyter_agent.core.messages import (
    AssistantMessage,
    Attachment,
    MessageError,
    MessageWithParts,
    TextPart,
    Tokens,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolTimeCompleted,
    ToolTimeError,
    UserMessage,
)
from jupyter_agent.ui.transcript import OUTPUT_CAP, markdown_html, summarize, transcript_bundle

SID = "ses_1"


def _assistant(mid: str, *parts: object, error: MessageError | None = None, **kw: object) -> MessageWithParts:
    info = AssistantMessage(id=mid, session_id=SID, parent_id="msg_0", model="openai/test", error=error, **kw)
    return MessageWithParts(info=info, parts=list(parts))


def _text(mid: str, text: str, pid: str = "prt_t") -> TextPart:
    return TextPart(id=pid, session_id=SID, message_id=mid, text=text)


def _history() -> list[MessageWithParts]:
    user = MessageWithParts(
        info=UserMessage(id="msg_0", session_id=SID),
        parts=[_text("msg_0", "expanded prompt with <mention> blocks", "prt_u")],
    )
    tool = ToolPart(
        id="prt_tool",
        session_id=SID,
        message_id="msg_1",
        call_id="c1",
        tool="python",
        state=ToolStateCompleted(
            input={"code": "x = 6 * 7\nx"},
            output="Out: 42\n" + "y" * (OUTPUT_CAP * 3),
            time=ToolTimeCompleted(start=1),
            attachments=[Attachment(mime="image/png", url="data:image/png;base64,iVBORw0KGgo=")],
        ),
    )
    failed = ToolPart(
        id="prt_bad",
        session_id=SID,
        message_id="msg_1",
        call_id="c2",
        tool="bash",
        state=ToolStateError(
            input={"command": "rm -rf /"}, error="denied by config", time=ToolTimeError(start=1)
        ),
    )
    step = _assistant("msg_1", tool, failed, tokens=Tokens(input=1200, output=30), cost=0.0015)
    answer = _assistant(
        "msg_2",
        _text("msg_2", "The **total** is 42.\n\n```python\nprint(x)\n```\n\n<script>alert(1)</script>"),
        tokens=Tokens(input=1300, output=20),
        cost=0.0010,
    )
    return [user, step, answer]


def test_bundle_has_html_markdown_and_readable_text() -> None:
    history = _history()
    summary = summarize(history, "done", 4.2, "openai/test")
    data, metadata = transcript_bundle(
        session_id=SID, prompt="what is 6*7?", messages=history, summary=summary
    )
    assert set(data) == {"text/html", "text/markdown", "text/plain"}
    page = data["text/html"]
    assert page.startswith(
        '<div class="jp-agent-transcript ja-transcript" data-session-id="ses_1" data-status="done">'
    )
    assert "<strong>total</strong>" in page
    # the front-end contract: pre > code.language-xxx, inside Pygments' .highlight
    assert re.search(r'<div class="highlight[^"]*"[^>]*><pre[^>]*><code class="language-python"', page)
    assert '<span class="nb">print</span>' in page
    assert '<span class="n">x</span> <span class="o">=</span>' in page.replace(
        '<span class="w"> </span>', " "
    )
    assert "<script>" not in page and "&lt;script&gt;" in page  # model HTML is never run
    assert "expanded prompt" not in page and "what is 6*7?" in page
    assert "<details" in page and "denied by config" in page
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in page
    assert len(page) < 10_000  # long tool output is capped
    plain = data["text/plain"]
    assert "You: what is 6*7?" in plain and "The **total** is 42." in plain
    assert "[python x = 6 * 7 — completed]" in plain and "[bash rm -rf / — error]" in plain
    assert "object at 0x" not in plain
    assert "done · 4.2 s · openai/test · 2,500 tokens in · 50 out · $0.0025 · session ses_1" in plain
    assert "The **total** is 42." in data["text/markdown"]
    assert metadata == {"jupyter_agent": {"session_id": SID, "status": "done"}}


def test_status_follows_the_last_error() -> None:
    aborted = [_assistant("msg_1", error=MessageError(name="aborted", message="Stopped"))]
    assert summarize(aborted, "done", 1.0).status == "stopped"
    broken = [_assistant("msg_1", error=MessageError(name="auth", message="Invalid API key for openai"))]
    summary = summarize(broken, "done", 75.0)
    assert summary.status == "failed" and summary.line().startswith("failed · 1 min 15 s · openai/test")
    data, _ = transcript_bundle(session_id=SID, prompt="hi", messages=broken, summary=summary)
    assert "Error: Invalid API key for openai" in data["text/plain"]
    assert 'data-status="failed"' in data["text/html"]


def test_links_cannot_run_script() -> None:
    answer = [
        _assistant("msg_1", _text("msg_1", "[click](javascript:alert(1)) and <img src=x onerror=alert(1)>"))
    ]
    data, _ = transcript_bundle(
        session_id=SID, prompt='<b onclick="x">', messages=answer, summary=summarize(answer, "done", 0.1)
    )
    page = data["text/html"]
    assert "javascript:" not in page and "<img src=x" not in page and "<b onclick" not in page


def test_latex_is_kept_verbatim_for_mathjax() -> None:
    """`$x*y*z$` became `$x<em>y</em>z$`: math is taken out before Markdown, as JupyterLab does."""
    shown = markdown_html("Product $x*y*z$, $$\\sum_i a_i * b_i$$ and \\(p*q*r\\); $x<y$.")
    assert "$x*y*z$" in shown and "$$\\sum_i a_i * b_i$$" in shown and "\\(p*q*r\\)" in shown
    assert "<em>" not in shown and "$x&lt;y$" in shown  # still escaped HTML
    # prices and code stay what they were
    assert "<em>really</em>" in markdown_html("costs $5 and $10 *really*")
    assert "<code>$x*y$</code>" in markdown_html("code `$x*y$` here")


def test_a_pasted_file_is_not_echoed_whole() -> None:
    """A 200,000-character cell is in the store; the notebook keeps its start and says how much is left."""
    history = _history()
    prompt = "x" * 200_000
    data, _ = transcript_bundle(
        session_id=SID, prompt=prompt, messages=history, summary=summarize(history, "done", 1.0)
    )
    for shown in data.values():
        assert "x" * 2_000 in shown and "x" * 2_001 not in shown
        assert "… (198,000 more chars)" in shown
        assert len(shown) < 20_000


def test_code_blocks_are_pygments_html_that_nbconvert_styles() -> None:
    """In `nbconvert --to html` a bare <pre><code> had no box and no colours: code blocks are
    what nbconvert writes for a Markdown cell (`.highlight`, Pygments token classes), with a box
    that its `pre { background: page }` rule does not paint over."""
    shown = markdown_html("Run:\n\n```python\nimport math  # why\nprint('<b>')\n```\n\n```\nplain <i>\n```")
    python, plain = shown.split('<div class="highlight')[1:]
    assert python.startswith(' hl-python"') and 'code class="language-python"' in python
    assert '<span class="kn">import</span>' in python and '<span class="c1"># why</span>' in python
    assert "&lt;b&gt;" in python and "<b>" not in python  # still escaped
    assert "background: var(--jp-cell-editor-background" in python and "background: transparent" in python
    assert "plain &lt;i&gt;" in plain and "<span" not in plain and "language-" not in plain
    # an unknown language is escaped text in the same box
    odd = markdown_html("```no-such-language\n<x>\n```")
    assert 'class="language-no-such-language"' in odd and "&lt;x&gt;" in odd and "<span" not in odd


def test_image_notes_stay_out_of_the_tool_output() -> None:
    """A plot's tool card showed a literal `[image/png attached]` line above the image."""
    plot = ToolPart(
        id="prt_plot",
        session_id=SID,
        message_id="msg_1",
        call_id="c1",
        tool="python",
        state=ToolStateCompleted(
            input={"code": "df.plot()\nplt.show()"},
            output="<Axes: >\n[image/png attached]",
            time=ToolTimeCompleted(start=1),
            attachments=[Attachment(mime="image/png", url="data:image/png;base64,iVBORw0KGgo=")],
        ),
    )
    only = plot.model_copy(
        update={"id": "prt_only", "state": plot.state.model_copy(update={"output": "[image/png attached]"})}
    )
    history = [_assistant("msg_1", plot, only)]
    data, _ = transcript_bundle(
        session_id=SID, prompt="plot", messages=history, summary=summarize(history, "done", 1)
    )
    page = data["text/html"]
    assert "attached]" not in page and "&lt;Axes: &gt;" in page
    assert page.count('src="data:image/png;base64,iVBORw0KGgo="') == 2


def test_the_finished_run_keeps_the_live_widgets_look() -> None:
    """Issue 40 item 8: the transcript was another style ("Thinking" for "Thoughts", tool cards
    as one line, no gauge, retries dropped): it now uses the widget's own shapes, so the cell
    does not change its look or jump when the run ends, and tells the retries as the panel does."""
    from jupyter_agent.core.messages import ReasoningPart, RetryError, RetryPart

    history = _history()
    thinking = ReasoningPart(id="prt_r", session_id=SID, message_id="msg_2", text="Let me add **6** and 7.")
    retry = RetryPart(
        id="prt_retry", session_id=SID, message_id="msg_2", attempt=1,
        error=RetryError(message="429 slow down", status=429), next=1,
    )  # fmt: skip
    history[2].parts[:0] = [retry, thinking]
    rejected = history[1].parts[1].model_copy(deep=True)
    rejected.state.metadata["rejected"] = True  # type: ignore[union-attr]
    history[1].parts[1] = rejected
    summary = summarize(history, "done", 4.2, "openai/test")
    data, _ = transcript_bundle(
        session_id=SID, prompt="what is 6*7?", messages=history, summary=summary, context=10_000
    )
    page = data["text/html"]
    # the header: the status line and the gauge, where the live widget has them
    assert '<div class="ja-header">' in page and "1,320 tokens · 13% used" in page
    assert 'class="ja-gauge-fill" style="width: 13%"' in page
    # reasoning keeps its finished label; tools are cards with a badge, code and collapsed output
    assert "<summary>Thoughts</summary>" in page and "Thinking" not in page
    assert page.count('class="jp-agent-transcript-tool ja-tool') == 2
    assert '<span class="ja-badge" data-status="completed">completed</span>' in page
    assert '<details class="ja-output"><summary>Output</summary>' in page  # collapsed, as live
    # a refusal is an answer, not a red error
    assert '<span class="ja-badge" data-status="rejected">rejected</span>' in page
    assert "ja-output-error" not in page
    # the retry is told as the live view tells it once its wait is over
    assert "Retried after attempt 1: 429 slow down" in page
    assert "[Retried after attempt 1: 429 slow down]" in data["text/plain"]
