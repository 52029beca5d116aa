"""What a blocking ``%agent`` cell does when its run did not end well: it raises one line.

papermill, ``jupyter nbconvert --execute`` and nbclient stop (and exit non-zero) only when a
cell raises; a failed run that just printed its error let the notebook pass CI. The
exception renders as its one line (``_render_traceback_``, which IPython asks for): none of
our frames follow the message. Cells whose run streams in a live widget never raise: they
returned long before the run ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from jupyter_agent.core.errors import JupyterAgentError

if TYPE_CHECKING:  # %load_ext imports this module: the message models load with the first run
    from jupyter_agent.core.messages import MessageWithParts


class AgentRunError(JupyterAgentError):
    """An agent run in a blocking cell failed, was stopped, or hit its step cap or budget."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))  # one line, whatever the explanation's layout

    def _render_traceback_(self) -> list[str]:
        """What IPython shows (and nbclient and papermill report) instead of a traceback."""
        return [f"{type(self).__name__}: {self}"]


def _last_error(messages: Iterable[MessageWithParts]) -> Any:
    last = None
    for m in messages:
        if m.info.role == "assistant":
            last = m.info
    return getattr(last, "error", None)


def run_failure(messages: Iterable[MessageWithParts], stopped: bool = False) -> str | None:
    """Why the run whose messages these are did not finish well, or None when it did.

    The last answer's error says it (a provider failure, the step cap, a budget, Stop);
    ``stopped``: the run was cancelled before it could store one."""
    error = _last_error(messages)
    if error is not None:
        return error.message  # each says what happened and what to do (a budget, the step cap …)
    if stopped:
        return "The agent run was stopped before it finished."
    return None


def stop_reason(messages: Iterable[MessageWithParts]) -> str | None:
    """Why the run was stopped, when its last answer says (a budget, a repeated call, Stop):
    the transcript shows errors but not these, only the status "stopped"."""
    error = _last_error(messages)
    return str(error.message) if error is not None and error.name == "aborted" else None


def should_raise(blocking: bool, no_raise: bool, config: Any) -> bool:
    """A cell raises when it blocked for the run (headless runner, ``--wait``), unless
    ``--no-raise`` or ``"raise_on_failure": false`` says to show the error and go on."""
    if not blocking or no_raise:
        return False
    return bool(getattr(config, "raise_on_failure", True))
