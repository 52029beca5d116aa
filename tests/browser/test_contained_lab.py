"""Issue 38.1 from a real ``jupyter lab`` in Chromium: a notebook on the "Python 3
(contained)" kernel. The user's cell and the agent's ``python`` both fail to write outside
the project and to read a planted ``~/.ssh/id_test``, the agent's ``bash`` cannot write
outside either; the project and the store stay writable; the widget, the transcript and the
side panel say "contained"."""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_harness import ARTIFACTS, open_notebook, running_lab, write_notebook
from scripted_server import Reply, ToolCall

from jupyter_agent.contained import kernelspec
from jupyter_agent.tools import sandbox

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
    ),
]
PANEL = "#jupyter-agent-panel"
PROBE = """
import json, os
found = {{}}
for name, act in {{
    "outside": lambda: open({outside!r} + "/{who}.txt", "w"),
    "key": lambda: open(os.path.expanduser("~/.ssh/id_test")).read(),
    "project": lambda: open("{who}.txt", "w").write("ok"),
    "store": lambda: open(".jupyter-agent/{who}", "w").write("ok"),
}}.items():
    try:
        act()
        found[name] = "ok"
    except OSError as exc:
        found[name] = type(exc).__name__
print(json.dumps(found))
"""
CONTAINED = {"outside": "OSError", "key": "FileNotFoundError", "project": "ok", "store": "ok"}


@pytest.fixture
def lab(tmp_path: Path, scripted_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    kernelspec.install(prefix=str(tmp_path / "prefix"))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "prefix" / "share" / "jupyter"))
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_test").write_text("PRIVATE KEY\n")
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "work"
    (project / ".jupyter-agent").mkdir(parents=True)
    outside = Path(tempfile.mkdtemp(prefix="ja-outside-", dir="/var/tmp"))  # not the temp folder
    try:
        path = write_notebook(
            project / "contained.ipynb",
            PROBE.format(outside=str(outside), who="cell"),
            "%load_ext jupyter_agent",
            "%agent probe the sandbox",
        )
        nb = nbformat.read(path, as_version=4)
        nb.metadata["kernelspec"] = {"name": kernelspec.DEFAULT_NAME, "display_name": kernelspec.DISPLAY_NAME}
        nbformat.write(nb, path)
        with running_lab(tmp_path, scripted_server) as server:
            yield server, project, outside
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_a_contained_kernel_from_jupyterlab(lab: Any, scripted_server: Any, chromium: Any) -> None:
    server, project, outside = lab
    code = PROBE.format(outside=str(outside), who="agent")
    # the outside path spelled so no parser sees it (bash would ask): only the sandbox stops it
    head, tail = str(outside / "bash.txt")[:5], str(outside / "bash.txt")[5:]
    shell = f"echo ok > bash.txt; touch \"$(printf '%s%s' {shlex.quote(head)} {shlex.quote(tail)})\""
    scripted_server.queue(
        Reply(
            tool_calls=[
                ToolCall("python", json.dumps({"code": code})),
                ToolCall("bash", json.dumps({"command": shell, "description": "probe"})),
            ]
        ),
        Reply(text="Probed the sandbox." + " More." * 200, chunk_size=6, delay_per_chunk=0.03),
    )
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_notebook(page, server.url("work/contained.ipynb"))
        assert page.locator(".jp-NotebookPanel .jp-KernelName").first.inner_text() == kernelspec.DISPLAY_NAME
        page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
        page.keyboard.press("Escape")
        for _ in range(3):
            page.keyboard.press("Shift+Enter")
        badge = page.locator(".jp-NotebookPanel [data-testid=ja-contained]")
        badge.first.wait_for(state="visible", timeout=120_000)  # the live widget's status line
        transcript = page.locator(".jp-NotebookPanel .jp-agent-transcript")
        transcript.wait_for(timeout=120_000)
        assert "· contained ·" in transcript.inner_text()
        cell = page.locator(".jp-NotebookPanel .jp-Cell").first.locator(".jp-OutputArea-output")
        assert json.loads(cell.inner_text().strip().splitlines()[-1]) == CONTAINED
        python_out, bash_out = (
            m["content"] for m in scripted_server.requests[-1]["body"]["messages"] if m["role"] == "tool"
        )
        assert json.loads(python_out.strip().splitlines()[-1]) == CONTAINED
        assert "Read-only file system" in bash_out
        assert not [p.name for p in outside.iterdir()]  # neither the cell, the python tool nor bash
        assert (project / "agent.txt").read_text() == "ok" and (project / "bash.txt").read_text() == "ok\n"
        assert (project / ".jupyter-agent" / "cell").exists()
        page.click('.jp-SideBar .lm-TabBar-tab[data-id="jupyter-agent-panel"]')
        page.wait_for_selector(f'{PANEL}[data-state="open"]', timeout=60_000)
        # the panel's own bar (its embedded view's header comes later in the document)
        page.locator(f"{PANEL} [data-testid=ja-contained]").first.wait_for(state="visible", timeout=30_000)
    finally:
        page.screenshot(path=str(ARTIFACTS / "contained-lab.png"), full_page=True)
        page.close()
