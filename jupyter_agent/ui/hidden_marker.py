"""The marker of an agent run that left hidden state, in the live views and in the transcript.

Live (the side panel's stream): a :class:`HiddenStateMsg` with "Add as cell". In the cell,
the static transcript that replaces the widget carries the sentence (every viewer shows it)
and, in its output metadata, the run's key and code: the labextension adds "Add as cell"
there, and ``%agent verify`` reads which names the run left hidden from the saved file.
"""

from __future__ import annotations

import html
import logging
import re
from typing import TYPE_CHECKING, Any

from jupyter_agent.repro.tracker import HiddenState
from jupyter_agent.ui.code_blocks import code_block
from jupyter_agent.ui.widget_protocol import HiddenStateMsg

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent
    from jupyter_agent.kernel.hidden_state import HiddenRun

log = logging.getLogger(__name__)
CONSEQUENCE = "Restart and Run All would not reproduce it."
_TICKS = re.compile(r"`([^`]+)`")


def marker_message(
    key: str, state: HiddenState, cell_id: str | None, added: str | None = None
) -> HiddenStateMsg:
    return HiddenStateMsg(
        run=key,
        text=f"{state.sentence()} {CONSEQUENCE}",
        names=list(state.names),
        code=state.code(),
        cell_id=cell_id,
        added=added,
    )


def transcript_marker(
    key: str, state: HiddenState, cell_id: str | None
) -> tuple[dict[str, str], dict[str, Any]]:
    """(html / markdown / plain text to append, the ``jupyter_agent`` metadata to add)."""
    sentence = f"{state.sentence()} {CONSEQUENCE}"
    shown = _TICKS.sub(r"<code>\1</code>", html.escape(sentence, quote=False))
    code = state.code()
    details = (
        f"<details><summary>The agent's code</summary>{code_block(code, 'python')}</details>" if code else ""
    )
    bundle = {
        "text/html": (
            f'<div class="jp-agent-hidden-state" data-run="{html.escape(key)}">'
            f"<span>⚠ {shown}</span>{details}</div>"
        ),
        "text/markdown": f"> ⚠ {sentence}",
        "text/plain": f"⚠ {sentence} (%agent hidden shows the code.)",
    }
    meta = {"run": key, "names": list(state.names), "text": sentence, "code": code, "cell_id": cell_id}
    return bundle, {"hidden_state": meta}


def finish_run(
    agent: KernelAgent, key: str, session_id: str, since: int, cell_id: str | None
) -> tuple[dict[str, str], dict[str, Any]] | None:
    """A run ended: mark the hidden state it left in the panels that show its session; the
    transcript's part of the marker is returned (None: it left none)."""
    try:
        state = agent.hidden_runs.finish(key, session_id, since, cell_id)
    except Exception:  # the run's end (its transcript, idle state) matters more than the marker
        log.exception("could not mark the run's hidden state")
        return None
    if not state:
        return None
    message = marker_message(key, state, cell_id)
    for panel in list(agent.panels):
        if panel.stream.session_id == session_id:
            panel.stream.post(message)
    return transcript_marker(key, state, cell_id)


def run_message(agent: KernelAgent, run: HiddenRun) -> HiddenStateMsg:
    """A remembered run's marker as it stands now (what is still hidden, or "added")."""
    state = agent.hidden_runs.state(run.key)
    return marker_message(run.key, state if state else run.shown, run.cell_id, run.added)
