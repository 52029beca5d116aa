"""What a magic prints instead of a traceback: names the user typed, never a bug's KeyError."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from jupyter_agent.agent.agents import UnknownAgent, get_agent
from jupyter_agent.magics.magics import AgentMagics
from jupyter_agent.session.fork import MessageNotFound
from jupyter_agent.storage.sqlite_store import SessionNotFound


def guard(action: Callable[[], None]) -> None:
    AgentMagics._guard(None, action)  # type: ignore[arg-type]  # uses nothing of the instance


def raise_(exc: BaseException) -> Callable[[], None]:
    def action() -> None:
        raise exc

    return action


@pytest.mark.parametrize(
    "exc",
    [
        SessionNotFound("No session 'ses_x'."),
        MessageNotFound("No message 'msg_x' in session ses_1."),
    ],
)
def test_names_the_user_typed_print_one_line(exc: KeyError, capsys: pytest.CaptureFixture[str]) -> None:
    guard(raise_(exc))
    assert capsys.readouterr().out == f"{exc.args[0]}\n"


def test_an_unknown_agent_prints_the_agents(capsys: pytest.CaptureFixture[str]) -> None:
    guard(lambda: get_agent("wizard") and None)
    out = capsys.readouterr().out
    assert out == "Unknown agent 'wizard'. Available agents: build, plan, fix, explore, general\n"


def test_another_key_error_is_a_bug_and_keeps_its_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KeyError, match="not_a_setting"):
        guard(raise_(KeyError("not_a_setting")))
    assert capsys.readouterr().out == ""
    assert issubclass(UnknownAgent, KeyError)  # callers that catch KeyError around get_agent still work
