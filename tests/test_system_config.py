"""The admin's system file: read first, its locked keys hold against every later layer, and
its permission rules are a floor that no user rule loosens.

Each test is a way a user's settings could try to undo the admin's (a hostile user with a
config file, environment variables, flags, agent-level rules or model options).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from scripted_server import Reply, ScriptedServer

from jupyter_agent.agent.permissions import PermissionManager, evaluate
from jupyter_agent.agent.ports import PermissionContext
from jupyter_agent.config import Config, ConfigError, load_config, source_files
from jupyter_agent.core.bus import Bus
from jupyter_agent.tools.base import PermissionDenied, PermissionQuestion

GATEWAY = "http://127.0.0.1:4000"
ADMIN: dict[str, Any] = {
    "model": "litellm_proxy/team-coder",
    "api_base": GATEWAY,
    "budget": {"session_usd": 5},
    "permission": {"bash": {"*": "ask", "git status*": "allow", "rm *": "deny"}, "edit": "deny"},
    "locked": ["model", "api_base", "budget", "permission.bash"],
}


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _load(
    tmp_path: Path,
    *,
    admin: dict[str, Any] | None = None,
    user: dict[str, Any] | None = None,
    project: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    flags: dict[str, Any] | None = None,
) -> Config:
    system = _write(tmp_path / "etc" / "config.json", ADMIN if admin is None else admin)
    if user is not None:
        _write(tmp_path / "home" / "config.json", user)
    folder = tmp_path / "proj"
    folder.mkdir(exist_ok=True)
    if project is not None:
        _write(folder / "jupyter-agent.json", project)
    return load_config(folder, flags, env=env or {}, global_dir=tmp_path / "home", system_file=system)


def test_the_admin_file_is_read_first_and_later_layers_set_what_is_not_locked(tmp_path: Path) -> None:
    cfg = _load(tmp_path, user={"steps": 7, "compaction": {"tail_turns": 4}}, project={"steps": 9})
    assert cfg.model == "litellm_proxy/team-coder" and cfg.api_base == GATEWAY
    assert cfg.steps == 9 and cfg.compaction.tail_turns == 4
    assert cfg.sources == [
        "defaults",
        str(tmp_path / "etc" / "config.json"),
        str(tmp_path / "home" / "config.json"),
        str(tmp_path / "proj" / "jupyter-agent.json"),
    ]
    assert cfg.notices == []
    assert cfg.admin_file == str(tmp_path / "etc" / "config.json")
    assert cfg.redacted()["locked"] == {"by": cfg.admin_file, "keys": ADMIN["locked"]}


def test_locked_keys_from_files_are_ignored_with_one_notice_naming_the_admin_file(tmp_path: Path) -> None:
    cfg = _load(
        tmp_path,
        user={"model": "openai/gpt-5", "budget": {"session_usd": 500}},
        project={"api_base": "http://127.0.0.1:9/v1", "permission": {"bash": "allow"}},
    )
    assert cfg.model == "litellm_proxy/team-coder" and cfg.api_base == GATEWAY
    assert cfg.budget.session_usd == 5
    assert cfg.permission["bash"] == ADMIN["permission"]["bash"]
    assert len(cfg.notices) == 1
    line = cfg.notices[0]
    assert str(tmp_path / "etc" / "config.json") in line
    home, proj = tmp_path / "home" / "config.json", tmp_path / "proj" / "jupyter-agent.json"
    for key, where in (("model", home), ("budget", home), ("api_base", proj), ("permission.bash", proj)):
        assert f"{key} (from {where})" in line


def test_setting_a_locked_key_to_the_admins_value_says_nothing(tmp_path: Path) -> None:
    cfg = _load(tmp_path, project={"model": ADMIN["model"], "api_base": GATEWAY})
    assert cfg.model == ADMIN["model"] and cfg.notices == []


def test_environment_variables_cannot_change_locked_keys(tmp_path: Path) -> None:
    env = {
        "JUPYTER_AGENT_MODEL": "openai/gpt-5",
        "JUPYTER_AGENT_API_BASE": "http://127.0.0.1:9/v1",
        "JUPYTER_AGENT_OUTPUT_TOKEN_MAX": "99",
    }
    cfg = _load(tmp_path, admin={**ADMIN, "locked": [*ADMIN["locked"], "output_token_max"]}, env=env)
    assert cfg.model == ADMIN["model"] and cfg.api_base == GATEWAY and cfg.output_token_max is None
    assert "model (from environment)" in cfg.notices[0] and "api_base (from environment)" in cfg.notices[0]


def test_flags_cannot_change_locked_keys(tmp_path: Path) -> None:
    # what `jupyter-agent run --model … --api-base … --budget …` passes
    flags = {"model": "openai/gpt-5", "api_base": "http://127.0.0.1:9/v1", "budget": {"turn_usd": 100}}
    cfg = _load(tmp_path, flags=flags)
    assert cfg.model == ADMIN["model"] and cfg.api_base == GATEWAY and cfg.budget.turn_usd is None
    assert "model (from flags)" in cfg.notices[0] and "budget (from flags)" in cfg.notices[0]


def test_a_locked_model_also_holds_every_other_model_choice(tmp_path: Path) -> None:
    cfg = _load(
        tmp_path,
        project={
            "small_model": "openai/gpt-5",
            "compaction": {"model": "openai/gpt-5", "tail_turns": 3},
            "completion": {"model": "codestral/codestral-latest", "debounce_ms": 100},
            "agent": {"build": {"model": "openai/gpt-5", "steps": 4}, "explore": {"model": "x/y"}},
        },
    )
    assert cfg.small_model is None and cfg.compaction.model is None and cfg.compaction.tail_turns == 3
    assert cfg.completion.model is None and cfg.completion.debounce_ms == 100
    assert cfg.agent["build"].model is None and cfg.agent["build"].steps == 4
    assert "explore" not in cfg.agent
    for key in (
        "small_model",
        "compaction.model",
        "completion.model",
        "agent.build.model",
        "agent.explore.model",
    ):
        assert key in cfg.notices[0]


def test_a_locked_api_base_also_holds_the_call_options_that_would_redirect_calls(tmp_path: Path) -> None:
    evil = "http://127.0.0.1:9/v1"
    cfg = _load(
        tmp_path,
        user={
            "models": {"openai/gpt-4.1": {"options": {"api_base": evil, "temperature": 0.2}}},
            "agent": {"build": {"options": {"base_url": evil}}},
        },
    )
    assert cfg.options_for("openai/gpt-4.1") == {"temperature": 0.2}
    assert "models.openai/gpt-4.1.options.api_base" in cfg.notices[0]
    assert "agent.build.options.base_url" in cfg.notices[0]


def test_a_locked_key_may_name_a_model_id_with_dots(tmp_path: Path) -> None:
    admin = {"models": {"openai/gpt-4.1": {"limit": {"context": 1000}}}, "locked": ["models.openai/gpt-4.1"]}
    cfg = _load(
        tmp_path,
        admin=admin,
        user={"models": {"openai/gpt-4.1": {"limit": {"context": 9999}}, "other/m": {"base_model": "x"}}},
    )
    assert cfg.models["openai/gpt-4.1"].limit.context == 1000
    assert cfg.models["other/m"].base_model == "x"


def test_locked_permission_bash_also_holds_agent_level_bash_rules(tmp_path: Path) -> None:
    cfg = _load(tmp_path, project={"agent": {"build": {"permission": {"bash": "allow", "edit": "ask"}}}})
    assert cfg.agent["build"].permission == {"edit": "ask"}
    assert "agent.build.permission.bash" in cfg.notices[0]


def test_locked_in_a_users_file_is_an_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, project={"locked": []})
    assert "jupyter-agent.json: locked: only the administrator's file" in str(info.value)


def test_a_typo_in_the_locked_list_is_an_error_naming_the_admin_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, admin={"locked": ["modle"]})
    assert str(tmp_path / "etc" / "config.json") in str(info.value)
    assert "did you mean 'model'" in str(info.value)
    with pytest.raises(ConfigError, match="must be a list"):
        _load(tmp_path, admin={"locked": "model"})
    # the sandbox settings may be locked by name before this version knows them
    assert _load(tmp_path, admin={"locked": ["sandbox", "protected"]}).notices == []


def test_the_admin_file_path_comes_from_the_environment(tmp_path: Path) -> None:
    system = _write(tmp_path / "admin.json", {"model": "a/m", "locked": ["model"]})
    env = {"JUPYTER_AGENT_SYSTEM_CONFIG": str(system), "JUPYTER_AGENT_MODEL": "b/m"}
    cfg = load_config(tmp_path, env=env, global_dir=tmp_path / "g")
    assert cfg.model == "a/m" and cfg.sources[1] == str(system)
    assert source_files(tmp_path, env, tmp_path / "g")[0] == system
    # a path named on purpose that is not there is an error, not an admin file quietly gone
    with pytest.raises(ConfigError, match=r"JUPYTER_AGENT_SYSTEM_CONFIG: .* does not exist"):
        load_config(tmp_path, env={"JUPYTER_AGENT_SYSTEM_CONFIG": str(tmp_path / "gone.json")})


def test_a_broken_admin_file_stops_the_agent_rather_than_dropping_the_locks(tmp_path: Path) -> None:
    system = tmp_path / "etc" / "config.json"
    system.parent.mkdir()
    system.write_text('{"model": "a/m", "locked": ["model"]')
    with pytest.raises(ConfigError, match="invalid JSON"):
        load_config(tmp_path, env={}, global_dir=tmp_path / "g", system_file=system)


def test_without_an_admin_file_nothing_changes(tmp_path: Path) -> None:
    assert not Path("/etc/jupyter-agent/config.json").exists()  # this machine has none
    cfg = load_config(tmp_path, {"model": "x/y"}, env={}, global_dir=tmp_path / "g")
    assert cfg.model == "x/y" and cfg.admin_file is None and cfg.permission_floor() == {}


# ---------------------------------------------------------------- the permission floor


def _who(agent: str = "build", interactive: bool = False) -> PermissionContext:
    return PermissionContext("s", agent, "m", "c", interactive=interactive)


@pytest.mark.parametrize(
    "user",
    [
        {"permission": {"edit": "allow"}},
        {"permission": {"*": "allow"}},
        {"permission": {"edit": {"*": "allow", "notes/*": "allow"}}},
        {"agent": {"build": {"permission": {"edit": "allow"}}}},
        {"permission": {"ed*": "allow"}},
    ],
)
async def test_a_user_rule_cannot_loosen_an_admin_deny(tmp_path: Path, user: dict[str, Any]) -> None:
    manager = PermissionManager(Bus(), _load(tmp_path, project=user))
    assert evaluate(manager.rules_for("build"), "edit", ["notes/a.md"]) == "deny"
    with pytest.raises(PermissionDenied) as info:  # what the write and edit tools ask
        await manager.ask(_who(interactive=True), PermissionQuestion("edit", ["notes/a.md"], "Write"))
    assert "administrator's settings" in str(info.value) and str(tmp_path / "etc") in str(info.value)


async def test_more_specific_user_patterns_cannot_loosen_admin_patterns(tmp_path: Path) -> None:
    # permission.bash is not locked here: the user's rules merge, the floor still holds
    admin = {**ADMIN, "locked": []}
    user = {"permission": {"bash": {"rm -rf *": "allow", "*": "allow", "ls *": "deny"}}}
    rules = PermissionManager(Bus(), _load(tmp_path, admin=admin, project=user)).rules_for("build")
    assert evaluate(rules, "bash", ["rm -rf /tmp/x"]) == "deny"
    assert evaluate(rules, "bash", ["make"]) == "ask"
    assert evaluate(rules, "bash", ["git status"]) == "allow"
    assert evaluate(rules, "bash", ["ls -la"]) == "deny"  # stricter than the admin: kept


async def test_the_floor_holds_for_every_agent(tmp_path: Path) -> None:
    user = {"agent": {name: {"permission": {"edit": "allow"}} for name in ("plan", "general", "explore")}}
    manager = PermissionManager(Bus(), _load(tmp_path, project=user))
    for agent in ("build", "plan", "general", "explore"):
        assert evaluate(manager.rules_for(agent), "edit", ["a.txt"]) == "deny", agent


async def test_an_admin_ask_is_not_answered_by_a_headless_run(tmp_path: Path) -> None:
    manager = PermissionManager(Bus(), _load(tmp_path, project={"permission": {"*": "allow"}}))
    manager.headless_reply = "once"  # a run that approves everything by itself
    with pytest.raises(PermissionDenied) as info:
        await manager.ask(_who(), PermissionQuestion("bash", ["make"], "Run make"))
    assert "needs approval (the administrator's settings" in str(info.value)


async def test_admin_rules_for_one_agent_are_a_floor_for_that_agent(tmp_path: Path) -> None:
    admin = {"agent": {"general": {"permission": {"python": "deny"}}}}
    user = {"agent": {"general": {"permission": {"python": "allow"}}}}
    manager = PermissionManager(Bus(), _load(tmp_path, admin=admin, project=user))
    assert evaluate(manager.rules_for("general"), "python", []) == "deny"
    assert evaluate(manager.rules_for("build"), "python", []) == "allow"


async def test_mcp_tools_follow_an_admin_catch_all(tmp_path: Path) -> None:
    admin = {"permission": {"*": "ask"}}
    manager = PermissionManager(
        Bus(), _load(tmp_path, admin=admin, project={"permission": {"docs_x": "allow"}})
    )
    rules = manager.rules_for("build")
    assert evaluate(rules, "docs_x", [], default="ask") == "ask"
    # what a search asks about each file it finds: the catch-all does not withhold them all
    assert manager.action("build", "read", "a.py") == "allow"


def test_the_workspace_ignores_a_model_flag_when_the_model_is_locked(tmp_path: Path) -> None:
    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.storage.sqlite_store import SqliteStore

    cfg = _load(tmp_path)
    store = SqliteStore.for_directory(tmp_path / "proj")
    try:
        runtime = build_runtime(
            config=cfg, store=store, project_root=tmp_path / "proj", working_dir=tmp_path / "proj"
        )
        assert runtime.resolve_model("openai/gpt-5").name == ADMIN["model"]
        assert runtime.resolve_model(ADMIN["model"]).name == ADMIN["model"]
        notices = runtime.take_notices("s", None)
        assert len(notices) == 1 and "model (from --model openai/gpt-5)" in notices[0]
        assert str(tmp_path / "etc" / "config.json") in notices[0]
    finally:
        store.close()


def test_the_command_line_cannot_change_locked_keys(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """`jupyter-agent run` with every flag and variable pointing elsewhere still calls the
    admin's model at the admin's gateway, and says once what it ignored."""
    admin = {**ADMIN, "model": "openai/test", "api_base": scripted_server.base_url}
    system = _write(tmp_path / "etc" / "config.json", admin)
    scripted_server.queue(Reply(text="From the team model."))
    elsewhere = "http://127.0.0.1:9/v1"
    flags = ["--model", "openai/gpt-5", "--api-base", elsewhere, "--budget", "100"]
    done = run_cli(
        ["run", *flags, "hello"],
        tmp_path,
        JUPYTER_AGENT_SYSTEM_CONFIG=str(system),
        JUPYTER_AGENT_MODEL="openai/gpt-4.1",
        JUPYTER_AGENT_API_BASE=elsewhere,
    )
    assert done.returncode == 0, done.stderr
    assert "From the team model." in done.stdout
    assert [r["body"]["model"] for r in scripted_server.requests] == ["test"]
    notices = [line for line in done.stderr.splitlines() if "administrator locked" in line]
    assert len(notices) == 1, done.stderr
    notice = notices[0]
    assert notice.startswith(f"note: Ignored settings that the administrator locked in {system}")
    for ignored in ("model (from environment)", "api_base (from flags)", "budget (from flags)"):
        assert ignored in notice
