"""Settings changed in a running kernel apply from the next prompt, told once (a real kernel).

A kernel lives for days: a model set with ``%env``, a permission rule added to
``jupyter-agent.json``, a broken file and its fix must not wait for a restart. The side
panel's path is in tests/ui/test_panel_settings.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kernel_harness import CellResult, Kernel
from scripted_server import Reply, ToolCall

from jupyter_agent import trust

pytestmark = pytest.mark.kernel
NOTICE = "Settings changed ("


def _plain(result: CellResult) -> str:
    return "".join(o["data"].get("text/plain", "") for o in result.outputs)


def _bash(command: str) -> Reply:
    return Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))])


def test_rules_models_and_broken_files_apply_from_the_next_prompt(
    tmp_path: Path, scripted_server: Any
) -> None:
    env = {
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JUPYTER_AGENT_NOTEBOOK": str(tmp_path / "analysis.ipynb"),
    }
    kernel = Kernel(tmp_path, env)  # no front end (a runner): "ask" refuses with a note
    try:
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        scripted_server.queue(_bash("echo one > first.txt"), Reply(text="ran it"))
        first = kernel.execute("%agent run the command")
        assert first.status == "ok", first.error
        assert (tmp_path / "first.txt").exists() and NOTICE not in _plain(first)

        # a rule added to jupyter-agent.json after the first prompt: enforced on the next one
        (tmp_path / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
        scripted_server.queue(_bash("echo two > second.txt"), Reply(text="could not"))
        second = kernel.execute("%agent run it again")
        assert second.status == "ok", second.error
        assert not (tmp_path / "second.txt").exists()
        refused = [m for m in scripted_server.requests[-1]["body"]["messages"] if m["role"] == "tool"]
        assert "jupyter-agent.json" in refused[-1]["content"]
        assert f"{NOTICE}{tmp_path / 'jupyter-agent.json'})" in _plain(second)

        # another model set in the kernel's environment: the next prompt uses it, told once
        kernel.execute("%env JUPYTER_AGENT_MODEL=openai/other-model")
        scripted_server.queue(Reply(text="hello from the other model"))
        third = kernel.execute("%agent who are you?")
        assert third.status == "ok", third.error
        assert scripted_server.requests[-1]["body"]["model"] == "other-model"
        assert f"{NOTICE}JUPYTER_AGENT_MODEL)" in _plain(third)
        scripted_server.queue(Reply(text="nothing new"))
        fourth = kernel.execute("%agent anything new?")
        assert fourth.status == "ok" and NOTICE not in _plain(fourth)

        # a broken file stops the next prompt with its one line (nothing is sent); the fix is read
        sent = len(scripted_server.requests)
        (tmp_path / "jupyter-agent.json").write_text('{"permission": ')
        broken = kernel.execute("%agent are you there?")
        assert broken.status == "error" and broken.error is not None
        assert "jupyter-agent.json: invalid JSON at line 1" in broken.error["evalue"]
        assert len(scripted_server.requests) == sent
        (tmp_path / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "allow"}}))
        scripted_server.queue(_bash("echo three > third.txt"), Reply(text="ran"))
        fixed = kernel.execute("%agent run it once more")
        assert fixed.status == "ok", fixed.error
        assert (tmp_path / "third.txt").exists()

        # a step cap set now: a run that hits it fails the (headless) cell with that one line
        (tmp_path / "jupyter-agent.json").write_text(json.dumps({"steps": 1}))
        scripted_server.queue(_bash("echo four > fourth.txt"))
        capped = kernel.execute("%agent run it forever")
        assert capped.status == "error" and capped.error is not None
        assert capped.error["evalue"].startswith("Maximum steps reached (1 model calls for this prompt)")
        assert not (tmp_path / "fourth.txt").exists()

        # a user data folder that trusts nothing yet (a user's first day): the file is left out
        # and the headless cell stops with the one line naming `jupyter-agent trust`, before
        # anything is sent; trusting it from a terminal applies it from the next prompt
        fresh = {"JUPYTER_AGENT_DATA_DIR": str(tmp_path.parent / f"{tmp_path.name}-data")}
        kernel.execute(f"%env JUPYTER_AGENT_DATA_DIR={fresh['JUPYTER_AGENT_DATA_DIR']}")
        config = tmp_path / "jupyter-agent.json"
        config.write_text(json.dumps({"permission": {"bash": "deny"}}))
        sent = len(scripted_server.requests)
        untrusted = kernel.execute("%agent run it")
        assert untrusted.status == "error" and untrusted.error is not None
        assert f"`jupyter-agent trust {config}`" in untrusted.error["evalue"]
        assert len(scripted_server.requests) == sent
        trust.record(config, trust.digest(config.read_bytes()), "trust", fresh)
        scripted_server.queue(_bash("echo five > fifth.txt"), Reply(text="refused"))
        trusted = kernel.execute("%agent run it")
        assert trusted.status == "ok", trusted.error
        assert not (tmp_path / "fifth.txt").exists() and f"{NOTICE}" in _plain(trusted)
    finally:
        kernel.shutdown()
