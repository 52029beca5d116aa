"""What a model's reasoning becomes in later requests (SPEC "Stored messages → model messages").

The model that wrote it gets it back: Anthropic as its signed thinking blocks, an
OpenAI-compatible reasoning model (DeepSeek, Qwen, vLLM's reasoning parsers) as
``reasoning_content`` on the assistant message, which keeps its quality and its prompt cache
across tool calls. Another model gets none of it. A summary request reads it as labelled lines.
"""

from __future__ import annotations

from jupyter_agent.core.chat import ChatAssistant
from jupyter_agent.core.messages import ReasoningPart

LABEL = "[Assistant reasoning]: "
"""How the summariser is shown a reasoning part (OpenCode's words)."""


def own_reasoning(message: ChatAssistant, reasoning: list[ReasoningPart], *, anthropic: bool) -> None:
    """Put ``reasoning`` back on ``message`` for the model that wrote it: Anthropic's signed
    thinking blocks (unsigned thinking is no use to Claude), else the text as
    ``reasoning_content`` (litellm drops it for providers that refuse the field)."""
    blocks = [
        block
        for p in reasoning
        if p.provider_metadata
        for block in p.provider_metadata.get("thinking_blocks", [])
    ]
    text = "".join(p.text for p in reasoning)
    if blocks:
        message["thinking_blocks"] = blocks
    elif text and not anthropic:
        message["reasoning_content"] = text


def reasoning_lines(reasoning: list[ReasoningPart], cap: int) -> list[str]:
    """``[Assistant reasoning]: …`` per non-empty part, cut at ``cap`` chars like a tool output
    in the summary input (a reasoning model's thinking would otherwise crowd out the rest)."""
    lines = []
    for p in reasoning:
        if not p.text.strip():
            continue
        shown = p.text
        if len(shown) > cap:
            omitted = len(shown) - cap
            shown = f"{shown[:cap]}\n[Reasoning truncated for compaction: omitted {omitted} chars]"
        lines.append(f"{LABEL}{shown}")
    return lines
