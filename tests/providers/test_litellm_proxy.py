"""Team scale: notebooks reach their models through one real LiteLLM proxy.

The proxy (started from its own command, with a master key) routes the alias
``team-coder`` to the scripted OpenAI-compatible server; the agent only knows the alias,
the proxy's address and a proxy key. Nothing leaves this machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import (
    THINKING,
    AnthropicServer,
    AReply,
    AToolUse,
    AUsage,
    breakpoints,
    signature_for,
)
from cli_runner import run_cli
from proxy_harness import MASTER_KEY, LiteLLMProxy
from scripted_server import Reply, ScriptedServer, ToolCall

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.core.messages import AssistantMessage, StepFinishPart, TextPart, ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore

UPSTREAM_KEY = "sk-upstream-provider"


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def claude() -> Iterator[AnthropicServer]:
    server = AnthropicServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy(
    upstream: ScriptedServer, claude: AnthropicServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiteLLMProxy]:
    pytest.importorskip("fastapi", reason="the proxy extra is not installed (scripts/install.sh installs it)")
    folder = tmp_path_factory.mktemp("proxy")
    models = {
        "team-coder": {"model": "openai/test", "api_base": upstream.base_url, "api_key": UPSTREAM_KEY},
        "claude-sonnet": {
            "model": "anthropic/claude-sonnet-4-5",
            "api_base": claude.base_url,
            "api_key": UPSTREAM_KEY,
        },
    }
    running = LiteLLMProxy(folder, models).start()
    yield running
    running.stop()
    assert running.blocked() == [], running.blocked()


@pytest.fixture(autouse=True)
def _fresh(upstream: ScriptedServer, claude: AnthropicServer) -> None:
    upstream.requests.clear()
    upstream.completions.clear()
    claude.clear()
    claude.requests.clear()
    claude.refusals.clear()


async def _turn(proxy: LiteLLMProxy, folder: Path, prompt: str, **flags: Any) -> list[Any]:
    """One prompt from a notebook user's runtime whose model is an alias on the proxy."""
    config = load_config(folder, {"api_base": proxy.base_url, **flags}, global_dir=folder / "no-global")
    store = SqliteStore.for_directory(folder)
    runtime = build_runtime(
        config=config, store=store, project_root=folder, working_dir=folder, generate_titles=False
    )
    try:
        sid = await runtime.prompt(prompt)
        return runtime.store.messages(sid)
    finally:
        store.close()


async def test_a_tool_turn_through_the_proxy(
    proxy: LiteLLMProxy, upstream: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.queue(
        Reply(tool_calls=[ToolCall("bash", '{"command": "echo via-proxy"}')]),
        Reply(text="The shell said via-proxy."),
    )
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", MASTER_KEY)
    history = await _turn(proxy, tmp_path, "run echo via-proxy", model="litellm_proxy/team-coder")
    final = history[-1].info
    assert isinstance(final, AssistantMessage) and final.error is None, final
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.state.status for t in tools] == ["completed"]
    assert "via-proxy" in tools[0].state.output  # type: ignore[union-attr]
    texts = [p.text for p in history[-1].parts if isinstance(p, TextPart)]
    assert texts == ["The shell said via-proxy."]
    # the proxy, not the notebook, holds the provider's key and the real model name
    assert len(upstream.requests) == 2
    for request in upstream.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        assert headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
        assert request["body"]["model"] == "test"
    second = upstream.requests[1]["body"]["messages"]
    assert any(m["role"] == "tool" and "via-proxy" in str(m["content"]) for m in second)
    assert proxy.blocked() == []


async def test_claude_with_thinking_through_the_proxy(
    proxy: LiteLLMProxy, claude: AnthropicServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Extended thinking set in jupyter-agent.json for the alias reaches Anthropic through
    the proxy, and the signed thinking block goes back with the tool result."""
    step = AUsage(input_tokens=1000, output_tokens=100)
    claude.queue(
        AReply(
            thinking="List the folder first.",
            tool_uses=[AToolUse("bash", {"command": "echo listed"})],
            usage=step,
        ),
        AReply(thinking="Done.", text="Listed.", usage=step),
    )
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", MASTER_KEY)
    model = "litellm_proxy/claude-sonnet"
    configured = {"options": THINKING, "base_model": "anthropic/claude-sonnet-4-5"}
    history = await _turn(proxy, tmp_path, "list it", model=model, models={model: configured})
    assert history[-1].info.error is None, history[-1].info
    # priced as its base model: 1000 input + 100 output tokens of Sonnet 4.5 a step
    costs = [p.cost for m in history for p in m.parts if isinstance(p, StepFinishPart)]
    assert costs == pytest.approx([0.0045, 0.0045])
    assert claude.refusals == [] and len(claude.requests) == 2
    second = claude.requests[1]["body"]
    assert second["thinking"] == THINKING["thinking"]
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][-1]
    assert assistant["content"][0]["signature"] == signature_for("List the folder first.")
    assert 3 <= breakpoints(second) <= 4


def test_cli_through_the_proxy_which_refuses_unknown_keys(
    proxy: LiteLLMProxy, upstream: ScriptedServer, tmp_path: Path
) -> None:
    upstream.queue(Reply(text="Hello from the team model."))
    base = ["--model", "openai/team-coder", "--api-base", f"{proxy.base_url}/v1"]
    ok = run_cli(["run", *base, "say hello"], tmp_path, JUPYTER_AGENT_API_KEY=MASTER_KEY)
    assert ok.returncode == 0, ok.stderr
    assert "Hello from the team model." in ok.stdout
    assert "cost: unknown\n" in ok.stderr  # litellm has no price for an alias
    # the proxy, not the notebook, decides who may call: a key it does not know goes no further
    refused = run_cli(["run", *base, "say hello"], tmp_path, JUPYTER_AGENT_API_KEY="team-key-typo")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    (error,) = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    # a proxy without its database answers 400 "No connected db.": say what to check
    assert "No connected db." in error and "did not accept the key" in error, error
    assert "JUPYTER_AGENT_API_KEY" in error and "master key" in error
    assert len(upstream.requests) == 1  # the refused key never reached the provider
    assert proxy.blocked() == []
