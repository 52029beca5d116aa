"""A prompt ending in ``?`` reaches the agent instead of IPython's help system."""

from __future__ import annotations

from jupyter_agent.magics.transform import protect_agent_lines


def test_question_marks_do_not_trigger_ipython_help() -> None:
    assert protect_agent_lines(["%agent why did it fail?\n"]) == [
        "get_ipython().run_line_magic('agent', 'why did it fail?')\n"
    ]
    assert protect_agent_lines(["  %compact\n"]) == ["  get_ipython().run_line_magic('compact', '')\n"]
    assert protect_agent_lines(["%%agent\n", "x?\n"]) == ["%%agent\n", "x?\n"]
    assert protect_agent_lines(["x = 1\n", "%agents_other?\n"]) == ["x = 1\n", "%agents_other?\n"]
