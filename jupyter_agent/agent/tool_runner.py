"""Run one tool call: validate, ask permission, execute, truncate, record the state.

Every failure a model can cause (bad JSON, unknown tool, invalid arguments, a tool that
raises, a rejected permission) ends as a tool part in ``error`` state with a message the
model can act on, so the loop continues instead of crashing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from jupyter_agent.agent.assembler import shown_input
from jupyter_agent.agent.audit import audit_record
from jupyter_agent.agent.checkpoints import CallCheckpoint, Checkpoints
from jupyter_agent.agent.ports import PermissionAsker, PermissionContext
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.context.truncate import truncate_output
from jupyter_agent.core import ids, unicode
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    FileChange,
    MessageWithParts,
    PatchPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
    ToolTimeCompleted,
    ToolTimeError,
)
from jupyter_agent.core.redaction import redact, redact_value
from jupyter_agent.tools.base import (
    OutputLimits,
    PermissionDenied,
    PermissionQuestion,
    SavedOutput,
    ToolContext,
    ToolError,
)
from jupyter_agent.tools.registry import ToolRegistry
from jupyter_agent.tools.services import Services

log = logging.getLogger(__name__)

ABORTED = "Tool execution aborted"
log = logging.getLogger(__name__)


ToolLimits = OutputLimits
"""How much of a tool's output the model sees and the disk keeps (``tool_output``)."""


@dataclass
class ToolEnv:
    """What every call of a session shares: where it runs and what it may use."""

    registry: ToolRegistry
    allowed: frozenset[str] | None
    project_root: Path
    working_dir: Path
    save_output: Callable[[str], str]
    limits: OutputLimits = field(default_factory=OutputLimits)
    new_output_file: Callable[[], Path] | None = None
    """A fresh file under ``tool-output/`` for tools that stream long output there."""
    services: Services = field(default_factory=Services)
    checkpoints: Checkpoints | None = None
    """What is recorded around each call that may change something, for revert."""


class ToolRunner:
    """Executes the tool parts of one assistant message in order."""

    def __init__(
        self, recorder: Recorder, env: ToolEnv, agent: str, asker: PermissionAsker, run: RunHandle
    ) -> None:
        self.recorder = recorder
        self.env = env
        self.agent = agent
        self.asker = asker
        self.run_handle = run
        self.abort = run.abort
        self.refuse: str | None = None
        """Set on the last allowed step: tool calls are recorded as errors, never run."""
        self.refused = 0
        self.decisions: dict[str, list[dict[str, Any]]] = {}
        """Permission decisions per call, kept for its audit line (when the admin keeps one)."""

    def _available(self, name: str) -> bool:
        return name in self.env.registry and (self.env.allowed is None or name in self.env.allowed)

    def parse(self, part: ToolPart, raw: str) -> tuple[BaseModel | None, dict[str, Any], str | None]:
        """Validated args, the input to show, and an error text (unknown tool, bad JSON…)."""
        shown = shown_input(raw)
        if not self._available(part.tool):
            names = sorted(n for n in self.env.registry.names() if self._available(n))
            return None, shown, (f"Unknown tool '{part.tool}'. Available tools: {', '.join(names)}")
        try:
            return self.env.registry.validate(part.tool, raw), shown, None
        except ToolError as exc:
            return None, shown, str(exc)

    async def run(self, part: ToolPart, raw: str) -> ToolPart:
        """Take a pending part to completed or error; never raises except on cancel. Each call
        leaves one line in the admin's audit trail (``audit``), however it ended."""
        done = part
        try:
            done = await self._run(part, raw)
        finally:
            self.audit(done)
        return done

    async def _run(self, part: ToolPart, raw: str) -> ToolPart:
        args, shown, problem = self.parse(part, raw)
        start = now_ms()
        if self.refuse is not None:
            self.refused += 1
            return self._error(part, shown, self.refuse, start, rejected=True)
        if problem is not None or args is None:
            return self._error(part, shown, problem or "invalid arguments", start)
        running = part.model_copy(update={"state": ToolStateRunning(input=shown)})
        self.recorder.part(running)
        tool = self.env.registry.get(part.tool)
        point = self._checkpoint(running) if tool.mutates else None
        ctx = self._context(running, point)
        try:
            result = await tool.run(args, ctx)
        except PermissionDenied as exc:
            return self._error(running, shown, str(exc), start, rejected=True)
        except ToolError as exc:
            return self._error(running, shown, str(exc), start)
        except asyncio.CancelledError:
            self.audit(self._error(running, shown, ABORTED, start, interrupted=True))
            raise
        except KeyboardInterrupt:
            # a kernel interrupt during user code: record it, then stop the loop like Stop
            self.audit(self._error(running, shown, ABORTED, start, interrupted=True))
            self.abort.set()
            raise asyncio.CancelledError() from None
        except Exception as exc:  # a bug in the tool: the model reads what failed, the log has where
            log.error("The %s tool failed", part.tool, exc_info=True)
            return self._error(running, shown, f"{type(exc).__name__}: {exc}", start)
        finally:
            if point is not None:
                point.finish()
        output = unicode.scrub(redact(result.output))  # a print of "\ud800" must not break the store
        metadata = unicode.scrub_value(redact_value(dict(result.metadata)))
        if not metadata.get("truncated"):
            saved = result.saved
            cut = truncate_output(
                output,
                max_lines=self.env.limits.max_lines,
                max_bytes=self.env.limits.max_bytes,
                direction=result.truncate_direction,
                has_task_tool=self._available("task"),
                save=self.env.save_output if saved is None else _already(saved),
                whole=None if saved is None else (saved.total_bytes, saved.total_lines),
            )
            output = cut.content
            if cut.truncated:
                metadata.update(truncated=True, output_path=cut.output_path)
        done = running.model_copy(
            update={
                "state": ToolStateCompleted(
                    input=shown,
                    output=output,
                    title=unicode.scrub(redact(result.title)),
                    metadata=metadata,
                    attachments=result.attachments,
                    time=ToolTimeCompleted(start=start),
                )
            }
        )
        self.recorder.part(done)
        return done

    def _checkpoint(self, part: ToolPart) -> CallCheckpoint | None:
        """The checkpoint of one call of a tool that may change something (None when off)."""
        checkpoints = self.env.checkpoints
        if checkpoints is None:
            return None
        entry = self.recorder.find(part.message_id)
        prompt = getattr(entry.info, "parent_id", part.message_id) if entry else part.message_id
        return checkpoints.begin(self.recorder.part, part.session_id, part.message_id, prompt)

    def _context(self, part: ToolPart, point: CallCheckpoint | None = None) -> ToolContext:
        def on_metadata(title: str | None, metadata: dict[str, Any]) -> None:
            metadata = unicode.scrub_value(redact_value(metadata))
            entry = self.recorder.find(part.message_id)
            current = next((p for p in entry.parts if p.id == part.id), None) if entry else None
            if isinstance(current, ToolPart) and isinstance(current.state, ToolStateRunning):
                state = current.state.model_copy(
                    update={
                        "title": title or current.state.title,
                        "metadata": {**current.state.metadata, **metadata},
                    }
                )
                self.recorder.part(current.model_copy(update={"state": state}), final=False)

        def on_patch(changes: list[FileChange]) -> None:
            self.recorder.part(
                PatchPart(
                    id=ids.ascending("prt"),
                    session_id=part.session_id,
                    message_id=part.message_id,
                    files=changes,
                )
            )

        async def ask(question: PermissionQuestion) -> None:
            await self.ask(part, question)

        return ToolContext(
            session_id=part.session_id,
            message_id=part.message_id,
            call_id=part.call_id,
            agent=self.agent,
            project_root=self.env.project_root,
            working_dir=self.env.working_dir,
            abort=self.abort,
            ask=ask,
            on_metadata=on_metadata,
            on_patch=point.on_patch if point is not None else on_patch,
            on_cells=point.on_cells if point is not None else None,
            on_code=point.on_code if point is not None else None,
            services=self.env.services.for_run(self.run_handle.bridge),
            limits=self.env.limits,
            new_output_file=self.env.new_output_file,
        )

    async def ask(self, part: ToolPart, question: PermissionQuestion) -> None:
        """Ask on behalf of one call of this message (also the loop's doom-loop question)."""
        audited = self.env.services.audit is not None
        who = PermissionContext(
            session_id=part.session_id,
            agent=self.agent,
            message_id=part.message_id,
            call_id=part.call_id,
            interactive=self.run_handle.interactive,
            decisions=self.decisions.setdefault(part.id, []) if audited else None,
        )
        await self.asker.ask(who, question)

    def audit(self, part: ToolPart) -> None:
        """The call's line in the audit trail: what it was, how it was decided, how it ended
        and what its step cost (once per call: a second call for the same part is ignored)."""
        sink = self.env.services.audit
        decisions = self.decisions.pop(part.id, None)
        if sink is None or (part.state.status in ("pending", "running") and decisions is None):
            return
        entry = self.recorder.find(part.message_id)
        step = entry.info if entry is not None else None
        try:
            sink(audit_record(part, self.agent, decisions or [], step))
        except Exception:  # the trail must never end a run: its own problems are told by the sink
            log.exception("writing the audit line failed")

    def _error(
        self,
        part: ToolPart,
        shown: dict[str, Any],
        message: str,
        start: int,
        *,
        interrupted: bool = False,
        rejected: bool = False,
    ) -> ToolPart:
        metadata: dict[str, Any] = {}
        if isinstance(part.state, ToolStateRunning):
            metadata.update(part.state.metadata)
        entry = self.recorder.find(part.message_id)
        if entry is not None:
            metadata.update(_live_metadata(entry, part.id))
        if interrupted:
            metadata["interrupted"] = True
        if rejected:
            metadata["rejected"] = True
        failed = part.model_copy(
            update={
                "state": ToolStateError(
                    input=shown,
                    error=unicode.scrub(redact(message)),
                    metadata=unicode.scrub_value(metadata),
                    time=ToolTimeError(start=start),
                )
            }
        )
        self.recorder.part(failed)
        return failed


def _already(saved: SavedOutput) -> Callable[[str], str]:
    """``save`` for an output the tool streamed to a file itself (or could not)."""

    def path(_: str) -> str:
        if saved.path is None:
            raise OSError(saved.error or "not saved")
        return saved.path

    return path


def _live_metadata(entry: MessageWithParts, part_id: str) -> dict[str, Any]:
    """Metadata streamed while running (e.g. partial bash output), kept on abort."""
    for p in entry.parts:
        if p.id == part_id and isinstance(p, ToolPart) and isinstance(p.state, ToolStateRunning):
            return dict(p.state.metadata)
    return {}


def abort_unfinished(recorder: Recorder, message_id: str) -> int:
    """Turn pending/running tool parts of a message into aborted errors (keeps partial output)."""
    entry = recorder.find(message_id)
    if entry is None:
        return 0
    count = 0
    for p in list(entry.parts):
        if isinstance(p, ToolPart) and p.state.status in ("pending", "running"):
            metadata: dict[str, Any] = {"interrupted": True}
            start = now_ms()
            if isinstance(p.state, ToolStateRunning):
                metadata = {**p.state.metadata, **metadata}
                start = p.state.time.start
            recorder.part(
                p.model_copy(
                    update={
                        "state": ToolStateError(
                            input=p.state.input,
                            error=ABORTED,
                            metadata=metadata,
                            time=ToolTimeError(start=start),
                        )
                    }
                )
            )
            count += 1
    return count
