"""Sub-agents: the task tool and @agent prompts run in child sessions and report back."""

from __future__ import annotations

import json
from typing import Any

from scripted_server import Reply, ToolCall

from jupyter_agent.context.truncate import HINT_PLAIN, HINT_TASK
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
    child_id = tool.state.metadata["session_id"]
    # OpenCode's shape: the child's id, then its final answer
    assert tool.state.status == "completed" and tool.state.output == (
        f'<task id="{child_id}" state="completed">\n<task_result>\n'
        "The loader is in io.py line 3.\n</task_result>\n</task>"
    )
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
    assert tool_result["content"].startswith('<task id="ses_')
    assert tool_result["content"].endswith(
        'state="completed">\n<task_result>\nFound 2 notebooks.\n</task_result>\n</task>'
    )
    assert scripted_model.requests[0]["body"]["messages"][-1]["content"] == "how many notebooks are there?"
    texts = [p.text for m in runtime.store.messages(sid) for p in m.parts if p.type == "text"]
    assert texts[-1] == "Thanks, noted."


def _task(agent: str, prompt: str) -> ToolCall:
    return ToolCall("task", json.dumps({"description": "dig", "prompt": prompt, "subagent_type": agent}))


def _offered(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request["body"].get("tools", [])}


async def test_a_sub_agent_is_offered_no_task_and_no_todowrite(
    make_runtime: Any, scripted_model: Any
) -> None:
    """The general agent may use every tool, but in a child session it starts no sub-agents
    and writes no todos (as OpenCode): a model cannot recurse into children of children."""
    scripted_model.queue(
        Reply(tool_calls=[_task("general", "Count the notebooks.")]),
        Reply(tool_calls=[_task("general", "Count them for me.")]),  # the child tries anyway
        Reply(text="There are 2 notebooks."),  # the child, after the refusal
        Reply(text="Two notebooks."),  # the parent
    )
    runtime = make_runtime()
    sid = await runtime.prompt("how many notebooks?")
    parent, child, child_again, parent_again = scripted_model.requests
    assert {"task", "todowrite"} <= _offered(parent) and {"task", "todowrite"} <= _offered(parent_again)
    assert {"task", "todowrite"}.isdisjoint(_offered(child)) and "bash" in _offered(child)
    assert _offered(child_again) == _offered(child)
    refused = next(m for m in child_again["body"]["messages"] if m["role"] == "tool")["content"]
    assert refused.startswith("Unknown tool 'task'. Available tools:")
    # one child only: the refused call started nothing
    children = [s for s in runtime.store.list_sessions(None) if s.parent_id is not None]
    assert len(children) == 1 and children[0].parent_id == sid


async def test_an_at_agent_child_is_offered_no_task_either(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="Done."), Reply(text="Noted."))
    runtime = make_runtime()
    await runtime.prompt("@general tidy up the scratch folder")
    assert {"task", "todowrite"}.isdisjoint(_offered(scripted_model.requests[0]))
    assert {"task", "todowrite"} <= _offered(scripted_model.requests[1])


async def test_the_truncation_hint_names_the_task_tool_only_where_it_is_offered(
    make_runtime: Any, scripted_model: Any
) -> None:
    """bash output over 2,000 lines: the build agent is told to delegate to the explore agent,
    a sub-agent (no Task tool) to use Grep and Read (docs/spec.md, "Truncation")."""
    seq = ToolCall("bash", json.dumps({"command": "seq 1 3000"}))
    scripted_model.queue(
        Reply(tool_calls=[seq]),
        Reply(tool_calls=[_task("general", "Print the numbers.")]),
        Reply(tool_calls=[seq]),  # the child
        Reply(text="printed"),  # the child
        Reply(text="done"),
    )
    runtime = make_runtime()
    await runtime.prompt("print the numbers")

    def result(request: dict[str, Any]) -> str:
        return str([m for m in request["body"]["messages"] if m["role"] == "tool"][-1]["content"])

    build, child = result(scripted_model.requests[1]), result(scripted_model.requests[3])
    assert HINT_TASK in build and HINT_PLAIN not in build
    assert HINT_PLAIN in child and HINT_TASK not in child
