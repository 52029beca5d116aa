"""Issue 26.6: the user's credential stores stay unread by the file tools too.

The sandbox hides them from commands (``test_sandbox.py``); ``read``, ``grep``, ``glob``,
``list``, ``write`` and ``edit`` refuse them or leave them out, whatever the rules allow,
and ``sandbox.deny_read`` adds more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostile import refused, run_tool

ALLOW_ALL = {"external_directory": "allow", "read": "allow", "grep": "allow", "list": "allow"}


@pytest.fixture
def home(outside: Path, monkeypatch: Any) -> Path:
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE-KEY-CONTENT")
    (home / ".netrc").write_text("machine x password NETRC-SECRET")
    (home / ".config" / "gcloud").mkdir(parents=True)
    (home / ".config" / "gcloud" / "credentials.db").write_text("GCLOUD-SECRET")
    (home / "notes.txt").write_text("nothing secret NOTES")
    (home / "vault.txt").write_text("VAULT-SECRET")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


@pytest.mark.parametrize("name", [".netrc", ".ssh/id_rsa", ".config/gcloud/credentials.db", "vault.txt"])
async def test_read_refuses_a_credential_store(
    make_runtime: Any, scripted_model: Any, home: Path, name: str
) -> None:
    runtime = make_runtime(permission=ALLOW_ALL, sandbox={"deny_read": ["~/vault.txt"]})
    part = await run_tool(runtime, scripted_model, "read", filePath=str(home / name))
    assert "hidden from the agent" in refused(part)
    assert "SECRET" not in str(scripted_model.requests[-1]) and "PRIVATE" not in str(
        scripted_model.requests[-1]
    )


async def test_a_link_to_a_credential_store_is_refused(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, home: Path
) -> None:
    (tmp_path / "innocent.txt").symlink_to(home / ".netrc")
    part = await run_tool(make_runtime(permission=ALLOW_ALL), scripted_model, "read", filePath="innocent.txt")
    assert "hidden from the agent" in refused(part)


async def test_searches_leave_them_out(make_runtime: Any, scripted_model: Any, home: Path) -> None:
    runtime = make_runtime(permission=ALLOW_ALL)
    grep = await run_tool(
        runtime, scripted_model, "grep", pattern="NETRC|GCLOUD|PRIVATE|NOTES", path=str(home)
    )
    assert grep.state.status == "completed", grep.state
    assert "notes.txt" in grep.state.output
    assert not any(s in grep.state.output for s in ("NETRC-", "GCLOUD-", "PRIVATE-"))
    listing = await run_tool(runtime, scripted_model, "list", path=str(home / ".ssh"))
    assert "id_rsa" not in str(listing.state)


async def test_writes_are_refused(make_runtime: Any, scripted_model: Any, home: Path) -> None:
    runtime = make_runtime(permission=ALLOW_ALL | {"edit": "allow"})
    keys = home / ".ssh" / "authorized_keys"
    part = await run_tool(runtime, scripted_model, "write", filePath=str(keys), content="ssh-ed25519 AAAA")
    assert "hidden from the agent" in refused(part) and not keys.exists()
