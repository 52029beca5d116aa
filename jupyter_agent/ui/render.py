"""Bus events → compact UI messages for the widget and the side panel (pure, no widget import).

Streaming text goes out as ``delta`` messages (only what was appended), coalesced to one
message per part every ~50 ms, so UI traffic grows with the text, not with its square
(re-sending a whole part per token costs O(text²): 2,000 tokens → 15 MB).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable

from pydantic import ValidationError

from jupyter_agent.context.overflow import gauge_text
from jupyter_agent.core.events import (
    AnyEvent,
    MessageRemoved,
    MessageUpdated,
    PartRemoved,
    PartUpdated,
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    ReviewChanged,
    RunFinished,
    RunStarted,
    SessionCompacted,
    SessionDeleted,
    SessionErrored,
    SessionUpdated,
)
from jupyter_agent.core.messages import (
    AnyMessage,
    AnyPart,
    AssistantMessage,
    CompactionPart,
    FilePart,
    MessageWithParts,
    ReasoningPart,
    RetryPart,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
)
from jupyter_agent.session.display import CODE_INPUTS, cap_output, input_summary, without_attachment_notes
from jupyter_agent.session.display import OUTPUT_CAP as OUTPUT_CAP  # the widget's cap, named here too
from jupyter_agent.ui.widget_protocol import (
    AnyPartView,
    AttachmentView,
    CompactedMsg,
    CompactionView,
    DeltaMsg,
    ErrorView,
    FileView,
    GaugeMsg,
    MessageMsg,
    MessageView,
    NoticeMsg,
    PartMsg,
    PermissionDoneMsg,
    PermissionMsg,
    PermissionView,
    ProgressView,
    ReasoningView,
    RemovedMsg,
    RetryView,
    ReviewMsg,
    StatusMsg,
    SubtaskView,
    TextView,
    ToolView,
    UIMessage,
)

FLUSH_INTERVAL_S = 0.05
MAX_STARTED = 1_000
WARN_PERCENT, HIGH_PERCENT = 70, 90


def gauge_message(tokens: int, percent: int | None, cost: str = "") -> GaugeMsg:
    """SPEC "Token accounting and the gauge": ``"<n> tokens · <p>% used"``, then what the
    prompt and the session cost so far (``cost``, see ``CostTracker.text``)."""
    usage = gauge_text(tokens, percent)
    text = usage + (f" · {cost}" if cost else "")
    level = (
        "ok" if percent is None or percent < WARN_PERCENT
        else "warn" if percent < HIGH_PERCENT
        else "high"
    )  # fmt: skip
    return GaugeMsg(tokens=tokens, percent=percent, text=text, level=level, usage=usage, cost=cost or None)


def _tool_view(part: ToolPart) -> ToolView:
    state = part.state
    view = ToolView(
        id=part.id, message_id=part.message_id, tool=part.tool, status=state.status,
        input=input_summary(state.input), call_id=part.call_id or None,
    )  # fmt: skip
    key, lang = CODE_INPUTS.get(part.tool, ("", ""))
    code = state.input.get(key) if key else None
    if isinstance(code, str) and code.strip():
        view.code, view.lang = cap_output(code.strip("\n")), lang
    if isinstance(state, ToolStateRunning):
        live = state.metadata.get("output")
        view.title = state.title or None
        view.output = cap_output(live) if isinstance(live, str) and live else None
        progress = state.metadata.get("progress")
        if isinstance(progress, dict):
            with contextlib.suppress(ValidationError):  # whatever a server sent: no bar, not a broken view
                view.progress = ProgressView.model_validate(progress)
    elif isinstance(state, ToolStateCompleted):
        view.title = state.title or None
        shown = without_attachment_notes(state.output, state.attachments)
        view.output = cap_output(shown) if shown or not state.attachments else None
        view.attachments = [
            AttachmentView(mime=a.mime, url=a.url, filename=a.filename) for a in state.attachments
        ]
        view.pruned = state.time.compacted is not None or None
    elif isinstance(state, ToolStateError):
        view.error = cap_output(state.error)
        view.interrupted = bool(state.metadata.get("interrupted")) or None
        view.rejected = bool(state.metadata.get("rejected")) or None
    return view


def part_view(part: AnyPart) -> AnyPartView | None:
    """A display snapshot of a part; None for parts the UI does not show."""
    ids = {"id": part.id, "message_id": part.message_id}
    match part:
        case TextPart(synthetic=False, ignored=False):
            return TextView(**ids, text=part.text)
        case ReasoningPart():
            return ReasoningView(**ids, text=part.text)
        case ToolPart():
            return _tool_view(part)
        case RetryPart():
            return RetryView(**ids, attempt=part.attempt, error=part.error.message, next=part.next)
        case CompactionPart():
            return CompactionView(**ids, auto=part.auto, overflow=part.overflow)
        case FilePart():
            return FileView(**ids, mime=part.mime, url=part.url, filename=part.filename)
        case SubtaskPart():
            return SubtaskView(**ids, agent=part.agent, title=part.description)
    return None  # synthetic or ignored text, step-start, step-finish, patch: not shown


class Renderer:
    """Turns events into UI messages, remembering what each part already showed.

    Text parts: the first event sends a ``part`` snapshot, later ones only ``delta``s
    (or a fresh snapshot when the text no longer matches what was sent). Other parts
    are re-sent only when what the user sees changed.
    """

    def __init__(self) -> None:
        self._text_sent: dict[str, int] = {}
        self._views: dict[str, AnyPartView] = {}
        self._compacting = False
        self._model: str | None = None
        """The running model (``RunStarted``), named by every busy status."""

    def part(self, part: AnyPart, delta: str | None = None) -> list[UIMessage]:
        if delta is not None and isinstance(part, (TextPart, ReasoningPart)):
            sent = self._text_sent.get(part.id)
            if sent is not None and sent + len(delta) == len(part.text):  # the streaming path
                self._text_sent[part.id] = sent + len(delta)
                return [DeltaMsg(part_id=part.id, text=delta)] if delta else []
        view = part_view(part)
        if view is None:
            return []
        if isinstance(view, TextView | ReasoningView):
            sent = self._text_sent.get(part.id)
            self._text_sent[part.id] = len(view.text)
            if sent is None or sent + len(delta or "") != len(view.text):
                return [PartMsg(part=view)]
            return [DeltaMsg(part_id=part.id, text=delta)] if delta else []
        if self._views.get(part.id) == view:
            return []
        self._views[part.id] = view
        return [PartMsg(part=view)]

    def history(self, messages: Iterable[MessageWithParts]) -> list[UIMessage]:
        """Snapshots of stored messages (a re-displayed widget shows the past turns)."""
        out: list[UIMessage] = []
        for entry in messages:
            out.append(message_message(entry.info))
            for part in entry.parts:
                out.extend(self.part(part))
        return out

    def render(self, event: AnyEvent) -> list[UIMessage]:
        if isinstance(event, PartUpdated):
            return self.part(event.part, event.delta)
        if isinstance(event, MessageUpdated):
            return [message_message(event.message)]
        if isinstance(event, PartRemoved):
            self._forget(event.part_id)
            return [RemovedMsg(message_id=event.message_id, part_id=event.part_id)]
        if isinstance(event, MessageRemoved):
            return [RemovedMsg(message_id=event.message_id)]
        if isinstance(event, PermissionAsked):
            return [permission_message(event.request)]
        if isinstance(event, PermissionReplied):
            return [PermissionDoneMsg(request_id=event.request_id, reply=event.reply)]
        if isinstance(event, ReviewChanged):
            return [ReviewMsg(pending=event.pending)]
        if isinstance(event, SessionCompacted):
            return [CompactedMsg()]
        if isinstance(event, SessionErrored):
            return [StatusMsg(state="error", text=event.error.message)]
        if isinstance(event, SessionUpdated):
            return self._compaction_status(event.session.time.compacting is not None)
        if isinstance(event, RunStarted):
            self._model = event.model.name
            return [StatusMsg(state="busy", model=self._model)]
        if isinstance(event, RunFinished):
            self._compacting = False
            return [] if event.queued else [StatusMsg(state="idle", model=self._model)]
        if isinstance(event, SessionDeleted):
            return [NoticeMsg(text="This session was deleted.", level="warn")]
        return []

    def _compaction_status(self, compacting: bool) -> list[UIMessage]:
        if compacting == self._compacting:
            return []
        self._compacting = compacting
        text = "Summarising the history…" if compacting else "Working…"
        return [StatusMsg(state="busy", text=text, model=self._model)]

    def _forget(self, part_id: str) -> None:
        self._text_sent.pop(part_id, None)
        self._views.pop(part_id, None)


def permission_message(r: PermissionRequest) -> PermissionMsg:
    """An approval box (also replayed to a view that opens while the request waits): what
    would change (a diff) and what "Always" would allow, in words."""
    diff, always = r.metadata.get("diff"), r.metadata.get("always")
    view = PermissionView(
        id=r.id,
        permission=r.permission,
        patterns=r.patterns,
        title=r.title,
        diff=diff if isinstance(diff, str) and diff else None,
        always=always if isinstance(always, str) and always else None,
        call_id=r.call_id,
    )
    return PermissionMsg(request=view)


def message_message(info: AnyMessage) -> MessageMsg:
    """A message header: role, agent, error, summary flag, finish."""
    view = MessageView(id=info.id, role=info.role, agent=info.agent)
    if isinstance(info, AssistantMessage):
        view.summary = info.summary
        view.finish = info.finish
        if info.error is not None:
            view.error = ErrorView(name=info.error.name, message=info.error.message)
    return MessageMsg(message=view)


class DeltaBuffer:
    """Coalesces deltas per part for ``interval`` seconds; other messages keep their order.

    The first delta of a part goes out at once (the user sees the answer start without
    waiting a window); after it, the first pending delta opens a window and a later push
    after the window closes, or the owner's timer calling :meth:`flush`, sends one
    ``delta`` per part. A non-delta message flushes pending deltas first so nothing
    overtakes the text before it; a gauge (state, not part of the text) waits for the open
    window instead and goes out after its deltas, so it costs no message of its own.
    """

    def __init__(
        self,
        send: Callable[[UIMessage], None],
        clock: Callable[[], float] = time.monotonic,
        interval: float = FLUSH_INTERVAL_S,
    ) -> None:
        self._send = send
        self._clock = clock
        self._interval = interval
        self._pending: dict[str, list[str]] = {}
        self._gauge: GaugeMsg | None = None
        self._opened: float | None = None
        self._started: set[str] = set()
        """Parts whose first delta was sent (bounded: cleared past ``MAX_STARTED``)."""

    @property
    def pending(self) -> bool:
        return bool(self._pending) or self._gauge is not None

    def push(self, message: UIMessage) -> bool:
        """Send or queue ``message``; True while deltas wait for a :meth:`flush`."""
        if isinstance(message, GaugeMsg) and self._pending:
            self._gauge = message  # the newest wins
            return True
        if not isinstance(message, DeltaMsg):
            self.flush()
            self._send(message)
            return False
        if message.part_id not in self._started:
            if len(self._started) >= MAX_STARTED:
                self._started.clear()  # worst case: one more part's first delta goes at once
            self._started.add(message.part_id)
            self.flush()
            self._send(message)
            return False
        self._pending.setdefault(message.part_id, []).append(message.text)
        now = self._clock()
        if self._opened is None:
            self._opened = now
        elif now - self._opened >= self._interval:
            self.flush()
        return self.pending

    def flush(self) -> None:
        pending, self._pending, self._opened = self._pending, {}, None
        gauge, self._gauge = self._gauge, None
        for part_id, chunks in pending.items():
            self._send(DeltaMsg(part_id=part_id, text="".join(chunks)))
        if gauge is not None:
            self._send(gauge)
