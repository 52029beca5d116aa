"""On the wire, through litellm to the scripted server: what a sub-agent is offered, the task
result, a reasoning model's own reasoning and ``tool_choice`` (docs/spec.md, "Differences from
OpenCode 1.18.33"); the fast tier checks the same through the in-process model."""

from __future__ import annotations

import json
from typing import Any

from scripted_server import Reply, ToolCall

TASK = json.dumps({"description": "count", "prompt": "Count the notebooks.", "subagent_type": "general"})


async def test_a_child_request_and_the_parents_next_request_on_the_wire(
    make_runtime: Any, scripted_server: Any
) -> None:
    scripted_server.queue(
        Reply(reasoning="A sub-agent can count them.", tool_calls=[ToolCall("task", TASK, id="call_task")]),
        Reply(text="2 notebooks."),  # the child
        Reply(text="There are two."),
    )
    runtime = make_runtime()
    await runtime.prompt("how many notebooks?")
    parent, child, parent_again = (r["body"] for r in scripted_server.requests)

    def offered(body: dict[str, Any]) -> set[str]:
        return {t["function"]["name"] for t in body["tools"]}

    assert {"task", "todowrite"} <= offered(parent) and {"task", "todowrite"}.isdisjoint(offered(child))
    assert parent["tool_choice"] == child["tool_choice"] == "auto"
    [assistant] = [m for m in parent_again["messages"] if m["role"] == "assistant"]
    assert assistant["reasoning_content"] == "A sub-agent can count them."
    [result] = [m for m in parent_again["messages"] if m["role"] == "tool"]
    assert result["tool_call_id"] == "call_task"
    head, _, rest = result["content"].partition('" state="completed">\n')
    assert (
        head.startswith('<task id="ses_') and rest == "<task_result>\n2 notebooks.\n</task_result>\n</task>"
    )
