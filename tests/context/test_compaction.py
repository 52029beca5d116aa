"""SPEC "Compaction": what the model sees afterwards, the tail, and the request."""

from __future__ import annotations

from helpers import SID, assistant, tool, user

from jupyter_agent.context.compaction import (
    ANCHOR_NEW,
    ANCHOR_UPDATE,
    build_compaction_request,
    filter_compacted,
    preserve_recent_budget,
    select_tail,
)
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core import ids
from jupyter_agent.core.messages import (
    Attachment,
    CompactionPart,
    FilePart,
    MessageError,
    MessageWithParts,
    UserMessage,
)


class Counter(TokenCounter):
    def count(self, text: str, key: str | None = None) -> int:
        return len(text)


def compaction(tail: str | None = None) -> MessageWithParts:
    mid = ids.ascending("msg")
    return MessageWithParts(
        info=UserMessage(id=mid, session_id=SID),
        parts=[
            CompactionPart(
                id=ids.ascending("prt"), session_id=SID, message_id=mid, auto=True, tail_start_id=tail
            )
        ],
    )


def test_order_after_compaction_with_tail() -> None:
    u1 = user("old")
    a1 = assistant(u1, "old answer")
    u2 = user("recent")
    a2 = assistant(u2, "recent answer")
    c = compaction(tail=u2.info.id)
    s = assistant(c, "## Goal\nthings", summary=True)
    u3 = user("new")
    a3 = assistant(u3, "new answer")
    seen = filter_compacted([u1, a1, u2, a2, c, s, u3, a3])
    assert [m.info.id for m in seen] == [c.info.id, s.info.id, u2.info.id, a2.info.id, u3.info.id, a3.info.id]


def test_failed_compaction_cuts_nothing() -> None:
    u1 = user("old")
    a1 = assistant(u1, "old answer")
    c = compaction()
    failed = assistant(c, "", summary=True, error=MessageError(name="context_overflow", message="too big"))
    u2 = user("next")
    history = [u1, a1, c, failed, u2]
    # nothing is cut; the failed attempt itself is not shown (no dangling question)
    assert filter_compacted(history) == [u1, a1, u2]
    unfinished = assistant(c, "partial", summary=True, finish=None)
    assert filter_compacted([u1, a1, c, unfinished])[0].info.id == u1.info.id


def test_tail_keeps_whole_turns_within_budget() -> None:
    u1, u2, u3 = user("a" * 10), user("b" * 10), user("c" * 10)
    a1 = assistant(u1, "x" * 100)
    history = [u1, a1, u2, assistant(u2, "y" * 100), u3, assistant(u3, "z" * 100)]
    assert select_tail(history, 2, 1_000, Counter()) == u2.info.id
    # the whole history fits: the tail would start at the first message, so there is
    # no tail and everything is summarised (OpenCode: keep.start === 0 → no tail)
    assert select_tail(history, 3, 1_000, Counter()) is None
    assert a1 in history


def test_tail_splits_a_turn_that_does_not_fit() -> None:
    u1, u2 = user("q" * 10), user("r" * 10)
    big = assistant(u2, tool(output="o" * 5_000))
    last = assistant(u2, "final words")
    history = [u1, assistant(u1, "x"), u2, big, last]
    # the newest turn (u2 + big + last) does not fit in 100; its rest from `last` does
    assert select_tail(history, 2, 100, Counter()) == last.info.id


def test_no_tail_when_nothing_fits() -> None:
    u = user("q")
    history = [u, assistant(u, "x" * 500)]
    assert select_tail(history, 2, 10, Counter()) is None
    assert preserve_recent_budget(100_000) == 8_000 and preserve_recent_budget(1_000) == 2_000


def test_request_strips_media_caps_outputs_and_hides_old_summaries() -> None:
    u = user("plot it")
    png = Attachment(mime="image/png", url="data:image/png;base64,AAAA", filename="plot.png")
    t = tool("python", output="y" * 5_000, code="plot()")
    t = t.model_copy(update={"state": t.state.model_copy(update={"attachments": [png]})})
    a = assistant(u, t)
    file_user = user("see attached")
    file_user.parts.append(
        FilePart(
            id=ids.ascending("prt"),
            session_id=SID,
            message_id=file_user.info.id,
            mime="image/png",
            url="data:image/png;base64,AAAA",
            filename="shot.png",
        )
    )
    old_c = compaction()
    old_s = assistant(old_c, "old summary", summary=True)
    messages = build_compaction_request([old_c, old_s, u, a, file_user], None)
    text = str(messages)
    assert "data:image" not in text and "[Attached image/png: shot.png]" in text
    assert "[Tool output truncated for compaction: omitted 3000 chars]" in text
    assert "old summary" not in text and "What did we do so far?" not in text
    assert messages[-1]["role"] == "user" and messages[-1]["content"].startswith(ANCHOR_NEW)
    for section in ("## Goal", "## Constraints & Preferences", "### In Progress", "## Relevant Files"):
        assert section in messages[-1]["content"]
    update = build_compaction_request([u], "## Goal\nprevious")
    assert update[-1]["content"].startswith(ANCHOR_UPDATE)
    assert "<previous-summary>\n## Goal\nprevious\n</previous-summary>" in update[-1]["content"]


def test_request_names_what_a_tool_attached() -> None:
    """A plot a tool made stays known to the summariser as a line, never as data (OpenCode 1.18)."""
    u = user("plot it")
    png = Attachment(mime="image/png", url="data:image/png;base64,AAAA", filename="plot.png")
    pdf = Attachment(mime="application/pdf", url="data:application/pdf;base64,AAAA")
    t = tool("python", output="y" * 5_000, code="plot()")
    t = t.model_copy(update={"state": t.state.model_copy(update={"attachments": [png, pdf]})})
    messages = build_compaction_request([u, assistant(u, t)], None)
    result = next(m for m in messages if m["role"] == "tool")["content"]
    assert isinstance(result, str) and "data:" not in result
    assert result.endswith(
        "omitted 3000 chars]\n[Attached image/png: plot.png]\n[Attached application/pdf: file]"
    )
    pruned = tool("python", output="z", compacted=5)
    pruned = pruned.model_copy(update={"state": pruned.state.model_copy(update={"attachments": [png]})})
    cleared = build_compaction_request([u, assistant(u, pruned)], None)
    assert next(m for m in cleared if m["role"] == "tool")["content"] == "[Old tool result content cleared]"


def test_a_tool_with_many_attachments_stays_small_in_the_summary_input() -> None:
    u = user("plot every column")
    pngs = [
        Attachment(mime="image/png", url="data:image/png;base64,AAAA", filename=f"col{i}.png")
        for i in range(500)
    ]
    t = tool("python", output="done", code="plot_all()")
    t = t.model_copy(update={"state": t.state.model_copy(update={"attachments": pngs})})
    result = next(m for m in build_compaction_request([u, assistant(u, t)], None) if m["role"] == "tool")
    lines = result["content"].split("\n")
    assert lines[:2] == ["done", "[Attached image/png: col0.png]"]
    assert lines[-1] == "[and 490 more attachments]" and len(lines) == 12
