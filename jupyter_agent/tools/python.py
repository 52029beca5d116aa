"""``python``: run code in the user's live namespace, like a cell, and report what it produced.

Code runs on the calling (kernel main) thread so plots, signals and libraries behave as in
a cell. Output is captured (it must not leak into whichever cell is current); images
become attachments; exceptions are results the model reads, not tool failures.
"""

from __future__ import annotations

import ast
import base64
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
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe

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
    """Raised in the main thread by the interval timer."""


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


async def execute(shell: Any, code: str, timeout: float | None) -> dict[str, Any]:
    """Run ``code`` in ``shell.user_ns``; returns stdout, stderr, result repr, error, outputs."""
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

    with capture_output() as captured:
        if use_timer:
            previous = signal.signal(signal.SIGALRM, on_alarm)
            signal.setitimer(signal.ITIMER_REAL, float(timeout or 0))
        try:
            value = eval(body, ns)
            if inspect.iscoroutine(value):
                await value
            if expr is not None:
                value = eval(expr, ns)
                if inspect.iscoroutine(value):
                    value = await value
                result["value"] = value
        except ExecutionTimeout:
            result["error"] = {
                "ename": "TimeoutError",
                "evalue": f"Execution timed out after {timeout:g} s",
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
    result.update(stdout=captured.stdout, stderr=captured.stderr, outputs=captured.outputs)
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
        await ctx.permit("python", self.permission_patterns(args), args.code.strip().split("\n")[0])
        timeout = min(args.timeout or DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
        try:
            res = await execute(shell, args.code, timeout)
        except SyntaxError as exc:
            return ToolResult(
                output=f"SyntaxError: {exc.msg} (line {exc.lineno})",
                title="syntax error",
                metadata={"error": {"ename": "SyntaxError", "evalue": exc.msg}},
            )
        attachments, texts = _images(res["outputs"])
        attachments += _figures()
        pieces = []
        if res["stdout"]:
            pieces.append(strip_ansi(res["stdout"]).rstrip("\n"))
        if res["stderr"]:
            pieces.append("[stderr]\n" + strip_ansi(res["stderr"]).rstrip("\n"))
        pieces += [t for t in texts if not t.startswith("[image")]
        if res["value"] is not None:
            shown = repr(res["value"])
            if len(shown) > MAX_REPR:
                shown = shown[:MAX_REPR] + f"… ({len(shown) - MAX_REPR} more chars)"
            pieces.append(f"Out: {shown}")
        metadata: dict[str, Any] = {}
        if res["error"]:
            err = res["error"]
            pieces.append(strip_ansi(err["traceback"]) or f"{err['ename']}: {err['evalue']}")
            metadata["error"] = {"ename": err["ename"], "evalue": err["evalue"]}
        pieces += [f"[{a.mime} attached]" for a in attachments]
        return ToolResult(
            output="\n".join(pieces) or "(no output)",
            title=args.code.strip().split("\n")[0][:80],
            metadata=metadata,
            attachments=attachments,
        )
