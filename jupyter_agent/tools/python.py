"""``python``: run code in the user's live namespace, like a cell, and report what it produced.

Code runs on the calling (kernel main) thread so plots, signals and libraries behave as in
a cell. Output is captured (it must not leak into whichever cell is current) through a
``BoundedOutput`` like bash's: a print loop keeps its ends in memory and the rest in a file,
and past ``tool_output.max_saved_bytes`` the next print stops the code. Images become
attachments; exceptions are results the model reads, not tool failures.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import inspect
import io
import linecache
import re
import signal
import sys
import threading
import traceback
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import Attachment
from jupyter_agent.tools import kernel_kind, python_guard
from jupyter_agent.tools.base import OutputLimits, PermissionDenied, Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.bounded_output import BoundedOutput
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.variables import short_repr

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600
MAX_REPR = 10_000
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_runs = 0


class PythonArgs(BaseModel):
    code: str = Field(description="Python code to run in the notebook's live namespace")
    timeout: int | None = Field(
        default=None, description="Seconds before the code is interrupted (default 120)"
    )


class ExecutionTimeout(Exception):
    """Raised in the main thread by the interval timer.

    Never reaches a front end: ``PythonTool`` catches it and reports the timeout to the model."""


class OutputLimitExceeded(BaseException):
    """Raised by ``print`` once the output passed the cap: like Ctrl-C, ``except Exception``
    in the code does not swallow it.

    Never reaches a front end: ``PythonTool`` catches it and reports the cap to the model."""


class _Stream(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` while the code runs: both feed one ``BoundedOutput``,
    a ``[stderr]`` line marking where error output starts (and ``[stdout]`` where it ends)."""

    def __init__(self, sink: BoundedOutput, name: str, state: dict[str, str]) -> None:
        self.sink = sink
        self.name = name
        self.state = state

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if self.sink.capped:
            raise OutputLimitExceeded()
        if not text:
            return 0
        if self.state["current"] != self.name:
            if self.state["last"] or self.name == "stderr":  # stdout first needs no mark
                lead = "" if self.state["last"] in ("", "\n") else "\n"
                self.sink.write(f"{lead}[{self.name}]\n")
            self.state["current"] = self.name
        self.sink.write(strip_ansi(text))
        self.state["last"] = text[-1]
        return len(text)


@contextlib.contextmanager
def _captured_prints(sink: BoundedOutput) -> Any:
    state = {"current": "stdout", "last": ""}
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Stream(sink, "stdout", state), _Stream(sink, "stderr", state)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def _images(outputs: list[Any]) -> tuple[list[Attachment], list[str]]:
    attachments: list[Attachment] = []
    texts: list[str] = []
    for n, out in enumerate(outputs):
        data = getattr(out, "data", {}) or {}
        for mime in ("image/png", "image/jpeg"):
            if mime in data:
                raw = data[mime]
                b64 = raw if isinstance(raw, str) else base64.b64encode(raw).decode()
                attachments.append(
                    Attachment(
                        mime=mime, url=f"data:{mime};base64,{b64.strip()}", filename=f"output-{n}.{mime[6:]}"
                    )
                )
                texts.append(f"[{mime} attached]")
                break
        else:
            if "text/plain" in data:
                texts.append(str(data["text/plain"]))
    return attachments, texts


def _figures() -> list[Attachment]:
    """Open matplotlib figures, rendered and closed as the inline backend does after a cell."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    found = []

    for num in plt.get_fignums():
        fig = plt.figure(num)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        found.append(
            Attachment(
                mime="image/png",
                url="data:image/png;base64," + base64.b64encode(buf.getvalue()).decode(),
                filename=f"figure-{num}.png",
            )
        )
    plt.close("all")
    return found


async def execute(
    shell: Any,
    code: str,
    timeout: float | None,
    sink: BoundedOutput | None = None,
    policy: python_guard.Policy | None = None,
) -> dict[str, Any]:
    """Run ``code`` in ``shell.user_ns``; prints go to ``sink``; returns the value, error,
    outputs. With ``policy`` (an ordinary kernel) the code runs under the guard."""
    # IPython's capture is needed only when the tool runs in a kernel
    from IPython.utils.capture import capture_output

    global _runs
    _runs += 1
    filename = f"<agent-{_runs}>"
    # registered like IPython's cells, so tracebacks show the failing source lines
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    tree = ast.parse(code, filename, mode="exec")
    last_expr = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last_expr = ast.Expression(tree.body[-1].value)
        tree.body.pop()
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    body = compile(tree, filename, "exec", flags=flags)
    expr = compile(last_expr, filename, "eval", flags=flags) if last_expr else None
    ns = shell.user_ns
    result: dict[str, Any] = {"value": None, "error": None}
    main = threading.current_thread() is threading.main_thread()
    use_timer = bool(timeout) and main
    previous = None
    # ipykernel ignores SIGINT between cells; while user code runs, the kernel's interrupt
    # button must raise KeyboardInterrupt here, as it does in a cell
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None

    def on_alarm(signum: int, frame: Any) -> None:
        raise ExecutionTimeout()

    sink = sink or BoundedOutput(OutputLimits())
    with capture_output(stdout=False, stderr=False) as captured, _captured_prints(sink):
        if use_timer:
            previous = signal.signal(signal.SIGALRM, on_alarm)
            signal.setitimer(signal.ITIMER_REAL, float(timeout or 0))

        async def run() -> None:
            value = eval(body, ns)
            if inspect.iscoroutine(value):
                await value
            if expr is not None:
                value = eval(expr, ns)
                if inspect.iscoroutine(value):
                    value = await value
                result["value"] = value

        try:
            await (run() if policy is None else python_guard.run_guarded(policy, run))
        except ExecutionTimeout:
            result["error"] = {
                "ename": "TimeoutError",
                "evalue": f"Execution timed out after {timeout:g} s",
                "traceback": "",
            }
        except OutputLimitExceeded:
            result["error"] = {
                "ename": "OutputLimitExceeded",
                "evalue": f"{sink.cap_note()}: the code was stopped there",
                "traceback": "",
            }
        except KeyboardInterrupt:
            raise
        except Exception as exc:
            frames = traceback.extract_tb(exc.__traceback__)
            # start at the user's code: our own exec frame is noise to the model
            start = next((i for i, f in enumerate(frames) if f.filename.startswith("<agent-")), 0)
            text = "".join(traceback.format_list(frames[start:]))
            text += "".join(traceback.format_exception_only(type(exc), exc))
            result["error"] = {"ename": type(exc).__name__, "evalue": str(exc), "traceback": text}
        finally:
            if use_timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            if main:
                signal.signal(signal.SIGINT, previous_int)
    sink.close()
    result.update(outputs=captured.outputs)
    return result


class PythonTool(Tool[PythonArgs]):
    name = "python"
    description = describe("python")
    Args = PythonArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.code.strip().split("\n")[0]]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        shell = ctx.services.shell
        if shell is None:
            raise ToolError("The python tool needs a running IPython kernel (use %agent in a notebook).")
        services = ctx.services
        refused = kernel_kind.refusal("python", services.require_contained, True, services.admin_file)
        if refused:
            raise PermissionDenied(refused)
        await ctx.permit("python", self.permission_patterns(args), args.code.strip().split("\n")[0])
        timeout = min(args.timeout or DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
        if ctx.on_code is not None:  # the variables it may change are saved first, for revert
            ctx.on_code(args.code)
        spill = ctx.new_output_file() if ctx.new_output_file else None
        sink = BoundedOutput(ctx.limits, (lambda: spill) if spill else None)
        policy = None if kernel_kind.contained() else guard_policy(ctx, spill)
        tracker = ctx.services.hidden_state
        watch = (
            tracker.agent_call(ctx.session_id, ctx.call_id, args.code)
            if tracker
            else contextlib.nullcontext()
        )
        try:
            with watch as call:  # which names the code set, for the hidden-state marker
                res = await execute(shell, args.code, timeout, sink, policy)
                if call is not None and res["error"]:
                    call.ok = False
        except SyntaxError as exc:
            return ToolResult(
                output=f"SyntaxError: {exc.msg} (line {exc.lineno})",
                title="syntax error",
                metadata={"error": {"ename": "SyntaxError", "evalue": exc.msg}},
            )
        except BaseException:
            sink.discard()
            raise
        attachments, texts = _images(res["outputs"])
        attachments += _figures()
        printed = _printed(sink, ctx.limits)
        extra = [_cut(t) for t in texts if not t.startswith("[image")]
        if res["value"] is not None:
            extra.append(f"Out: {short_repr(res['value'], MAX_REPR)}")
        metadata: dict[str, Any] = {}
        if res["error"]:
            err = res["error"]
            extra.append(strip_ansi(err["traceback"])[-MAX_REPR:] or f"{err['ename']}: {err['evalue']}")
            metadata["error"] = {"ename": err["ename"], "evalue": err["evalue"]}
        extra += [f"[{a.mime} attached]" for a in attachments]
        tail = "\n".join(extra)
        return ToolResult(
            output="\n".join(p for p in (printed, tail) if p) or "(no output)",
            title=args.code.strip().split("\n")[0][:80],
            metadata=metadata,
            attachments=attachments,
            saved=sink.saved("\n" + tail if tail else ""),
        )


def guard_policy(ctx: ToolContext, spill: Any) -> python_guard.Policy:
    """What the guard holds the code to: the file tools' rules (``tools/python_guard.py``)."""
    own = (spill.parent,) if spill else ()  # where the prints the code makes spill over
    return python_guard.Policy.make(ctx.project_root, ctx.working_dir, ctx.services.guard, ctx.rule, own)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_REPR else text[:MAX_REPR] + f"… ({len(text) - MAX_REPR:,} more chars)"


def _printed(sink: BoundedOutput, limits: OutputLimits) -> str:
    """What the code printed; when it did not fit, its start within half the limits, so the
    value and the error after it are still seen (the runner adds where the rest is)."""
    text = sink.text("head").rstrip("\n")
    if not sink.spilled:
        return text
    lines = text[: limits.max_bytes // 2].split("\n")[: max(1, limits.max_lines // 2)]
    return "\n".join(lines)
