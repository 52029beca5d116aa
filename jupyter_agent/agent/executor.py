"""Run one step's tool calls in order, after the model has finished the step.

Three identical calls of one tool in a row ask ``doom_loop`` first; a refusal records the
repeated call and the rest as rejected and ends the step (the processor says why).
"""

from __future__ import annotations

from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.tool_runner import ToolRunner
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import ToolPart, ToolStateError, ToolTimeError
from jupyter_agent.tools.base import PermissionDenied, PermissionQuestion

DOOM_LOOP_THRESHOLD = 3


async def run_tool_calls(
    recorder: Recorder, runner: ToolRunner, calls: list[tuple[ToolPart, str]]
) -> tuple[ToolPart, str] | None:
    """Run each (part, raw arguments); returns the refused doom-loop call and why, if any."""
    for index, (part, raw) in enumerate(calls):
        if _is_doom_loop(recorder, part):
            try:
                await runner.ask(
                    part,
                    PermissionQuestion(
                        "doom_loop",
                        [part.tool],
                        f"'{part.tool}' was called {DOOM_LOOP_THRESHOLD} times in a row with the same input",
                        {"tool": part.tool, "input": part.state.input},
                    ),
                )
            except PermissionDenied as exc:
                for refused in _refuse(recorder, [p for p, _ in calls[index:]], str(exc)):
                    runner.audit(refused)
                return part, str(exc)
        await runner.run(part, raw)
    return None


def _is_doom_loop(recorder: Recorder, part: ToolPart) -> bool:
    """Three identical calls of one tool in a row inside this message."""
    entry = recorder.find(part.message_id)
    if entry is None:
        return False
    tools = [p for p in entry.parts if isinstance(p, ToolPart)]
    upto = [p for p in tools if p.id <= part.id][-DOOM_LOOP_THRESHOLD:]
    return len(upto) == DOOM_LOOP_THRESHOLD and all(
        p.tool == part.tool and p.state.input == part.state.input for p in upto
    )


def _refuse(recorder: Recorder, parts: list[ToolPart], reason: str) -> list[ToolPart]:
    """A rejected doom loop stops the step: the repeated call and the rest are not run."""
    refused = []
    for i, part in enumerate(parts):
        text = reason if i == 0 else "Skipped: an earlier tool call in this step was refused."
        refused.append(
            part.model_copy(
                update={
                    "state": ToolStateError(
                        input=part.state.input,
                        error=text,
                        metadata={"rejected": True},
                        time=ToolTimeError(start=now_ms()),
                    )
                }
            )
        )
        recorder.part(refused[-1])
    return refused
