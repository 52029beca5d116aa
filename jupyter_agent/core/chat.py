"""What a model request carries: chat messages and tool specs in OpenAI's chat-completions
shape, which litellm takes for every provider.

Typed dicts, not models: a step's request reuses the dicts converted for earlier steps
(``context/to_provider.py`` caches them per message), so building it costs O(new content);
validating or copying the whole history per step would not.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, TypedDict

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # pragma: no cover (Python 3.10; pydantic depends on typing_extensions)
    from typing_extensions import NotRequired


class CacheControl(TypedDict):
    """Anthropic's prompt-cache mark (``apply_caching``): cache everything up to here."""

    type: Literal["ephemeral"]


class ImageUrl(TypedDict):
    url: str
    """A ``data:`` URL (tool output, an attached image) or a link."""


class ChatText(TypedDict):
    type: Literal["text"]
    text: str
    cache_control: NotRequired[CacheControl]


class ChatImage(TypedDict):
    type: Literal["image_url"]
    image_url: ImageUrl
    cache_control: NotRequired[CacheControl]


ChatBlock = ChatText | ChatImage
"""One block of a message whose content is a list: text with images from a user or a tool
(a system or assistant message may be text blocks too; the provider refuses images there)."""


class FunctionCall(TypedDict):
    name: str
    arguments: str
    """The JSON text of the call's input."""


class ChatToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: FunctionCall
    provider_specific_fields: NotRequired[dict[str, Any]]
    """What the provider needs back with the call (Gemini's thought signatures)."""
    cache_control: NotRequired[CacheControl]


class ChatSystem(TypedDict):
    role: Literal["system"]
    content: str | list[ChatBlock]
    cache_control: NotRequired[CacheControl]


class ChatUser(TypedDict):
    role: Literal["user"]
    content: str | list[ChatBlock]
    cache_control: NotRequired[CacheControl]


class ChatAssistant(TypedDict):
    role: Literal["assistant"]
    content: NotRequired[str | list[ChatBlock] | None]
    """None (or absent, for Anthropic) when the answer is tool calls only."""
    tool_calls: NotRequired[list[ChatToolCall]]
    thinking_blocks: NotRequired[list[dict[str, Any]]]
    """Anthropic's signed thinking, sent back to the model that wrote it."""
    reasoning_content: NotRequired[str]
    """An OpenAI-compatible model's reasoning (DeepSeek, Qwen, vLLM's reasoning parsers), sent
    back to the model that wrote it; litellm drops it for providers that refuse it."""
    cache_control: NotRequired[CacheControl]


class ChatToolResult(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str | list[ChatBlock]
    cache_control: NotRequired[CacheControl]


ChatMessage = ChatSystem | ChatUser | ChatAssistant | ChatToolResult
"""One message of a request, told apart by ``role``."""


class FunctionSpec(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]
    """The JSON schema of the tool's input."""


class ToolSpec(TypedDict):
    """A tool the model may call, as litellm forwards it to every provider."""

    type: Literal["function"]
    function: FunctionSpec
