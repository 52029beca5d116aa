"""A team deployment, tested: a real JupyterHub with two users, an admin's jupyter-agent file
pointing every agent at a gateway (the scripted server standing in for a LiteLLM proxy) with
a locked permission floor, and each user's own gateway key from the hub.

Each user's kernel runs `%%agent --wait` through the hub (REST API and the kernel websocket,
both through the hub's proxy); sessions live in each user's own folder and neither user can
list or open the other's; a user's config that tries every way to loosen the admin's
settings (files, environment, flags, agent-level rules, call options) changes nothing.
One hub for the module: it is the slow part.

The users' servers run as this OS user (SimpleLocalProcessSpawner, see hub_harness.py), so
what keeps them apart here is the hub (tokens, per-user URLs) and each server's own root
folder, not file permissions; README "Deploying for a team" says what a real deployment adds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hub_harness import Hub, missing
from scripted_server import Reply, ScriptedServer, ToolCall

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(900)]
KEYS = {"alice": "sk-alice-virtual-key", "bob": "sk-bob-virtual-key"}
SERVER_SIDE = ("jupyterlab", "jupyter_server", "notebook", "jupyterhub")


@dataclass
class Team:
    hub: Hub
    gateway: ScriptedServer
    admin_file: Path
    tokens: dict[str, str] = field(default_factory=dict)
    kernels: dict[str, str] = field(default_factory=dict)

    async def run(self, user: str, code: str) -> str:
        return await self.hub.execute(user, self.tokens[user], self.kernels[user], code)


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("hub")
    gateway = ScriptedServer().start()
    admin_file = folder / "etc" / "jupyter-agent" / "config.json"
    admin_file.parent.mkdir(parents=True)
    admin = {
        "model": "openai/team-coder",
        "api_base": gateway.base_url,
        "budget": {"session_usd": 5},
        "permission": {"edit": "deny", "bash": {"*": "deny"}},  # edit: what the write tool asks
        "locked": ["model", "api_base", "budget", "permission.bash"],
    }
    admin_file.write_text(json.dumps(admin))
    hub = Hub(folder, admin_file, KEYS)
    try:
        hub.start()
        team = Team(hub, gateway, admin_file)
        hub.spawn(*KEYS)
        for user in KEYS:
            team.tokens[user] = hub.token_for(user)
            team.kernels[user] = hub.new_kernel(user, team.tokens[user])
        yield team
    finally:
        hub.stop()
        gateway.stop()
    assert hub.blocked() == [], hub.blocked()


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["body"]["messages"] if m["role"] == "tool"]


async def test_each_user_runs_the_agent_in_their_own_folder_with_their_own_key(team: Team) -> None:
    for user in ("bob", "alice"):
        team.gateway.queue(Reply(text=f"Hello {user}, from the team model."))
        await team.run(user, "%load_ext jupyter_agent")
        out = await team.run(user, f"%%agent --wait\nPlan for {user}: what should we look at first?")
        assert f"Hello {user}, from the team model." in out, out
        request = team.gateway.requests[-1]
        headers = {k.lower(): v for k, v in request["headers"].items()}
        assert headers["authorization"] == f"Bearer {KEYS[user]}"  # the hub gave each their own
        assert request["body"]["model"] == "team-coder"  # the admin's model, at the admin's gateway
        assert (team.hub.home(user) / ".jupyter-agent" / "sessions.db").is_file()
        # the kernel side needs no server packages, and holds no provider key
        probe = (
            "import os, sys\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {SERVER_SIDE!r}))\n"
            "print(sorted(k for k in os.environ if k.endswith('_API_KEY')))"
        )
        assert (await team.run(user, probe)).split("\n")[:2] == ["[]", "['JUPYTER_AGENT_API_KEY']"]


async def test_neither_user_can_list_or_open_the_others_sessions(team: Team) -> None:
    hub, alice = team.hub, team.tokens["alice"]
    mine = hub.request("GET", "/user/alice/api/contents/.jupyter-agent", alice)
    assert mine[0] == 200 and "sessions.db" in {f["name"] for f in mine[1]["content"]}
    for path in (
        "/user/bob/api/contents/.jupyter-agent",
        "/user/bob/api/contents/.jupyter-agent/sessions.db",
        "/user/bob/files/.jupyter-agent/sessions.db",
        "/user/bob/api/sessions",
    ):
        assert hub.request("GET", path, alice)[0] == 403, path
    # the server's root is the user's own folder: no way up and across
    assert hub.request("GET", "/user/alice/api/contents/..%2Fbob%2F.jupyter-agent", alice)[0] in (400, 404)
    # the agent lists only the user's own sessions
    bob_ids = set(re.findall(r"ses_\w+", await team.run("bob", "%agent sessions")))
    alice_ids = set(re.findall(r"ses_\w+", await team.run("alice", "%agent sessions")))
    assert bob_ids and alice_ids and not bob_ids & alice_ids
    # nor can alice's agent open bob's store: outside her folder, and a --wait run cannot ask
    bob_db = hub.home("bob") / ".jupyter-agent" / "sessions.db"
    team.gateway.queue(
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": str(bob_db)}))]),
        Reply(text="I could not read it."),
    )
    out = await team.run("alice", "%%agent --wait\nRead bob's session store.")
    assert "I could not read it." in out
    (result,) = _tool_results(team.gateway.requests[-1])
    assert "external_directory" in result and "SQLite format" not in result


async def test_the_admin_floor_holds_against_a_users_config(team: Team) -> None:
    home = team.hub.home("alice")
    elsewhere = "http://127.0.0.1:9/v1"
    (home / ".config" / "jupyter-agent").mkdir(parents=True)
    (home / ".config" / "jupyter-agent" / "config.json").write_text(
        json.dumps(
            {
                "model": "openai/gpt-5",
                "budget": {"session_usd": 1000},
                "permission": {"*": "allow", "edit": "allow", "bash": "allow"},
                "agent": {
                    "build": {"model": "openai/gpt-5", "permission": {"edit": "allow", "bash": "allow"}}
                },
            }
        )
    )
    (home / "jupyter-agent.json").write_text(
        json.dumps(
            {"api_base": elsewhere, "models": {"openai/team-coder": {"options": {"api_base": elsewhere}}}}
        )
    )
    # a fresh kernel reads the files; the environment and a flag try too
    team.kernels["alice"] = team.hub.new_kernel("alice", team.tokens["alice"])
    await team.run("alice", f"%env JUPYTER_AGENT_MODEL=openai/gpt-5\n%env JUPYTER_AGENT_API_BASE={elsewhere}")
    await team.run("alice", "%load_ext jupyter_agent")
    team.gateway.queue(
        Reply(
            tool_calls=[
                ToolCall("write", json.dumps({"filePath": "owned.txt", "content": "x"})),
                ToolCall("bash", json.dumps({"command": "echo pwned > pwned.txt"})),
            ]
        ),
        Reply(text="Both were refused."),
    )
    before = len(team.gateway.requests)
    out = await team.run(
        "alice", "%%agent --new --model openai/gpt-5 --wait\nWrite owned.txt, then run the command."
    )
    assert "Both were refused." in out, out
    calls = team.gateway.requests[before:]
    assert len(calls) == 2 and {c["body"]["model"] for c in calls} == {"team-coder"}
    assert not (home / "owned.txt").exists() and not (home / "pwned.txt").exists()
    results = _tool_results(calls[1])
    assert len(results) == 2 and all("administrator's settings" in r for r in results), results
    # one notice names the admin's file and what was ignored
    notice = next(
        line for line in out.splitlines() if "Ignored settings that the administrator locked" in line
    )
    assert str(team.admin_file) in notice
    for key in ("model", "api_base", "budget", "permission.bash", "agent.build.model"):
        assert f"{key} (from" in notice, (key, notice)
