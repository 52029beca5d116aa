"""Parsing `@server:uri` and `/server:prompt args` (pure): what counts as a mention, how
arguments fill a prompt's parameters, and the one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from jupyter_agent.agent.permissions import PermissionManager, evaluate
from jupyter_agent.config import load_config
from jupyter_agent.core.bus import Bus
from jupyter_agent.kernel.cell_completion import cell_completions
from jupyter_agent.mcp.config import LocalServer
from jupyter_agent.mcp.context import (
    McpInputError,
    _check,
    expand,
    prompt_arguments,
    resource_mentions,
    slash_prompt,
)
from jupyter_agent.mcp.manager import McpManager
from jupyter_agent.mcp.transport import PromptInfo, ResourceInfo

SERVERS = {"docs": object(), "cell": object()}
ARGS = PromptInfo("args-prompt", "two arguments", [("city", True), ("state", False)])
ASK = PromptInfo("ask", "one question", [("question", True)])
PLAIN = PromptInfo("simple-prompt", "no arguments")


def test_resource_mentions_only_of_configured_servers_outside_code() -> None:
    prompt = (
        'compare @docs:file:///a/b.md, @docs:"demo://x y" and `@docs:in-code` with @df:x, '
        "mail a@docs:z, @cell:3 and @other:thing."
    )
    assert resource_mentions(prompt, SERVERS) == [
        ("@docs:file:///a/b.md", "docs", "file:///a/b.md"),
        ('@docs:"demo://x y"', "docs", "demo://x y"),
    ]


def test_slash_prompts_with_and_without_the_server() -> None:
    servers = {"everything": [ARGS, PLAIN], "other": [PLAIN]}
    assert slash_prompt("/everything:args-prompt city=Paris", servers) == ("everything", ARGS, "city=Paris")
    assert slash_prompt("/args-prompt Paris", servers) == ("everything", ARGS, "Paris")  # one server has it
    assert slash_prompt("/simple-prompt", servers) is None  # two servers have it: name the server
    assert slash_prompt("/etc/hosts is broken", servers) is None  # a path is a prompt's text
    assert slash_prompt("/nobody:args-prompt", servers) is None  # not an MCP server
    with pytest.raises(McpInputError, match=r"has no prompt 'nope'; its prompts: /everything:args-prompt"):
        slash_prompt("/everything:nope", servers)


def test_arguments_by_name_in_order_and_the_rest_of_the_line() -> None:
    assert prompt_arguments("s", ARGS, "city=Paris state=TX") == {"city": "Paris", "state": "TX"}
    assert prompt_arguments("s", ARGS, "Paris Texas") == {"city": "Paris", "state": "Texas"}
    assert prompt_arguments("s", ARGS, "'New York'") == {"city": "New York"}
    assert prompt_arguments("s", ASK, "what's in the box?") == {"question": "what's in the box?"}
    with pytest.raises(McpInputError, match=r"needs city \(usage: /s:args-prompt city=… \[state=…\]\)"):
        prompt_arguments("s", ARGS, "state=TX")
    with pytest.raises(McpInputError, match="takes no arguments"):
        prompt_arguments("s", PLAIN, "extra words")


def test_a_denied_resource_or_prompt_is_one_line() -> None:
    with pytest.raises(McpInputError, match=r"refused by the permission rules \(docs_resources: deny\)"):
        _check(
            lambda permission, value: "deny", "docs_resources", "file:///x", "The resource @docs:file:///x"
        )
    _check(lambda permission, value: "ask", "docs_prompts", "ask", "The prompt")  # typing it is the approval


def test_tab_in_an_agent_cell_offers_mentions_and_prompts() -> None:
    status = SimpleNamespace(
        state="connected",
        resources=[ResourceInfo(f"demo://resource/{n}.md", f"{n}.md") for n in ("a", "b")],
        prompts=[ARGS],
    )
    runtime = SimpleNamespace(services=SimpleNamespace(mcp=SimpleNamespace(servers={"everything": status})))
    agent = SimpleNamespace(_runtime=runtime, shell=SimpleNamespace(user_ns={"df": 1}))
    runtime.working_dir = Path.cwd()
    line = "%agent summarize @everything:demo://resource/"
    # IPython replaces the token after its last delimiter ("//resource/" here)
    assert cell_completions(agent, line, line, "//resource/") == ["//resource/a.md", "//resource/b.md"]
    assert cell_completions(agent, "%agent @every", "%agent @every", "every") == ["everything:"]
    assert cell_completions(agent, "%agent /ev", "%agent /ev", "/ev") == ["/everything:args-prompt"]
    assert cell_completions(agent, "x = 1 @ y", "x = 1 @ y", "y") is None  # not an agent cell


async def test_the_admins_floor_keeps_a_servers_resources_and_prompts_out(tmp_path: Path) -> None:
    """`"everything_*": "deny"` in the admin's file refuses the server's tools, resources and
    prompts alike; a user's own allow rule does not lift it."""
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"permission": {"everything_*": "deny"}}))
    own = {"permission": {"everything_resources": "allow"}}
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(own))
    config = load_config(tmp_path, env={}, global_dir=tmp_path / "g", system_file=admin)
    rules = PermissionManager(Bus(), config).rules_for("build")

    def rule(permission: str, value: str) -> str:
        return evaluate(rules, permission, [value], default="allow")

    manager = McpManager({"everything": LocalServer(command=["never-started"])}, tmp_path)
    status = manager.servers["everything"]
    status.state, status.prompts = "connected", [PLAIN]
    status.resources = [ResourceInfo("demo://a", "a")]
    with pytest.raises(McpInputError, match="everything_resources: deny"):
        await expand(manager, "read @everything:demo://a", "read @everything:demo://a", rule)
    with pytest.raises(McpInputError, match="everything_prompts: deny"):
        await expand(manager, "/everything:simple-prompt", "/everything:simple-prompt", rule)
    assert await expand(manager, "no mention here", "no mention here", rule) == "no mention here"
    # only what the user typed is read: a mention inside an attached file's text is not
    attached = "<mention_1>see @everything:demo://a and /everything:simple-prompt</mention_1>"
    built = f"summarise @file:x.md\n\n{attached}"
    assert await expand(manager, "summarise @file:x.md", built, lambda p, v: "allow") == built
