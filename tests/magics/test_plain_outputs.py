"""Every rich output of a magic has a readable ``text/plain`` (terminal IPython, VS Code's
text view, ``jupyter nbconvert --to script``), never an object repr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from scripted_server import Reply

pytestmark = pytest.mark.kernel


def _rich(result: Any) -> list[dict[str, Any]]:
    return [o["data"] for o in result.outputs if o.get("data") and set(o["data"]) != {"text/plain"}]


def _assert_plain(outputs: list[dict[str, Any]]) -> None:
    assert outputs
    for data in outputs:
        plain = data.get("text/plain", "")
        assert plain.strip() and "object>" not in plain and "object at 0x" not in plain, data


def test_sessions_and_export_read_as_plain_text(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "analysis.ipynb")
    scripted_server.queue(Reply(text="The answer is plain."))
    scripted_server.title_reply = Reply(text="Plain title")
    kernel = start_kernel(frontend=True)
    empty = _rich(kernel.execute("%agent sessions"))
    _assert_plain(empty)
    assert "No sessions yet" in empty[0]["text/plain"]
    assert kernel.execute("%agent --wait say something plain").status == "ok"
    listing = _rich(kernel.execute("%agent sessions"))
    _assert_plain(listing)
    header, row = listing[0]["text/plain"].splitlines()
    assert header.split() == ["id", "title", "updated", "cost"]
    assert row.startswith("▶  ses_") and "Plain title" in row
    exported = kernel.execute("%agent export")  # the notebook is open: shown, not written
    shown = _rich(exported)
    _assert_plain(shown)
    assert any("The answer is plain." in d["text/plain"] for d in shown)
