"""Build each step's request incrementally: per-step work grows with new content only.

The visible history (``filter_compacted``) and its provider messages are kept between
steps; only messages the recorder reports as changed (usually the last few) are converted
again. A compaction, a removal or an out-of-order insert rebuilds from scratch.
Reminders (``<system-reminder>`` wrapping, plan/build notes) are applied to a copy of
the last few messages only, never stored.
"""

from __future__ import annotations

from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.context.compaction import filter_compacted
from jupyter_agent.context.to_provider import (
    MessageCache,
    apply_caching,
    to_model_messages,
    wrap_system_reminder,
)
from jupyter_agent.core import ids
from jupyter_agent.core.agents import AgentInfo
from jupyter_agent.core.chat import ChatMessage, ChatSystem
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    TextPart,
    UserMessage,
)
from jupyter_agent.prompts import load_prompt


def _resets_view(m: MessageWithParts) -> bool:
    """Messages whose change can move the compaction boundary."""
    if isinstance(m.info, AssistantMessage):
        return m.info.summary
    return any(isinstance(p, CompactionPart) for p in m.parts)


class RequestBuilder:
    def __init__(self, recorder: Recorder, model: str, vision: bool, media_in_tools: bool) -> None:
        self.recorder = recorder
        self.model = model
        self.vision = vision
        self.media_in_tools = media_in_tools
        self._cache = MessageCache()
        self._structure = -1
        self._log_pos = 0
        self._seen = 0
        self._visible: list[MessageWithParts] = []
        self._pos: dict[str, int] = {}
        self._flat: list[ChatMessage] = [ChatSystem(role="system", content="")]
        """The request itself, kept between steps: system message, then the history."""
        self._starts: list[int] = []
        self._edited_from: int | None = None
        """First position rewritten with reminders last time: rebuilt before reuse."""

    def _convert(self, messages: list[MessageWithParts]) -> list[ChatMessage]:
        return to_model_messages(
            messages,
            model=self.model,
            supports_media_in_tool_results=self.media_in_tools,
            supports_vision=self.vision,
            cache=self._cache,
        )

    def visible(self) -> list[MessageWithParts]:
        """What the model sees, updated from the recorder's change log."""
        rec = self.recorder
        history = rec.window()
        changed = rec.changes_since(self._log_pos)
        self._log_pos = rec.change_count()
        fresh = history[self._seen :]
        full = (
            rec.structure != self._structure
            or any(_resets_view(m) for m in fresh)
            or any((m := rec.find(mid)) is not None and _resets_view(m) for mid in changed)
        )
        if full:
            self._visible = filter_compacted(history)
            self._structure = rec.structure
            self._pos = {m.info.id: i for i, m in enumerate(self._visible)}
            del self._flat[1:]
            self._starts = []
            first = 0
        else:
            first = len(self._visible)
            for m in fresh:
                self._pos[m.info.id] = len(self._visible)
                self._visible.append(m)
            for mid in changed:
                pos = self._pos.get(mid)
                if pos is not None and pos < first:
                    first = pos
        self._seen = len(history)
        if self._edited_from is not None:
            first = min(first, self._edited_from)
            self._edited_from = None
        self._rebuild_from(min(first, len(self._starts)))
        return self._visible

    def _rebuild_from(self, first: int, edits: dict[int, MessageWithParts] | None = None) -> None:
        if first < len(self._starts):
            del self._flat[self._starts[first] :]
            del self._starts[first:]
        for pos in range(first, len(self._visible)):
            m = (edits or {}).get(pos, self._visible[pos])
            self._starts.append(len(self._flat))
            self._flat.extend(self._convert([m]))

    def build(self, agent: AgentInfo, system: str, remind_after: str | None) -> list[ChatMessage]:
        """System prompt + visible history; reminders rewrite only the newest messages.

        The returned list is reused by the next step (callers must not mutate it).
        """
        self.visible()
        if self._flat[0]["content"] != system:
            self._flat[0] = ChatSystem(role="system", content=system)
        edits = self._reminders(agent, remind_after)
        if edits:
            self._edited_from = min(edits)
            self._rebuild_from(self._edited_from, edits)
        return apply_caching(self._flat, self.model)

    def _reminders(self, agent: AgentInfo, after: str | None) -> dict[int, MessageWithParts]:
        """Copies of user messages to wrap (sent mid-loop) and the mode reminder on the last."""
        edits: dict[int, MessageWithParts] = {}
        last_user: int | None = None
        for pos in range(len(self._visible) - 1, -1, -1):
            m = self._visible[pos]
            if not isinstance(m.info, UserMessage):
                continue
            if last_user is None:
                last_user = pos
            if after is not None and m.info.id > after:
                edits[pos] = _wrapped(m)
            else:
                break
        if last_user is not None:
            note = self._mode_note(agent, last_user)
            if note is not None:
                base = edits.get(last_user, self._visible[last_user])
                extra = TextPart(
                    id=ids.ascending("prt"),
                    session_id=base.info.session_id,
                    message_id=base.info.id,
                    text=note,
                    synthetic=True,
                )
                edits[last_user] = MessageWithParts(info=base.info, parts=[*base.parts, extra])
        return edits

    def _mode_note(self, agent: AgentInfo, last_user: int) -> str | None:
        if agent.name == "plan":
            return load_prompt("plan_reminder")
        if agent.name == "build":
            for pos in range(last_user - 1, -1, -1):
                info = self._visible[pos].info
                if isinstance(info, AssistantMessage):
                    return load_prompt("build_switch") if info.agent == "plan" else None
        return None


def _wrapped(m: MessageWithParts) -> MessageWithParts:
    """The user's own texts in a reminder; an empty text stays empty (and is never sent)."""
    parts = [
        p.model_copy(update={"text": wrap_system_reminder(p.text)})
        if isinstance(p, TextPart) and not p.synthetic and not p.ignored and p.text.strip()
        else p
        for p in m.parts
    ]
    return MessageWithParts(info=m.info, parts=parts)
