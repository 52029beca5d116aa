"""Provider options: ``models.<id>.options`` + ``agent.<name>.options`` reach litellm as call
arguments (agent wins), and ``%agent config`` shows them without secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply

from jupyter_agent.config import ConfigError, load_config


def _cfg(tmp_path: Path, data: dict[str, Any]) -> Any:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(data))
    return load_config(tmp_path, env={}, global_dir=tmp_path / "g")


def test_model_and_agent_options_merge_agent_wins(tmp_path: Path) -> None:
    cfg = _cfg(
        tmp_path,
        {
            "model": "anthropic/claude-sonnet-4-5",
            "models": {
                "claude-sonnet-4-5": {
                    "options": {"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": 1}
                },
                "openai/gpt-5": {"options": {"reasoning_effort": "high"}},
            },
            "agent": {"plan": {"options": {"thinking": {"budget_tokens": 1024}, "top_p": 0.5}}},
        },
    )
    build = cfg.options_for("anthropic/claude-sonnet-4-5", "build")
    assert build == {"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": 1}
    plan = cfg.options_for("anthropic/claude-sonnet-4-5", "plan")
    assert plan == {"thinking": {"type": "enabled", "budget_tokens": 1024}, "temperature": 1, "top_p": 0.5}
    assert cfg.options_for("openai/gpt-5") == {"reasoning_effort": "high"}
    assert cfg.options_for("openai/other") == {}


def test_options_must_be_an_object(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        _cfg(tmp_path, {"models": {"openai/x": {"options": ["thinking"]}}})
    assert "options" in str(err.value) and "jupyter-agent.json" in str(err.value)


def test_config_view_shows_options_and_budget_without_secrets(tmp_path: Path) -> None:
    cfg = _cfg(
        tmp_path,
        {
            "model": "openai/gpt-5",
            "models": {
                "openai/gpt-5": {
                    "options": {
                        "reasoning_effort": "low",
                        "max_tokens": 500,
                        "extra_headers": {"Authorization": "Bearer sk-live-123", "X-Team": "data"},
                        "api_key": "sk-inline-456",
                    }
                }
            },
            "budget": {"session_usd": 2.5},
        },
    )
    shown = cfg.redacted()
    text = json.dumps(shown)
    assert "sk-live-123" not in text and "sk-inline-456" not in text
    assert shown["options"]["reasoning_effort"] == "low" and shown["options"]["max_tokens"] == 500
    assert shown["options"]["extra_headers"] == {"Authorization": "***", "X-Team": "data"}
    assert shown["budget"] == {"session_usd": 2.5, "turn_usd": None}


async def test_options_reach_the_wire_and_loop_arguments_stay_ours(
    make_runtime: Any, scripted_server: Any
) -> None:
    scripted_server.queue(Reply(text="ok"), Reply(text="ok"))
    runtime = make_runtime(
        models={
            scripted_server.model: {
                "options": {
                    "temperature": 0.2,
                    "top_p": 0.9,
                    "extra_headers": {"X-Team": "data"},
                    "extra_body": {"custom_flag": True},
                    # clumsy: keys the loop owns are not replaced
                    "stream": False,
                    "messages": [],
                    "model": "openai/elsewhere",
                }
            }
        },
        agent={"plan": {"options": {"temperature": 0.7}}},
    )
    await runtime.prompt("hi")
    body = scripted_server.requests[0]["body"]
    headers = {k.lower(): v for k, v in scripted_server.requests[0]["headers"].items()}
    assert body["temperature"] == 0.2 and body["top_p"] == 0.9 and body["custom_flag"] is True
    assert headers["x-team"] == "data"
    assert body["stream"] is True and body["model"] == "test" and body["messages"]
    await runtime.prompt("plan it", agent="plan")
    assert scripted_server.requests[1]["body"]["temperature"] == 0.7
