"""One table decides what each part shows; the transcript, the exports, `sessions show`, the CLI
printer and the console stream only format it (issue 29, move 5)."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from jupyter_agent import cli
from jupyter_agent.core import messages
from jupyter_agent.core.events import PartUpdated
from jupyter_agent.core.messages import (
    AnyPart,
    AssistantMessage,
    Attachment,
    CompactionPart,
    FilePart,
    MessageError,
    MessageWithParts,
    PartTime,
    PatchPart,
    ReasoningPart,
    RetryError,
    RetryPart,
    Session,
    StepFinishPart,
    StepStartPart,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
    ToolTimeCompleted,
    ToolTimeError,
    UserMessage,
)
from jupyter_agent.session.export import message_markdown
from jupyter_agent.session.rendering import BRIEF, RECORD, RENDERERS, render_part
from jupyter_agent.session_cli import show_text
from jupyter_agent.ui.console_stream import ConsoleStream
from jupyter_agent.ui.transcript import summarize, transcript_bundle

ROOT = Path(__file__).resolve().parents[2] / "jupyter_agent"
FORMATTERS = ["ui/transcript.py", "session/export.py", "session_cli.py", "cli.py", "ui/console_stream.py"]
SID = "ses_1"
IDS = {"session_id": SID}


def _tool(mid: str, pid: str, tool: str, state: Any) -> ToolPart:
    return ToolPart(id=pid, message_id=mid, call_id="c_" + pid, tool=tool, state=state, **IDS)


def _history() -> list[MessageWithParts]:
    """A user prompt with an @agent subtask and a file, an answer with thinking and tool calls, a
    compaction with its summary and the system's continue message."""
    prompt = [
        TextPart(id="p1", message_id="m0", text="plot the data", **IDS),
        FilePart(id="p2", message_id="m0", mime="image/png", url="data:image/png;base64,AA", **IDS),
        SubtaskPart(
            id="p3",
            message_id="m0",
            prompt="find every CSV file here",
            description="find",
            agent="explore",
            **IDS,
        ),
    ]
    plot = ToolStateCompleted(
        input={"code": "df.plot()\nplt.show()"},
        output="<Axes: >\n[image/png attached]",
        attachments=[Attachment(mime="image/png", url="data:image/png;base64,BB")],
        time=ToolTimeCompleted(start=1),
    )
    answer = [
        StepStartPart(id="a1", message_id="m1", **IDS),
        ReasoningPart(id="a2", message_id="m1", text="The user wants a plot.", **IDS),
        _tool("m1", "a3", "python", plot),
        _tool(
            "m1",
            "a4",
            "read",
            ToolStateCompleted(
                input={"filePath": "data.csv"}, output="a,b", time=ToolTimeCompleted(start=1, compacted=2)
            ),
        ),
        _tool(
            "m1",
            "a5",
            "bash",
            ToolStateError(
                input={"command": "rm -rf /"}, error="denied by config", time=ToolTimeError(start=1)
            ),
        ),
        RetryPart(
            id="a6", message_id="m1", attempt=1, error=RetryError(message="rate limited"), next=0, **IDS
        ),
        TextPart(
            id="a7", message_id="m1", text="Here is the **plot**.", time=PartTime(start=1, end=2), **IDS
        ),
        StepFinishPart(id="a8", message_id="m1", reason="stop", **IDS),
        PatchPart(id="a9", message_id="m1", **IDS),
    ]
    return [
        MessageWithParts(info=UserMessage(id="m0", **IDS), parts=prompt),
        MessageWithParts(
            info=AssistantMessage(
                id="m1", parent_id="m0", error=MessageError(name="api", message="cut"), **IDS
            ),
            parts=answer,
        ),
        MessageWithParts(
            info=UserMessage(id="m2", **IDS),
            parts=[CompactionPart(id="c1", message_id="m2", auto=True, **IDS)],
        ),
        MessageWithParts(
            info=AssistantMessage(id="m3", parent_id="m2", summary=True, **IDS),
            parts=[TextPart(id="c2", message_id="m3", text="## Goal\nA plot.", **IDS)],
        ),
        MessageWithParts(
            info=UserMessage(id="m4", **IDS),
            parts=[TextPart(id="c3", message_id="m4", text="Continue.", synthetic=True, **IDS)],
        ),
    ]


def test_every_part_type_has_a_table_entry() -> None:
    """A new part type is one entry in RENDERERS; forgetting it fails here, not in a user's export."""
    union = set(get_args(AnyPart))
    declared = {
        c
        for c in vars(messages).values()
        if isinstance(c, type) and issubclass(c, BaseModel)
        if c.__name__.endswith("Part") and "type" in c.model_fields
    }
    assert declared == union
    assert set(RENDERERS) == union


def test_no_formatter_switches_on_part_types() -> None:
    """The transcript, the exports, `sessions show`, the CLI printer and the console stream read
    the table's `Rendered` only: no part class imported, no `.type` compared."""
    for name in FORMATTERS:
        tree = ast.parse((ROOT / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "jupyter_agent.core.messages":
                parts = [
                    a.name for a in node.names if a.name.endswith("Part") or a.name.startswith("ToolState")
                ]
                assert not parts, f"{name} imports {parts}"
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute):
                assert node.left.attr != "type", f"{name}:{node.lineno} compares a part's type"


def test_targets_differ_only_where_views_say() -> None:
    """The reader's view shows a summary and the image; the record keeps what the model saw."""
    [_, answer, *_] = _history()
    plot, read = answer.parts[2], answer.parts[3]
    brief, record = render_part(plot, BRIEF), render_part(plot, RECORD)
    assert brief is not None and record is not None
    assert (brief.name, brief.summary, brief.code, brief.lang) == (
        "python",
        "df.plot()",
        "df.plot()\nplt.show()",
        "python",
    )
    assert brief.output == "<Axes: >" and record.output == "<Axes: >\n[image/png attached]"
    assert record.summary == '{"code": "df.plot()\\nplt.show()"}'
    assert render_part(read, BRIEF).output == "[output cleared from the context]"  # type: ignore[union-attr]
    assert render_part(read, RECORD).output == "[Old tool result content cleared]"  # type: ignore[union-attr]
    subtask = _history()[0].parts[2]
    assert render_part(subtask, BRIEF).text == "*@explore: find*"  # type: ignore[union-attr]
    assert render_part(subtask, RECORD).text == "*@explore: find every CSV file here*"  # type: ignore[union-attr]
    assert render_part(_history()[4].parts[0], BRIEF) is None  # the system's text
    assert render_part(answer.parts[8], RECORD) is None  # a patch: for revert only


def test_the_markdown_export() -> None:
    shown = "\n\n".join(message_markdown(m) for m in _history())
    assert shown == (
        "### User\n\nplot the data\n\n*@explore: find every CSV file here*\n\n"
        "### Assistant\n\n<details><summary>Thinking</summary>\n\nThe user wants a plot.\n\n</details>\n\n"
        '**Tool `python`** `{"code": "df.plot()\\nplt.show()"}`\n```\n<Axes: >\n[image/png attached]\n```\n\n'
        '**Tool `read`** `{"filePath": "data.csv"}`\n```\n[Old tool result content cleared]\n```\n\n'
        '**Tool `bash`** `{"command": "rm -rf /"}`\n> error: denied by config\n\n'
        "Here is the **plot**.\n\n> error: cut\n\n"
        "### User\n\n*— history summarised here —*\n\n"
        "### Summary\n\n## Goal\nA plot.\n\n"
        "### User"
    )


def test_sessions_show_lists_what_the_session_holds() -> None:
    """`sessions show` lists text (the system's too), one line per call, and now also the
    subtask and the compaction mark it used to leave out; thinking stays out."""
    shown = show_text(Session(id=SID, title="Plots"), _history())
    assert shown == (
        "# Plots  (ses_1)\n\n## user\nplot the data\n*@explore: find*\n\n"
        "## assistant\n[tool python: completed]\n[tool read: completed]\n[tool bash: error]\n"
        "Here is the **plot**.\n\n"
        "## user\n*— history summarised here —*\n\n"
        "## assistant\n## Goal\nA plot.\n\n"
        "## user\nContinue."
    )


def test_the_transcript_text_and_markdown() -> None:
    history = _history()[:2]
    data, _ = transcript_bundle(
        session_id=SID, prompt="plot the data", messages=history, summary=summarize(history, "done", 1.0)
    )
    assert data["text/plain"] == (
        "You: plot the data\n[python df.plot() — completed]\n[read data.csv — completed]\n"
        "[bash rm -rf / — error]\n[Retried after attempt 1: rate limited]\nHere is the **plot**.\n"
        "Error: cut\n— failed · 1.0 s · session ses_1"
    )
    assert data["text/markdown"] == (
        "> **You:** plot the data\n\n"
        "<details><summary>Thoughts</summary>\n\n```\nThe user wants a plot.\n```\n\n</details>\n\n"
        "- `python` df.plot() — *completed*\n\n*(image/png attached: see the HTML view)*\n\n"
        "- `read` data.csv — *completed*\n\n- `bash` rm -rf / — *error*\n\n"
        "*Retried after attempt 1: rate limited*\n\n"
        "Here is the **plot**.\n\n> **Error:** cut\n\n*failed · 1.0 s · session ses_1*"
    )
    assert "[output cleared from the context]" in data["text/html"]


def test_the_transcript_shows_a_notebook_edit_as_code_as_the_widget_does() -> None:
    """The transcript had its own list of code inputs without `notebook_edit`: its source was
    only a JSON line, while the live card showed it highlighted."""
    edit = ToolStateCompleted(
        input={"source": "a = 1\nb = 2", "index": 3}, output="ok", time=ToolTimeCompleted(start=1)
    )
    info = AssistantMessage(id="m1", parent_id="m0", **IDS)
    history = [MessageWithParts(info=info, parts=[_tool("m1", "e1", "notebook_edit", edit)])]
    data, _ = transcript_bundle(
        session_id=SID, prompt="x", messages=history, summary=summarize(history, "done", 1)
    )
    assert 'code class="language-python"' in data["text/html"]


def _events() -> list[PartUpdated]:
    """An answer streams, its model call ends, and the next call is retried before it writes."""
    text = TextPart(id="t1", message_id="m1", text="Done.", **IDS)
    thinking = ReasoningPart(id="r1", message_id="m1", text="hmm", **IDS)
    retry = RetryPart(
        id="r2", message_id="m1", attempt=1, error=RetryError(message="rate limited"), next=0, **IDS
    )
    tool = _tool("m1", "b1", "bash", ToolStateRunning(input={"command": "ls"}))
    return [
        PartUpdated(part=StepStartPart(id="s1", message_id="m1", **IDS)),
        PartUpdated(part=thinking, delta="hmm"),
        PartUpdated(part=text, delta="Done."),
        PartUpdated(part=text.model_copy(update={"time": PartTime(start=1, end=2)})),
        PartUpdated(part=tool),
        PartUpdated(part=StepFinishPart(id="s2", message_id="m1", reason="stop", **IDS)),
        PartUpdated(part=retry),
    ]


def test_console_stream_and_cli_printer_agree_on_a_retry_after_a_finished_call() -> None:
    """The console said "[retrying: …]" (the answer starts over) for a retry of the NEXT model
    call once the previous one had finished; the CLI printer did not. Both read the table now."""
    out: list[str] = []
    console = ConsoleStream(SID, out.append)
    for event in _events():
        console(event)
    console.finish()
    assert "".join(out) == "Done.\n[bash ls]\n"
    stdout, stderr = io.StringIO(), io.StringIO()
    printer = cli.Printer(as_json=False)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        for event in _events():
            printer(event)
    assert stdout.getvalue() == "Done.\n"
    assert stderr.getvalue() == "[retry 1 in 0 s] rate limited\n"
