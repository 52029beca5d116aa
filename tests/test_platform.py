"""Windows is refused at import with one line (the sandbox, process groups, file locks and
signals the agent relies on are POSIX): `import jupyter_agent`, `%load_ext`, the command."""

from __future__ import annotations

import subprocess
import sys

CHECK = "import sys; sys.platform = {platform!r}; import jupyter_agent; print('imported')"


def _import_as(platform: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHECK.format(platform=platform)], capture_output=True, text=True, timeout=120
    )


def test_windows_is_refused_in_one_line() -> None:
    done = _import_as("win32")
    assert done.returncode == 1 and "imported" not in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "ImportError: jupyter-agent runs on Linux and macOS only for now (not Windows); "
        "on Windows, use it in WSL 2."
    ), done.stderr


def test_linux_and_macos_import() -> None:
    for platform in ("linux", "darwin"):
        done = _import_as(platform)
        assert done.returncode == 0 and done.stdout.strip() == "imported", done.stderr
