"""What a magic prints instead of a traceback: names the user typed, never a bug's KeyError."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

from jupyter_agent.agent.workspace import NO_MODEL, ConfigurationError
from jupyter_agent.core.agents import UnknownAgent, get_agent
from jupyter_agent.magics.magics import AgentMagics
from jupyter_agent.magics.outcome import AgentRunError
from jupyter_agent.session.fork import MessageNotFound
from jupyter_agent.storage.sqlite_store import SessionNotFound


def guard(action: Callable[[], None], blocking: bool = False, config: object = None) -> None:
    magics = AgentMagics.__new__(AgentMagics)  # the guard reads only the runtime's config
    magics.agent = SimpleNamespace(_runtime=SimpleNamespace(config=config) if config else None)  # type: ignore[assignment]
    magics._guard(action, blocking)


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


def test_a_blocking_cell_raises_the_problem_as_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Under papermill/nbconvert a cell with no model configured fails the run, not passes it."""
    with pytest.raises(AgentRunError) as info:
        guard(raise_(ConfigurationError(NO_MODEL)), blocking=True)
    assert str(info.value) == "No model is configured for jupyter-agent."
    assert info.value._render_traceback_() == [f"AgentRunError: {info.value}"]  # no frames of ours
    assert capsys.readouterr().out == NO_MODEL + "\n"  # the how-to stays above the error
    with pytest.raises(AgentRunError, match=r"^No session 'ses_x'\.$"):
        guard(raise_(SessionNotFound("No session 'ses_x'.")), blocking=True)
    assert capsys.readouterr().out == ""  # one line: said once, by the error
    guard(raise_(ConfigurationError(NO_MODEL)), blocking=True, config=SimpleNamespace(raise_on_failure=False))
    assert capsys.readouterr().out == NO_MODEL + "\n"  # "raise_on_failure": false keeps printing
