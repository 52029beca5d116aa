"""The side panel's switch for inline completion: its state shown, its clicks applied.

Kept apart from ``panel.py`` so the switch can move (to a settings view) without touching
the connection: the panel calls ``watch`` when it greets and ``toggle`` on a click.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jupyter_agent.kernel.inline_completer import CompletionState, completer
from jupyter_agent.ui.inline_protocol import InlineStateMsg


def state_message(state: CompletionState) -> InlineStateMsg:
    return InlineStateMsg(
        enabled=state.enabled,
        debounce_ms=state.debounce_ms,
        context_chars=state.context_chars,
        reason=state.reason,
    )


def watch(agent: Any, send: Callable[[InlineStateMsg], None]) -> Callable[[], None]:
    """Send the state now and on every change; returns what stops that."""
    found = completer(agent)

    def told(state: CompletionState) -> None:
        send(state_message(state))

    found.watchers.append(told)
    told(found.state())

    def off() -> None:
        if told in found.watchers:
            found.watchers.remove(told)

    return off


def toggle(agent: Any, enabled: bool) -> str:
    """Turn inline completion on or off in this kernel; the line to show (a lock says so)."""
    return completer(agent).set_enabled(enabled)
