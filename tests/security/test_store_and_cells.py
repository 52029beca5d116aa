"""Issue 37.3: revert asks before a protected path whatever a store says, and a cell the
agent runs through ``notebook_edit`` is code under the ``python`` rule.

The reproductions on main: a command rewrote a sibling notebook folder's
``.jupyter-agent/sessions.db`` (only the notebook's own folder and those above it are
protected) so that a recorded file change named ``.git/hooks/pre-commit``; a later
``jupyter-agent sessions revert`` there wrote the hook without asking, and the user's next
``git commit`` ran it. Under ``"python": "deny"`` the model inserted a cell with
``notebook_edit`` and ``run: true`` in JupyterLab, and the same code ran in the kernel.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.agent.revert import RevertError
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.cli import main
from jupyter_agent.config import load_config
from jupyter_agent.core.messages import PatchPart, ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.registry import register_kernel_tools

HOOK = "#!/bin/sh\ntouch {marker}\n"


def runtime_in(folder: Path, root: Path, model: Any, **overrides: Any) -> Any:
    config = load_config(folder, {"model": model.model, "api_base": model.base_url, **overrides})
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(folder),
        project_root=root,
        working_dir=folder,
        client=model,
    )
    runtime.generate_titles = False
    return runtime


async def test_a_forged_sibling_store_cannot_revert_into_a_git_hook(
    scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    marker = tmp_path.parent / f"{tmp_path.name}-PWNED"
    os.system(
        f"cd {tmp_path} && git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m 0"
    )
    sibling = tmp_path / "other"
    sibling.mkdir()
    runtime = runtime_in(sibling, tmp_path, scripted_model)
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "notes.txt", "content": "mine\n"}))]),
        Reply(text="written"),
    )
    sid = await runtime.prompt("write notes")
    # what a command did to the store: the recorded change now names the repository's hook
    hook = tmp_path / ".git" / "hooks" / "pre-commit"
    patch = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, PatchPart))
    forged = patch.files[0].model_copy(update={"path": str(hook), "before": HOOK.format(marker=marker)})
    runtime.store.update_part(patch.model_copy(update={"files": [forged]}))
    runtime.store.flush()
    with pytest.raises(RevertError, match="protected") as refused:
        runtime.revert(sid)
    assert "git runs the commands it names" in str(refused.value)
    with open(os.devnull) as piped:  # a terminal would ask; piped input never approves
        monkeypatch.setattr("sys.stdin", piped)
        assert main(["sessions", "--notebook", str(sibling / "nb.ipynb"), "revert", sid]) == 2
    assert not hook.exists() and (sibling / "notes.txt").read_text() == "mine\n"
    os.system(f"cd {tmp_path} && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m mine")
    assert not marker.exists()
    approved: list[list[str]] = []
    runtime.revert(sid, approve=lambda paths: approved.append(paths) or True)  # the user said yes
    assert approved == [[f"{hook} (git runs the commands it names)"]] and hook.exists()


class LiveNotebook:
    """The side panel's end of a live notebook (what the comm would do), recorded."""

    def __init__(self) -> None:
        self.cells: list[dict[str, Any]] = []
        self.ran: list[str] = []

    async def read_cells(self) -> list[dict[str, Any]]:
        return list(self.cells)

    async def insert_cell(self, index: int, source: str, cell_type: str) -> str:
        self.cells.insert(index, {"id": f"c{len(self.cells)}", "cell_type": cell_type, "source": source})
        return str(self.cells[index]["id"])

    async def replace_cell(self, cell_id: str, source: str) -> None:
        next(c for c in self.cells if c["id"] == cell_id)["source"] = source

    async def delete_cell(self, cell_id: str) -> None:
        self.cells = [c for c in self.cells if c["id"] != cell_id]

    async def run_cell(self, cell_id: str) -> list[dict[str, Any]]:
        self.ran.append(next(c["source"] for c in self.cells if c["id"] == cell_id))
        return []


@pytest.mark.parametrize("action", ["insert", "replace"])
async def test_a_cell_the_agent_runs_is_under_the_python_rule(
    make_runtime: Any, scripted_model: Any, action: str
) -> None:
    notebook = LiveNotebook()
    notebook.cells.append({"id": "c0", "cell_type": "code", "source": "x = 1"})
    runtime = make_runtime(permission={"python": "deny", "notebook_edit": "allow"})
    register_kernel_tools(runtime.registry)  # as a kernel does
    code = "import shutil; shutil.rmtree('data')"
    args = {
        "action": action,
        "source": code,
        "run": True,
        **({"cell_id": "c0"} if action == "replace" else {}),
    }
    scripted_model.queue(Reply(tool_calls=[ToolCall("notebook_edit", json.dumps(args))]), Reply(text="ok"))
    sid = await runtime.prompt("clean up", handle=RunHandle(bridge=notebook))
    part = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))
    assert part.state.status == "error" and "Permission 'python'" in part.state.error, part.state
    assert notebook.ran == [] and [c["source"] for c in notebook.cells] == ["x = 1"]
