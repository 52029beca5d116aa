"""A team's LiteLLM proxy refuses a key or a spent budget with its own error shapes; the user
is told what to check (the key variable, the budget), and a budget is not retried.

The scripted server answers with the shapes LiteLLM's proxy sends (``{"error": {"message",
"type", "code"}}``, messages as its source words them), through litellm over real HTTP. The
real proxy's own "No connected db." is in tests/providers/test_litellm_proxy.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from scripted_server import ErrorReply, ScriptedServer

from jupyter_agent.agent.retrying import RetryingModel
from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.model_request import Connection, ModelRequest
from jupyter_agent.providers.litellm_client import LiteLLMClient

BUDGET_TEAM = "Budget has been exceeded! Team=data-team Current cost: 50.2, Max budget: 50.0"
BUDGET_USER = "ExceededBudget: User=ada over budget. Spend=20.5, Budget=20.0"
BAD_TOKEN = (
    "Authentication Error, Invalid proxy server token passed. key=88dc28…, not found in db. "
    "Create key via `/key/generate` call."
)
NO_ACCESS = (
    "Authentication Error, API Key not allowed to access model. This token can only access "
    "models=['team-coder']. Tried to access gpt-5"
)


async def _call(server: ScriptedServer, model: str = "litellm_proxy/team-coder", **kw: Any) -> list[Any]:
    retries: list[str] = []
    client = RetryingModel(LiteLLMClient(), max_retries=3)
    request = ModelRequest(
        model=model,
        messages=[{"role": "user", "content": "hi"}],
        connection=Connection(api_base=kw.pop("api_base", server.base_url), api_key="sk-user-key"),
    )
    with pytest.raises(E.ProviderError) as info:
        async for _ in client.request_stream(
            request, on_retry=lambda attempt, err, ms: retries.append(err.message)
        ):
            pass
    return [info.value, retries]


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [
        (422, "budget_exceeded", BUDGET_TEAM),  # today's proxies
        (429, "budget_exceeded", BUDGET_USER),  # older ones: as a rate limit
        (400, "budget_exceeded", BUDGET_TEAM),
    ],
)
async def test_a_spent_budget_says_so_and_is_not_retried(
    scripted_server: ScriptedServer, status: int, kind: str, text: str
) -> None:
    scripted_server.queue(ErrorReply(status, text, type=kind))
    error, retries = await _call(scripted_server)
    assert isinstance(error, E.ApiError) and not error.retryable
    assert "the budget is spent" in error.message and text in error.message
    assert "ask its administrator to raise it" in error.message
    assert retries == [] and len(scripted_server.requests) == 1


async def test_a_rejected_key_names_the_variable_to_check(scripted_server: ScriptedServer) -> None:
    scripted_server.queue(ErrorReply(401, BAD_TOKEN, type="auth_error"))
    error, retries = await _call(scripted_server)
    assert isinstance(error, E.AuthError) and retries == []
    assert f"The gateway at {scripted_server.base_url} rejected the key" in error.message
    assert "JUPYTER_AGENT_API_KEY" in error.message and "api_key_env" in error.message


async def test_a_model_the_key_may_not_use_is_named(scripted_server: ScriptedServer) -> None:
    scripted_server.queue(ErrorReply(401, NO_ACCESS, type="key_model_access_denied"))
    error, _ = await _call(scripted_server, model="litellm_proxy/gpt-5")
    assert isinstance(error, E.AuthError)
    assert "does not let this key use litellm_proxy/gpt-5" in error.message and "team-coder" in error.message


async def test_no_connected_db_shape_from_the_scripted_proxy(scripted_server: ScriptedServer) -> None:
    scripted_server.queue(ErrorReply(400, "No connected db.", type="no_db_connection"))
    error, retries = await _call(scripted_server, model="openai/team-coder")
    assert isinstance(error, E.AuthError) and retries == []
    assert "accepts only its master key" in error.message and "JUPYTER_AGENT_API_KEY" in error.message


async def test_other_errors_of_an_endpoint_keep_their_meaning(scripted_server: ScriptedServer) -> None:
    scripted_server.queue(ErrorReply(401, "invalid key"))  # a plain OpenAI-compatible server
    error, _ = await _call(scripted_server, model="openai/test")
    assert isinstance(error, E.AuthError) and "OPENAI_API_KEY" in error.message
    scripted_server.queue(ErrorReply(400, "temperature must be at most 2"))
    error, _ = await _call(scripted_server, model="openai/test")
    assert type(error) is E.ApiError and error.message == "temperature must be at most 2"
