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
from cli_runner import run_cli
from proxy_harness import MASTER_KEY, LiteLLMProxy
from scripted_server import Reply, ScriptedServer, ToolCall

from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.config import load_config
from jupyter_agent.core.messages import AssistantMessage, TextPart, ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore

UPSTREAM_KEY = "sk-upstream-provider"


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy(upstream: ScriptedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiteLLMProxy]:
    folder = tmp_path_factory.mktemp("proxy")
    models = {"team-coder": {"model": "openai/test", "api_base": upstream.base_url, "api_key": UPSTREAM_KEY}}
    running = LiteLLMProxy(folder, models).start()
    yield running
    running.stop()
    assert running.blocked() == [], running.blocked()


@pytest.fixture(autouse=True)
def _fresh(upstream: ScriptedServer) -> None:
    upstream.requests.clear()
    upstream.completions.clear()


async def test_a_tool_turn_through_the_proxy(
    proxy: LiteLLMProxy, upstream: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.queue(
        Reply(tool_calls=[ToolCall("bash", '{"command": "echo via-proxy"}')]),
        Reply(text="The shell said via-proxy."),
    )
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", MASTER_KEY)
    flags = {"model": "litellm_proxy/team-coder", "api_base": proxy.base_url}
    config = load_config(tmp_path, flags, global_dir=tmp_path / "no-global")
    store = SqliteStore.for_directory(tmp_path)
    runtime = Runtime(
        config=config, store=store, project_root=tmp_path, working_dir=tmp_path, generate_titles=False
    )
    try:
        sid = await runtime.prompt("run echo via-proxy")
        history = runtime.store.messages(sid)
    finally:
        store.close()
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


def test_cli_through_the_proxy_which_refuses_unknown_keys(
    proxy: LiteLLMProxy, upstream: ScriptedServer, tmp_path: Path
) -> None:
    upstream.queue(Reply(text="Hello from the team model."))
    base = ["--model", "openai/team-coder", "--api-base", f"{proxy.base_url}/v1"]
    ok = run_cli(["run", *base, "say hello"], tmp_path, JUPYTER_AGENT_API_KEY=MASTER_KEY)
    assert ok.returncode == 0, ok.stderr
    assert "Hello from the team model." in ok.stdout
    print(ok.stderr)
    # the proxy, not the notebook, decides who may call: a key it does not know goes no further
    refused = run_cli(["run", *base, "say hello"], tmp_path, JUPYTER_AGENT_API_KEY="team-key-typo")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert len([line for line in refused.stderr.splitlines() if line.startswith("error:")]) == 1
    assert len(upstream.requests) == 1  # the refused key never reached the provider
    assert proxy.blocked() == []
