"""Staged cell edits and approvals that show what will change.

The side panel's part (metadata in the document, Accept / Reject) is played by ``FakePanel``
exactly as ``labextension/src/review.ts`` does it; ``tests/browser/test_undo_and_review.py``
drives the real one in JupyterLab."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import nbformat
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.run import RunHandle
from jupyter_agent.checkpoint.cells import apply_steps
from jupyter_agent.core.events import PermissionAsked, ReviewChanged
from jupyter_agent.core.messages import ToolPart
from jupyter_agent.tools.notebook_file import format_cell
from jupyter_agent.tools.registry import register_kernel_tools
from jupyter_agent.tools.staging import REVIEW_KEY, ReviewOutcome, StagedEdit
from jupyter_agent.ui.render import permission_message


class FakePanel:
    """The side panel's notebook operations on a list of cells."""

    def __init__(self, *sources: str) -> None:
        self.cells: list[dict[str, Any]] = [
            {
                "id": f"c{i}",
                "cell_type": "code",
                "source": s,
                "metadata": {},
                "outputs": [],
                "execution_count": i + 1,
            }
            for i, s in enumerate(sources)
        ]
        self.ran: list[str] = []

    def _at(self, cell_id: str) -> int:
        return next(i for i, c in enumerate(self.cells) if c["id"] == cell_id)

    async def read_cells(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.cells)

    async def insert_cell(self, index: int, source: str, cell_type: str) -> str:
        self.cells.insert(
            index, {"id": f"i{len(self.cells)}", "cell_type": cell_type, "source": source, "metadata": {}}
        )
        return str(self.cells[index]["id"])

    async def replace_cell(self, cell_id: str, source: str) -> None:
        self.cells[self._at(cell_id)].update(source=source, outputs=[], execution_count=None)

    async def delete_cell(self, cell_id: str) -> None:
        del self.cells[self._at(cell_id)]

    async def run_cell(self, cell_id: str) -> list[dict[str, Any]]:
        self.ran.append(cell_id)
        return [{"output_type": "stream", "name": "stdout", "text": "42\n"}]

    async def stage(self, edit: StagedEdit) -> str:
        keep = {"id", "action", "source", "cell_type", "run", "label", "session_id", "message_id", "call_id"}
        meta = edit.model_dump(include=keep)  # what review.ts keeps in the cell's metadata
        if edit.action == "insert":
            at = self._at(edit.after_id) + 1 if edit.after_id else (edit.index or 0)
            self.cells.insert(
                at,
                {
                    "id": "staged-new",
                    "cell_type": edit.cell_type,
                    "source": "",
                    "metadata": {REVIEW_KEY: meta},
                },
            )
            return "staged-new"
        self.cells[self._at(edit.cell_id or "")]["metadata"][REVIEW_KEY] = meta
        return edit.cell_id or ""

    async def unstage(self, staged_ids: list[str]) -> None:
        for cell in list(self.cells):
            if cell["metadata"].get(REVIEW_KEY, {}).get("id") in staged_ids:
                self.decide(cell["metadata"][REVIEW_KEY]["id"], "reject")

    async def apply_steps(self, steps: Any) -> tuple[list[str], list[str]]:
        self.cells, done, problems = apply_steps(self.cells, steps)
        return done, problems

    def decide(self, staged_id: str, decision: str, reason: str = "") -> ReviewOutcome:
        """What the notebook does on Accept / Reject (review.ts ``decide``)."""
        at = next(
            i for i, c in enumerate(self.cells) if c["metadata"].get(REVIEW_KEY, {}).get("id") == staged_id
        )
        cell = self.cells[at]
        meta = cell["metadata"].pop(REVIEW_KEY)
        before = None if meta["action"] == "insert" else copy.deepcopy(cell)
        prev = self.cells[at - 1]["id"] if at else None
        after = None
        if decision == "accept" and meta["action"] == "delete":
            del self.cells[at]
        elif decision == "accept":
            cell.update(source=meta["source"], outputs=[], execution_count=None)
            after = copy.deepcopy(cell)
        elif meta["action"] == "insert":
            del self.cells[at]
        return ReviewOutcome(
            staged_id=staged_id,
            decision=decision,  # type: ignore[arg-type]
            reason=reason,
            cell_id=cell["id"],
            index=at,
            prev_id=prev,
            before=before,
            after=after,
        )


def call(name: str, **args: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(name, json.dumps(args))])


def tool_parts(runtime: Any, sid: str) -> list[ToolPart]:
    return [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart)]


async def test_two_staged_edits_one_rejected_with_a_reason_one_accepted_and_run(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    panel = FakePanel("x = 6", "plt.plot(xs)")
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id="c0", source="print(x * 7)", run=True),
        call("notebook_edit", action="insert", index=2, source="plt.yscale('linear')"),
        Reply(text="I staged two edits."),
    )
    runtime = make_runtime()  # notebook.review defaults to "stage"
    register_kernel_tools(runtime.registry)
    runtime.services.notebook_path = tmp_path / "analysis.ipynb"
    runtime.generate_titles = False
    handle = RunHandle(interactive=True, bridge=panel)
    sid = await runtime.prompt("fix my plot", handle=handle)
    assert [c["source"] for c in panel.cells] == ["x = 6", "plt.plot(xs)", ""]  # nothing applied
    assert panel.ran == []  # the staged run: true cell did not run
    staged = runtime.services.staging.pending(sid)
    assert [e.label for e in staged] == ["replace In [1]", "insert a new code cell below In [2]"]
    outputs = [p.state.output for p in tool_parts(runtime, sid)]  # type: ignore[union-attr]
    assert all(o.startswith("Staged for the user's review") for o in outputs)
    pending = [e.pending for e in runtime.events if isinstance(e, ReviewChanged)]
    assert pending[-1] == 2

    await runtime.review(panel.decide(staged[1].id, "reject", "use a log scale instead"), panel)
    assert panel.ran == []
    await runtime.review(panel.decide(staged[0].id, "accept"), panel)
    assert panel.ran == ["c0"]  # run once accepted
    assert [c["source"] for c in panel.cells] == ["print(x * 7)", "plt.plot(xs)"]
    assert [e.pending for e in runtime.events if isinstance(e, ReviewChanged)][-1] == 0

    scripted_model.queue(Reply(text="Understood."))
    await runtime.prompt("what did I decide?", session_id=sid, handle=handle)
    sent = json.dumps(scripted_model.requests[-1]["body"]["messages"])
    assert "The user accepted the staged edit: replace In [1]" in sent and "It ran" in sent and "42" in sent
    assert "The user rejected the staged edit: insert a new code cell below In [2]" in sent
    assert "use a log scale instead" in sent

    first = runtime.store.messages(sid)[0].info.id
    report = await runtime.revert(sid, first, panel).finish()  # the accepted edit is undone too
    assert [c["source"] for c in panel.cells] == ["x = 6", "plt.plot(xs)"] and report.cells


async def test_an_undecided_edit_is_dropped_by_a_revert(make_runtime: Any, scripted_model: Any) -> None:
    panel = FakePanel("a = 1")
    scripted_model.queue(call("notebook_edit", action="delete", cell_id="c0"), Reply(text="staged"))
    runtime = make_runtime()
    register_kernel_tools(runtime.registry)
    runtime.generate_titles = False
    sid = await runtime.prompt("delete it", handle=RunHandle(interactive=True, bridge=panel))
    assert REVIEW_KEY in panel.cells[0]["metadata"]
    report = await runtime.revert(sid, bridge=panel).finish()
    assert (
        report.staged_dropped == 1
        and panel.cells[0]["metadata"] == {}
        and panel.cells[0]["source"] == "a = 1"
    )
    assert runtime.services.staging.pending(sid) == []


def _notebook(path: Path) -> list[str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1", execution_count=1),
        nbformat.v4.new_markdown_cell("# notes"),
    ]
    nbformat.write(nb, path)
    return [c["id"] for c in nb.cells]


async def test_an_approval_shows_the_diff_names_the_cell_and_says_what_always_allows(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    path = tmp_path / "analysis.ipynb"
    ids = _notebook(path)
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id=ids[0], source="x = 2"),
        call("notebook_edit", action="delete", cell_id=ids[1]),
        call("write", filePath="analysis.ipynb", content="{}"),
        Reply(text="done"),
    )
    runtime = make_runtime(permission={"notebook_edit": "ask", "edit": "ask"})
    register_kernel_tools(runtime.registry)
    runtime.services.notebook_path = path
    runtime.generate_titles = False
    asked: list[Any] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionAsked):
            asked.append(event.request)
            reply = "always" if event.request.permission == "notebook_edit" else "reject"
            asyncio.get_running_loop().call_soon(runtime.permissions.reply, event.request.id, reply)

    runtime.bus.subscribe(answer)
    sid = await runtime.prompt("edit", handle=RunHandle(interactive=True))
    first = asked[0]
    assert first.title == "Replace In [1] in analysis.ipynb" and first.patterns == ["analysis.ipynb"]
    assert str(tmp_path) not in first.title and ids[0] not in first.title
    assert "-x = 1" in first.metadata["diff"] and "+x = 2" in first.metadata["diff"]
    view = permission_message(first).request
    assert view.always == "edits to the cells of analysis.ipynb" and view.diff
    # "Always" covered the second cell edit, not a write to the notebook file
    assert [r.permission for r in asked] == ["notebook_edit", "edit"]
    write = permission_message(asked[1]).request  # a write shows its diff too
    assert write.title == "Write analysis.ipynb" and (write.diff or "").startswith("--- a/analysis.ipynb")
    assert "+{}" in (write.diff or "")
    parts = tool_parts(runtime, sid)
    assert [p.state.status for p in parts] == ["completed", "completed", "error"]
    assert [c.source for c in nbformat.read(path, as_version=4).cells] == ["x = 2"]


async def test_an_approved_edit_is_applied_not_staged_again(make_runtime: Any, scripted_model: Any) -> None:
    """Fix with agent asks before replacing the cell: that approval is the review."""
    panel = FakePanel("1 / 0")
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id="c0", source="1 / 1"), Reply(text="fixed")
    )
    runtime = make_runtime(permission={"notebook_edit": "ask"})
    register_kernel_tools(runtime.registry)
    runtime.generate_titles = False
    runtime.bus.subscribe(
        lambda e: asyncio.get_running_loop().call_soon(runtime.permissions.reply, e.request.id, "once"),
        "permission.asked",
    )
    await runtime.prompt("fix it", handle=RunHandle(interactive=True, bridge=panel))
    assert panel.cells[0]["source"] == "1 / 1" and panel.cells[0]["metadata"] == {}


async def test_a_decision_after_a_kernel_restart_still_reaches_the_session(
    make_runtime: Any, scripted_model: Any
) -> None:
    """The staged edit lives in the notebook with who staged it: a new kernel records the
    decision; a second decision on the same edit (a co-editor's) is ignored."""
    panel = FakePanel("a = 1")
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id="c0", source="a = 2"), Reply(text="staged")
    )
    runtime = make_runtime()
    register_kernel_tools(runtime.registry)
    runtime.generate_titles = False
    sid = await runtime.prompt("change a", handle=RunHandle(interactive=True, bridge=panel))
    (staged,) = runtime.services.staging.pending(sid)
    kept = StagedEdit.model_validate(panel.cells[0]["metadata"][REVIEW_KEY])
    outcome = panel.decide(staged.id, "reject", "keep a = 1").model_copy(update={"edit": kept})
    restarted = make_runtime()  # same store, a fresh kernel: nothing pending in memory
    await restarted.review(outcome, panel)
    await restarted.review(outcome.model_copy(update={"decision": "accept"}), panel)
    (part,) = tool_parts(restarted, sid)
    assert "rejected" in part.state.output and "keep a = 1" in part.state.output  # type: ignore[union-attr]


async def test_a_second_edit_of_a_cell_waiting_for_review_is_refused(
    make_runtime: Any, scripted_model: Any
) -> None:
    """A model that stages the same cell twice would hide its first proposal from the user."""
    panel = FakePanel("a = 1")
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id="c0", source="a = 2"),
        call("notebook_edit", action="delete", cell_id="c0"),
        Reply(text="done"),
    )
    runtime = make_runtime()
    register_kernel_tools(runtime.registry)
    runtime.generate_titles = False
    sid = await runtime.prompt("change a", handle=RunHandle(interactive=True, bridge=panel))
    first, second = tool_parts(runtime, sid)
    assert first.state.status == "completed" and second.state.status == "error"
    assert "already has an edit waiting for the user's review" in second.state.error  # type: ignore[union-attr]
    assert panel.cells[0]["metadata"][REVIEW_KEY]["action"] == "replace"


def test_notebook_read_says_which_cells_wait_for_review() -> None:
    shown = format_cell(
        2, {"id": "n", "cell_type": "code", "source": "", "metadata": {REVIEW_KEY: {"action": "insert"}}}
    )
    assert "staged insert waits for the user's review (not applied)" in shown


async def test_other_code_can_stage_an_insert_below_a_cell(make_runtime: Any) -> None:
    """The API "Add as cell" uses: a proposal below a given cell, its decision told to the caller."""
    panel = FakePanel("a = 1", "b = 2")
    runtime = make_runtime()
    told: list[str] = []

    async def decided(edit: StagedEdit, outcome: ReviewOutcome, bridge: Any) -> None:
        told.append(f"{outcome.decision} {edit.source}")

    staged = await runtime.stage_insert(panel, "c = 3", below="c0", on_decided=decided)
    assert [c["source"] for c in panel.cells] == ["a = 1", "", "b = 2"] and staged.cell_id == "staged-new"
    await runtime.review(panel.decide(staged.id, "accept"), panel)
    assert told == ["accept c = 3"] and [c["source"] for c in panel.cells] == ["a = 1", "c = 3", "b = 2"]
