"""``jupyter-agent verify`` when it cannot start: one line and exit 2, before any kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.cli import main


@pytest.mark.parametrize(
    ("args", "write", "expected"),
    [
        (["missing.ipynb"], None, "No notebook at"),
        (["broken.ipynb"], '{"cells": [', "is not a notebook nbformat can read"),
        (["empty.ipynb", "--kernel", "no-such-kernel"], None, "kernel 'no-such-kernel' is not installed"),
    ],
)
def test_usage_problems_exit_2_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    write: str | None,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.ipynb").write_text(write or "")
    (tmp_path / "empty.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    assert main(["verify", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expected in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_limits_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["verify", str(tmp_path / "a.ipynb"), "--timeout", "0"])
    assert stop.value.code == 2 and "is not a number of seconds above 0" in capsys.readouterr().err


def test_a_broken_config_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "jupyter-agent.json").write_text('{"verify": {"cell_timeout": -1}}')
    (tmp_path / "a.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    assert main(["verify", str(tmp_path / "a.ipynb")]) == 2
    assert "verify.cell_timeout" in capsys.readouterr().err


def test_a_verification_kernel_does_not_verify_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replayed ``%agent`` cell (``--with-agent``) asking to verify would start kernels without end."""
    monkeypatch.setenv("JUPYTER_AGENT_VERIFYING", "1")
    (tmp_path / "a.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    assert main(["verify", str(tmp_path / "a.ipynb")]) == 2
    assert "runs inside a verification" in capsys.readouterr().err
