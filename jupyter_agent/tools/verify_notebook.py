"""``verify_notebook``: does the saved notebook reproduce in a fresh kernel (``repro/``)?

The kernel provides the verification (``Services.verify_notebook``): it knows the notebook,
the configured time limits and the names the agent's own code left hidden. Progress shows
in the running tool's title; stopping the run kills the verification kernel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe


class VerifyNotebookArgs(BaseModel):
    path: str | None = Field(default=None, description="The .ipynb file (default: this session's notebook)")
    with_agent: bool = Field(
        default=False, description="Replay %agent cells too (they call the model again; default false)"
    )


class VerifyNotebookTool(Tool[VerifyNotebookArgs]):
    name = "verify_notebook"
    description = describe("verify_notebook")
    Args = VerifyNotebookArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        verify = ctx.services.verify_notebook
        if verify is None:
            raise ToolError("verify_notebook needs the notebook's kernel (use %agent in a notebook).")
        path = ctx.resolve(args.path) if args.path else ctx.services.notebook_path
        if path is not None:
            await ctx.check_path(Path(path), "Verify")
        shown = str(path) if path else "this notebook"
        await ctx.permit("verify_notebook", [shown], f"run {shown} in a fresh kernel and compare its outputs")

        def progress(text: str) -> None:
            if ctx.on_metadata is not None:
                ctx.on_metadata(f"verifying: {text}", {})

        try:
            report = await verify(Path(path) if path else None, args.with_agent, progress)
        except JupyterAgentError as exc:  # no such file, not a notebook, kernel not installed
            raise ToolError(str(exc)) from None
        return ToolResult(
            output=report.for_agent(),
            title=report.summary().split(":")[0] + f" ({report.seconds:.0f} s)",
            metadata={"reproducible": report.reproducible, "exit_code": report.exit_code},
        )
