"""Stored messages → the chat messages litellm sends (SPEC "Stored messages → model messages").

Every tool call gets a result (interrupted ones included) because providers reject a
dangling call; pruned outputs become a short placeholder; images produced by tools go
where the provider accepts them. Conversions are cached per message version so a step
costs O(new content), not O(history).
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any

from jupyter_agent.context.reasoning import own_reasoning, reasoning_lines
from jupyter_agent.core.chat import (
    ChatAssistant,
    ChatBlock,
    ChatImage,
    ChatMessage,
    ChatText,
    ChatToolCall,
    ChatToolResult,
    ChatUser,
)
from jupyter_agent.core.messages import (
    AssistantMessage,
    Attachment,
    CompactionPart,
    FilePart,
    MessageWithParts,
    ReasoningPart,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    UserMessage,
)

CLEARED = "[Old tool result content cleared]"
INTERRUPTED = "[Tool execution was interrupted]"
COMPACTION_QUESTION = "What did we do so far?"
SUBTASK_TEXT = "The following tool was executed by the user"
ATTACHED_FROM_TOOL = "Attached image(s) from tool result:"
NO_VISION = "[Image omitted: this model cannot view images. Describe or summarise data as text instead.]"
COMPACTION_OUTPUT_CAP = 2000
COMPACTION_ATTACHMENT_LINES = 10


def wrap_system_reminder(text: str) -> str:
    return (
        "<system-reminder>\nThe user sent the following message:\n"
        f"{text}\n\nPlease address this message and continue with your tasks.\n</system-reminder>"
    )


def is_anthropic_family(model: str) -> bool:
    """A Claude model, whoever serves it (``anthropic/``, ``bedrock/``, a proxy alias): the
    one check for Anthropic's rules (cache markers, tool call ids, provider family)."""
    lowered = model.lower()
    return "anthropic" in lowered or "claude" in lowered


def _sanitize_id(call_id: str, model: str) -> str:
    """Anthropic accepts only ``[A-Za-z0-9_-]`` in tool call ids."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", call_id) if is_anthropic_family(model) else call_id


def _media_note(mime: str, name: str | None) -> str:
    return f"[Attached {mime}: {name or 'file'}]"


def _image_block(url: str) -> ChatImage:
    return {"type": "image_url", "image_url": {"url": url}}


def _text_block(text: str) -> ChatText:
    return {"type": "text", "text": text}


class _Options:
    def __init__(self, model: str, media_in_tools: bool, vision: bool, compaction: bool) -> None:
        self.model = model
        self.media_in_tools = media_in_tools
        self.vision = vision
        self.compaction = compaction
        self.anthropic = is_anthropic_family(model)

    def key(self) -> tuple[Any, ...]:
        return (self.model, self.media_in_tools, self.vision, self.compaction)


def _user(m: MessageWithParts, opt: _Options) -> list[ChatMessage]:
    blocks: list[ChatBlock] = []
    for p in m.parts:
        if isinstance(p, TextPart) and not p.ignored:
            if p.text.strip():  # empty texts are never sent (Anthropic refuses them)
                blocks.append(_text_block(p.text))
        elif isinstance(p, CompactionPart):
            blocks.append(_text_block(COMPACTION_QUESTION))
        elif isinstance(p, SubtaskPart):
            blocks.append(_text_block(SUBTASK_TEXT))
        elif isinstance(p, FilePart):
            if opt.compaction or not p.mime.startswith("image/"):
                blocks.append(_text_block(_media_note(p.mime, p.filename)))
            elif opt.vision:
                blocks.append(_image_block(p.url))
            else:
                blocks.append(_text_block(NO_VISION))
    if not blocks:
        return []
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    if len(texts) == len(blocks):
        return [ChatUser(role="user", content="\n".join(texts))]
    return [ChatUser(role="user", content=blocks)]


def _tool_output(p: ToolPart, opt: _Options) -> str:
    state = p.state
    if isinstance(state, ToolStateCompleted):
        if state.time.compacted:
            return CLEARED
        output = state.output
        if opt.compaction and len(output) > COMPACTION_OUTPUT_CAP:
            omitted = len(output) - COMPACTION_OUTPUT_CAP
            output = (
                output[:COMPACTION_OUTPUT_CAP]
                + f"\n[Tool output truncated for compaction: omitted {omitted} chars]"
            )
        if opt.compaction:  # the summariser learns a plot was made, not its pixels
            media = state.attachments
            notes = [_media_note(a.mime, a.filename) for a in media[:COMPACTION_ATTACHMENT_LINES]]
            if len(media) > COMPACTION_ATTACHMENT_LINES:
                notes.append(f"[and {len(media) - COMPACTION_ATTACHMENT_LINES} more attachments]")
            output = "\n".join(x for x in (output, *notes) if x)
        return output
    if isinstance(state, ToolStateError):
        return state.error
    return INTERRUPTED


def _assistant(m: MessageWithParts, opt: _Options) -> list[ChatMessage]:
    info = m.info
    assert isinstance(info, AssistantMessage)
    texts = [p.text for p in m.parts if isinstance(p, TextPart) and not p.ignored]
    tools = [p for p in m.parts if isinstance(p, ToolPart)]
    reasoning = [p for p in m.parts if isinstance(p, ReasoningPart)]
    if info.error is not None:
        has_content = any(t.strip() for t in texts) or bool(tools)
        if info.error.name != "aborted" or not has_content:
            return []
    text = "".join(texts)
    if opt.compaction:  # the summariser reads the reasoning as labelled lines (OpenCode's shape)
        text = "\n".join([*reasoning_lines(reasoning, COMPACTION_OUTPUT_CAP), *([text] if text else [])])
    out: list[ChatMessage] = []
    message = ChatAssistant(role="assistant", content=text if text or not tools else None)
    # provider metadata (signatures) is valid only for the model that wrote it, never in summaries
    same_model = not opt.compaction and info.model == opt.model
    if tools:
        message["tool_calls"] = [_tool_call(p, opt, same_model) for p in tools]
    if same_model:
        own_reasoning(message, reasoning, anthropic=opt.anthropic)
    if message.get("content") is None and not tools:
        return []
    if opt.anthropic and not text and tools:
        message.pop("content")
    out.append(message)
    moved: list[Attachment] = []
    for p in tools:
        output = _tool_output(p, opt)
        content: str | list[ChatBlock] = output
        state = p.state
        media = (
            state.attachments
            if isinstance(state, ToolStateCompleted) and not state.time.compacted and not opt.compaction
            else []
        )
        images = [a for a in media if a.mime.startswith("image/")]
        if images and not opt.vision:
            content = f"{output}\n{NO_VISION}"
        elif images and opt.media_in_tools:
            content = [_text_block(output), *(_image_block(a.url) for a in images)]
        elif images:
            moved.extend(images)
        call_id = _sanitize_id(p.call_id, opt.model)
        out.append(ChatToolResult(role="tool", tool_call_id=call_id, content=content))
    if moved:
        out.append(
            ChatUser(
                role="user",
                content=[_text_block(ATTACHED_FROM_TOOL), *(_image_block(a.url) for a in moved)],
            )
        )
    return out


def _tool_call(p: ToolPart, opt: _Options, same_model: bool) -> ChatToolCall:
    call = ChatToolCall(
        id=_sanitize_id(p.call_id, opt.model),
        type="function",
        function={"name": p.tool, "arguments": json.dumps(p.state.input)},
    )
    if same_model and p.provider_metadata:
        call["provider_specific_fields"] = p.provider_metadata
    return call


def convert_message(m: MessageWithParts, opt: _Options) -> list[ChatMessage]:
    if not m.parts or all(p.type == "step-start" for p in m.parts):
        return []
    if isinstance(m.info, UserMessage):
        return _user(m, opt)
    return _assistant(m, opt)


class MessageCache:
    """Converted messages keyed by content identity: message id and each part's id + content.

    Owned by one request builder and bounded (LRU). The key holds the very values the
    conversion reads (texts, outputs, inputs), so an edit that keeps a text's length
    and ending still misses; equal strings compare by identity first, so a hit is cheap.
    """

    def __init__(self, size: int = 20_000) -> None:
        self._data: OrderedDict[tuple[Any, ...], list[ChatMessage]] = OrderedDict()
        self._size = size

    def __len__(self) -> int:
        return len(self._data)

    def get(self, m: MessageWithParts, opt: _Options) -> list[ChatMessage]:
        info = m.info
        error = getattr(info, "error", None)
        fingerprint = (
            info.id,
            info.role,
            error.name if error is not None else None,
            tuple(_part_version(p) for p in m.parts),
            opt.key(),
        )
        hit = self._data.get(fingerprint)
        if hit is None:
            hit = convert_message(m, opt)
            self._data[fingerprint] = hit
            if len(self._data) > self._size:
                self._data.popitem(last=False)
        else:
            self._data.move_to_end(fingerprint)
        return [x.copy() for x in hit]


def _part_version(p: Any) -> Any:
    """Everything ``convert_message`` reads from a part (content, not a length or a hash)."""
    if isinstance(p, ToolPart):
        state = p.state
        if isinstance(state, ToolStateCompleted):
            content: Any = (
                state.output,
                state.time.compacted,
                tuple((a.mime, a.url, a.filename) for a in state.attachments),
            )
        elif isinstance(state, ToolStateError):
            content = state.error
        else:
            content = None
        meta = _frozen(p.provider_metadata or {})
        return (p.id, p.type, p.call_id, p.tool, state.status, _frozen(state.input), content, meta)
    if isinstance(p, TextPart):
        return (p.id, p.type, p.text, p.ignored, p.synthetic)
    if isinstance(p, FilePart):
        return (p.id, p.type, p.mime, p.url, p.filename)
    if isinstance(p, ReasoningPart):
        return (p.id, p.type, p.text, _frozen(p.provider_metadata or {}))
    return (p.id, p.type)


def _frozen(value: Any) -> Any:
    """A hashable copy of a JSON value (tool inputs are dicts)."""
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return ("__list__", *(_frozen(v) for v in value))
    return (type(value).__name__, value)  # True == 1 == 1.0, but they serialise differently


def to_model_messages(
    history: list[MessageWithParts],
    *,
    model: str,
    supports_media_in_tool_results: bool = False,
    supports_vision: bool = False,
    for_compaction: bool = False,
    cache: MessageCache | None = None,
) -> list[ChatMessage]:
    """The provider messages for ``history`` (system prompt not included)."""
    opt = _Options(model, supports_media_in_tool_results, supports_vision, for_compaction)
    out: list[ChatMessage] = []
    for m in history:
        out.extend(cache.get(m, opt) if cache is not None else convert_message(m, opt))
    return out


def apply_caching(messages: list[ChatMessage], model: str) -> list[ChatMessage]:
    """Anthropic-family only: cache markers on the first 2 system and last 2 other messages.

    Each mark goes where litellm keeps it: on the last tool call of an assistant message
    with tool calls (litellm drops a message-level mark there), else on the last content
    block or the message. Returns a new list; other providers get the input back.
    """
    if not is_anthropic_family(model):
        return messages
    system: list[int] = []
    for i, m in enumerate(messages):
        if m["role"] != "system" or len(system) == 2:
            break
        system.append(i)
    rest: list[int] = []
    for i in range(len(messages) - 1, -1, -1):
        if len(rest) == 2:
            break
        if messages[i]["role"] != "system":
            rest.append(i)
    out = list(messages)
    for i in system + rest:
        out[i] = _marked(out[i])
    return out


def _marked(message: ChatMessage) -> ChatMessage:
    """A copy of ``message`` with one cache mark (the input is shared between steps)."""
    msg = message.copy()
    content = msg.get("content")
    if msg["role"] == "assistant" and msg.get("tool_calls"):
        calls = [c.copy() for c in msg["tool_calls"]]
        calls[-1]["cache_control"] = {"type": "ephemeral"}
        msg["tool_calls"] = calls
    elif isinstance(content, list) and content:
        blocks = [b.copy() for b in content]
        blocks[-1]["cache_control"] = {"type": "ephemeral"}
        msg["content"] = blocks
    else:
        msg["cache_control"] = {"type": "ephemeral"}
    return msg
