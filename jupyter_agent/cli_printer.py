"""What ``jupyter-agent run`` prints: the answer streamed to stdout, tool progress, retries
and notices to stderr (or every event as a JSON line), and the cost at the end."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from jupyter_agent.agent.retrying import describe_wait
from jupyter_agent.core import cost
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import AnyEvent, PartUpdated, SessionErrored
from jupyter_agent.session.rendering import Rendered, render_part

if TYPE_CHECKING:
    from jupyter_agent.agent.recorder import Recorder


class Printer:
    """Prints streamed text to stdout and tool progress to stderr (or JSON lines)."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self._tool_status: dict[str, str] = {}
        self._streamed: set[str] = set()
        self._attempt_text = False
        """Text of the current stream attempt is on stdout: a retry must say it starts over."""

    def __call__(self, event: AnyEvent) -> None:
        if self.as_json:
            print(event.model_dump_json(), flush=True)
            return
        if isinstance(event, PartUpdated):
            shown = render_part(event.part)
            if shown is not None:
                self._show(event.part.id, shown, event.delta)
        elif isinstance(event, SessionErrored):
            print(f"error: {event.error.message}", file=sys.stderr)

    def _show(self, part_id: str, shown: Rendered, delta: str | None) -> None:
        if shown.boundary:
            self._attempt_text = False
        elif delta and shown.text and not shown.aside:  # the answer streams, the thinking does not
            self._streamed.add(part_id)
            self._attempt_text = True
            sys.stdout.write(delta)
            sys.stdout.flush()
        elif shown.done and part_id in self._streamed:
            sys.stdout.write("\n")
        elif shown.name and self._tool_status.get(part_id) != shown.status:
            self._tool_status[part_id] = shown.status
            if shown.done:
                print(f"[{shown.name}] {shown.status} {shown.error}".rstrip(), file=sys.stderr)
        elif shown.attempt is not None and self._attempt_text:
            # the text above is dropped from the store; what follows replaces it
            sys.stdout.write(f"\n[retrying: {shown.error}]\n")
            sys.stdout.flush()
            self._attempt_text = False
        elif shown.attempt is not None:
            wait = describe_wait(max(0, shown.next - now_ms()))
            print(f"[retry {shown.attempt} in {wait}] {shown.error}", file=sys.stderr)


def print_notice(notice: str, level: str = "info") -> None:
    print(f"note: {notice}", file=sys.stderr)


def print_cost(recorder: Recorder, session_id: str, as_json: bool) -> None:
    """What this prompt and the session cost: a stderr line, or a ``run.cost`` JSON line
    (the session's older messages are read without their parts)."""
    turn, session = cost.prompt_cost(recorder.window()), recorder.spent()
    if as_json:
        line = {
            "type": "run.cost",
            "session_id": session_id,
            "prompt_usd": turn.usd,
            "session_usd": session.usd,
            "unknown": turn.unknown or session.unknown,
            "text": cost.pair_text(turn, session),
        }
        print(json.dumps(line), flush=True)
    else:
        print(f"cost: {cost.pair_text(turn, session).removeprefix('cost ')}", file=sys.stderr)
