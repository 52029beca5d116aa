"""One model step, the same for a normal step and a compaction: request → stream → parts → tools.

The request's setup (limits, endpoint, call options), the retries with their parts and the
run's abort signal live here once; the loop and ``compaction.py`` say only what differs
(the messages, the agent, the tools it may call).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jupyter_agent.agent.loop_settings import LoopSettings
from jupyter_agent.agent.ports import ModelClient, PermissionAsker
from jupyter_agent.agent.processor import Outcome, StepProcessor
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.retrying import RetryCallback, RetryingModel
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.tool_runner import ToolEnv, ToolRunner
from jupyter_agent.context.overflow import max_output
from jupyter_agent.core import ids
from jupyter_agent.core.chat import ChatMessage, ToolSpec
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import AssistantMessage, RetryError, RetryPart
from jupyter_agent.core.model_request import Connection, ModelRequest
from jupyter_agent.core.provider_errors import ProviderError
from jupyter_agent.core.redaction import redact


@dataclass
class StepDeps:
    """What every model step of one run uses: the session, the model, the tools, the run."""

    recorder: Recorder
    client: ModelClient
    settings: LoopSettings
    tool_env: ToolEnv
    asker: PermissionAsker
    run: RunHandle

    def options(self, model: str, agent: str) -> dict[str, Any] | None:
        """litellm call arguments for (model, agent) from config, if any."""
        return self.settings.options(model, agent) if self.settings.options else None

    def tool_runner(self, agent: str, allowed: frozenset[str] | None) -> ToolRunner:
        """Runs ``agent``'s tool calls of one step; ``allowed`` limits them (None: all)."""
        env = dataclasses.replace(self.tool_env, allowed=allowed)
        return ToolRunner(self.recorder, env, agent, self.asker, self.run)


async def model_step(
    deps: StepDeps,
    processor: StepProcessor,
    messages: Sequence[ChatMessage],
    *,
    tools: Sequence[ToolSpec] = (),
    options: Mapping[str, Any] | None = None,
) -> Outcome:
    """Stream one answer into ``processor.message`` and run its tool calls.

    Retries are recorded as parts of the message; the run's abort ends the stream.
    ``processor.message`` holds the answer afterwards, also when this raises.
    """
    s = deps.settings
    message = processor.message
    request = ModelRequest(
        model=message.model,
        messages=messages,
        tools=tools,
        max_tokens=max_output(s.model),
        options=options or {},
        connection=Connection(api_base=s.api_base, api_key=s.api_key),
    )
    stream = RetryingModel(deps.client, s.retries).request_stream(
        request, abort=deps.run.abort, on_retry=retry_recorder(deps.recorder, message)
    )
    return await processor.process(stream)


def retry_recorder(recorder: Recorder, message: AssistantMessage) -> RetryCallback:
    """A retry part per failed attempt, so views show the wait and why."""

    def on_retry(attempt: int, error: ProviderError, next_ms: int) -> None:
        recorder.part(
            RetryPart(
                id=ids.ascending("prt"),
                session_id=message.session_id,
                message_id=message.id,
                attempt=attempt,
                error=RetryError(message=redact(str(error)), status=error.status),
                next=now_ms() + next_ms,
            )
        )

    return on_retry
