"""Sub-agents: the task tool and @agent prompts run in child sessions and report back."""

from __future__ import annotations

import json
from typing import Any

from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart


async def test_task_tool_runs_a_child_session(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(
        Reply(
            tool_calls=[
                ToolCall(
                    "task",
                    json.dumps(
                        {
                            "description": "find loader",
                            "prompt": "Where is the CSV loader?",
                            "subagent_type": "explore",
                        }
                    ),
                )
            ]
        ),
        Reply(text="The loader is in io.py line 3."),  # the child's answer
        Reply(text="It lives in io.py."),  # the parent continues
    )
    runtime = make_runtime()
    sid = await runtime.prompt("where do we load CSVs?")
    tool = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))
    assert tool.state.status == "completed" and "io.py line 3" in tool.state.output
    child_id = tool.state.metadata["session_id"]
    child = runtime.store.get_session(child_id)
    assert child.parent_id == sid and child.title.startswith("Child session - ")
    child_request = scripted_model.requests[1]["body"]
    assert child_request["messages"][0]["content"].startswith("You are the explore agent")
    assert {t["function"]["name"] for t in child_request["tools"]} <= {
        "read",
        "glob",
        "grep",
        "list",
        "bash",
        "skill",
    }
    assert [s.id for s in runtime.sessions.list()] == [sid]  # children are not listed at top level


async def test_at_agent_prompt_is_a_subtask(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="Found 2 notebooks."), Reply(text="Thanks, noted."))
    runtime = make_runtime()
    sid = await runtime.prompt("@explore how many notebooks are there?")
    parent_followup = scripted_model.requests[1]["body"]["messages"]
    assert {"role": "user", "content": "The following tool was executed by the user"} in parent_followup
    tool_result = next(m for m in parent_followup if m["role"] == "tool")
    assert tool_result["content"] == "Found 2 notebooks."
    assert scripted_model.requests[0]["body"]["messages"][-1]["content"] == "how many notebooks are there?"
    texts = [p.text for m in runtime.store.messages(sid) for p in m.parts if p.type == "text"]
    assert texts[-1] == "Thanks, noted."
