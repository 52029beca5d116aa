"""A newcomer's path: `scripts/start.sh` installs only what running needs and opens Lab on the
quickstart notebook; `scripts/install.sh` (what test.sh and CI run) installs the rest, with
Chromium from apt when root. The scripts run for real; only the commands that would reach a
registry (pip, apt-get, npm) are stand-ins that record how they were called.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from dist_closure import closure, dist_name

ROOT = Path(__file__).resolve().parents[1]
# what install.sh calls besides the stand-ins (chromium is left out on purpose)
TOOLS = (
    "bash",
    "sh",
    "cat",
    "cut",
    "sha1sum",
    "grep",
    "rm",
    "dirname",
    "basename",
    "mkdir",
    "python3",
    "sleep",
    "cp",
)
CLONE_FILES = (
    "pyproject.toml",
    "scripts/*.sh",
    "notebooks/quickstart.ipynb",
    "labextension/package.json",
    "labextension/src/*.ts",
    "labextension/src/widget/*",
    "labextension/style/*",
    "labextension/schema/*",
    "jupyter_agent/ui/static/*.css",
)
RECORDER = '#!/bin/sh\necho "$(basename "$0") $*" >> "$CALLS"\n'


@dataclass
class Sandbox:
    """A fresh clone named `jupyter-agent`, a PATH without chromium, and recording stand-ins."""

    tmp: Path

    @property
    def clone(self) -> Path:
        return self.tmp / "jupyter-agent"

    @property
    def calls(self) -> list[str]:
        log = self.tmp / "calls.log"
        return log.read_text().splitlines() if log.exists() else []

    def install(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        (self.tmp / "calls.log").unlink(missing_ok=True)
        env = {
            "PATH": str(self.tmp / "bin"),
            "CALLS": str(self.tmp / "calls.log"),
            "HOME": str(self.tmp),
            **(env or {}),
        }
        script = self.clone / "scripts" / "install.sh"
        return subprocess.run(["bash", str(script), *args], env=env, capture_output=True, text=True)

    def stand_in(self, path: Path, body: str = RECORDER) -> None:
        path.unlink(missing_ok=True)
        path.write_text(body)
        path.chmod(0o755)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path)
    for pattern in CLONE_FILES:
        for src in ROOT.glob(pattern):
            dest = box.clone / src.relative_to(ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").unlink()  # the interpreter itself, not a launcher such as a pyenv shim
    (bin_dir / "python3").symlink_to(Path(sys.executable).resolve())
    box.stand_in(bin_dir / "apt-get")
    box.stand_in(bin_dir / "npm")
    box.stand_in(bin_dir / "id", "#!/bin/sh\necho 0\n")  # root, as on a CI machine
    venv_python = box.clone / ".venv" / "bin" / "python"  # an existing venv whose pip records
    venv_python.parent.mkdir(parents=True)
    box.stand_in(venv_python, RECORDER.replace('$(basename "$0")', "pip"))
    return box


def _pip(box: Sandbox) -> str:
    (line,) = [c for c in box.calls if "install -q -e" in c]
    return line


def test_a_run_install_has_no_test_tools_and_no_apt(sandbox: Sandbox) -> None:
    done = sandbox.install("--run")
    assert done.returncode == 0, done.stderr
    assert not [c for c in sandbox.calls if c.startswith("apt-get")]
    assert _pip(sandbox).endswith(".[lab,examples]")
    assert not [c for c in sandbox.calls if c.startswith("npm install --prefix")]  # no test tools
    assert "installing jupyter-agent, JupyterLab" in done.stdout and "installed into .venv" in done.stdout
    steps = [line for line in done.stdout.splitlines() if re.match(r"jupyter-agent: [123]/3 ", line)]
    assert len(steps) == 3, done.stdout  # each stage says what it does (no minutes of silence)
    again = sandbox.install("--run")
    assert again.returncode == 0 and again.stdout == "" and sandbox.calls == []  # nothing to do


def test_the_test_install_adds_the_rest_and_chromium_as_root(sandbox: Sandbox) -> None:
    assert sandbox.install("--run").returncode == 0
    done = sandbox.install()  # after start.sh: the test tools are still missing
    assert done.returncode == 0, done.stderr
    assert "apt-get install -y -qq chromium bubblewrap" in sandbox.calls  # the bash sandbox too
    assert _pip(sandbox).endswith(".[lab,examples,test,proxy,hub,dev]")
    # JupyterHub's proxy for the team test and the reference MCP server: from npm, into the venv
    npm = (
        "npm install --prefix .venv/node --no-audit --no-fund --loglevel=error configurable-http-proxy@^5 "
        "@modelcontextprotocol/server-everything@2026.8.31"
    )
    assert npm in sandbox.calls
    assert sandbox.install("--run").stdout == ""  # a test install holds what running needs


def test_without_root_the_browser_tests_are_announced_as_skipped(sandbox: Sandbox) -> None:
    sandbox.stand_in(sandbox.tmp / "bin" / "id", "#!/bin/sh\necho 1000\n")
    done = sandbox.install()
    assert done.returncode == 0, done.stderr
    assert not [c for c in sandbox.calls if c.startswith("apt-get")]
    assert "chromium is not installed; browser tests will be skipped" in done.stderr


def test_a_missing_npm_or_old_python_is_one_clear_line(sandbox: Sandbox) -> None:
    (sandbox.tmp / "bin" / "npm").unlink()
    done = sandbox.install("--run")
    assert done.returncode == 1 and sandbox.calls == []
    (line,) = done.stderr.strip().splitlines()
    assert "npm not found" in line and "Node.js" in line
    old = '#!/bin/sh\n[ "$1" = --version ] && echo Python 3.8.10\nexit 1\n'
    sandbox.stand_in(sandbox.tmp / "bin" / "python3", old)
    done = sandbox.install("--run")
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 1 and "Python 3.8.10 is too old" in line and "3.10" in line


def test_start_opens_lab_on_the_quickstart(sandbox: Sandbox) -> None:
    venv_bin = sandbox.clone / ".venv" / "bin"
    (venv_bin / "jupyter").symlink_to(Path(sys.executable).with_name("jupyter"))
    env = {
        "PATH": str(sandbox.tmp / "bin"),
        "CALLS": str(sandbox.tmp / "calls.log"),
        "HOME": str(sandbox.tmp),
        # the no-network guard of tests/conftest.py, in the server too
        **{k: os.environ[k] for k in ("PYTHONPATH", "JUPYTER_AGENT_NETGUARD") if k in os.environ},
    }
    lab = subprocess.Popen(  # port 0: the OS picks one the other test worker cannot take meanwhile
        ["bash", str(sandbox.clone / "scripts" / "start.sh"), "--no-browser", "--port=0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(lab.stdout.readline, "")), daemon=True).start()  # type: ignore[union-attr]
    try:
        url = _wait_for(lines, re.compile(r"http://127\.0\.0\.1:\d+/\S+"))
        port = int(url.split(":")[2].split("/")[0])
        assert "/lab/tree/scratch/quickstart.ipynb?token=" in url, url
        assert _open_when_listening(url) == 200
        token = url.split("token=")[1]
        contents = f"http://127.0.0.1:{port}/api/contents/scratch/quickstart.ipynb?content=0&token={token}"
        with urllib.request.urlopen(contents, timeout=30) as found:
            assert found.status == 200  # the server's root is notebooks/
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
    said = [line for line in lines if line.startswith("jupyter-agent:")]
    assert said[0].startswith("jupyter-agent: installing jupyter-agent, JupyterLab"), said
    assert any("starting JupyterLab on notebooks/scratch/quickstart.ipynb" in line for line in said), said
    copy = sandbox.clone / "notebooks" / "scratch" / "quickstart.ipynb"
    assert copy.read_bytes() == (sandbox.clone / "notebooks" / "quickstart.ipynb").read_bytes()
    assert _pip(sandbox).endswith(".[lab,examples]")


def test_a_slow_step_says_it_still_runs_and_its_errors_show(sandbox: Sandbox) -> None:
    """Three minutes of silence (pip -q, the npm build inside it): a slow step now says it
    still runs, and a failing one still shows its error and stops the script."""
    slow = '#!/bin/sh\necho "pip $*" >> "$CALLS"\ncase "$*" in *-e*) sleep 3;; esac\n'
    sandbox.stand_in(sandbox.clone / ".venv" / "bin" / "python", slow)
    done = sandbox.install("--run", env={"JUPYTER_AGENT_PROGRESS_S": "1"})
    assert done.returncode == 0, done.stderr
    assert "… still installing (pip, then the npm build of the side panel)" in done.stdout, done.stdout
    error = "ERROR: No matching distribution for litellm"
    broken = f'#!/bin/sh\ncase "$*" in *-e*) echo "{error}" >&2; exit 1;; esac\n'
    sandbox.stand_in(sandbox.clone / ".venv" / "bin" / "python", broken)
    (sandbox.clone / ".venv" / ".jupyter-agent-installed").unlink(missing_ok=True)
    failed = sandbox.install("--run")
    assert failed.returncode != 0 and error in failed.stderr
    assert "installed into .venv" not in failed.stdout


def test_the_quickstart_copy_start_opens_is_ignored_by_git() -> None:
    """Running the quickstart dirtied a tracked file (`M notebooks/quickstart.ipynb`)."""
    copy = "notebooks/scratch/quickstart.ipynb"
    assert copy in (ROOT / "scripts" / "start.sh").read_text()
    ignored = subprocess.run(["git", "check-ignore", "-q", copy], cwd=ROOT)
    assert ignored.returncode == 0, f"{copy} is not ignored by git"


def test_the_quickstart_opens_unmodified_and_sets_no_model() -> None:
    """It opened "modified" (no language_info) and set JUPYTER_AGENT_MODEL over the model the
    README told the user to configure (an Anthropic client then talked to a local server)."""
    nb = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())
    assert nb["metadata"]["language_info"]["name"] == "python"
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = [line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith("#")]
        assert not [line for line in code if "JUPYTER_AGENT_" in line], code
        assert not cell.get("outputs") and cell.get("execution_count") is None
    first = "".join(nb["cells"][1]["source"])
    assert "%agent config model" in first  # it shows what is configured, and from where


def _open_when_listening(url: str, timeout: float = 90) -> int:
    """The page's status. Jupyter may print its URL a moment before it listens there (it finds a
    free port for ``--port=0`` first), so a refused connection is tried again until ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as page:
                return int(page.status)
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _wait_for(lines: list[str], pattern: re.Pattern[str], timeout: float = 90) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in list(lines):
            if match := pattern.search(line):
                return match.group(0)
        time.sleep(0.2)
    raise AssertionError("JupyterLab printed no URL:\n" + "".join(lines))


def test_the_quickstart_needs_only_what_start_installs() -> None:
    """Every module the quickstart imports (and pandas' plotting) comes with the package or
    its `examples` extra, not with the test tools."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = closure([*project["dependencies"], *extras["lab"], *extras["examples"]])
    nb = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())
    modules = {"matplotlib"}  # the agent's plots (sales.plot) need it
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or source.startswith("%%"):
            continue  # a %%agent cell's body is a prompt
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                modules |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                modules.add(node.module.split(".")[0])
    owners = metadata.packages_distributions()
    missing = {
        m
        for m in modules - set(sys.stdlib_module_names)
        if not {dist_name(d) for d in owners.get(m, [])} & wanted
    }
    assert not missing, f"the quickstart imports {missing}, which start.sh does not install"


def test_start_installs_notebook_7() -> None:
    """README says the panel works in Notebook 7, but start.sh did not install `notebook`."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    script = (ROOT / "scripts" / "install.sh").read_text()
    extras = re.search(r"extras=([\w,]+)", script)  # the first one: the run install's
    assert extras, script
    wanted = [*project["dependencies"]]
    for extra in extras.group(1).split(","):
        wanted += project["optional-dependencies"][extra]
    assert [d for d in wanted if re.match(r"notebook\s*(>|=|$)", d)], wanted
