"""Library log lines stay out of the user's way unless debugging is on.

Each case runs in a fresh interpreter: logging is process-wide, and litellm attaches its
own stderr handler at import, which is exactly what ``route_library_logs`` must undo.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import asyncio, logging, sys
    import litellm  # adds its own "LiteLLM:WARNING" stderr handler
    from jupyter_agent.logs import route_library_logs

    route_library_logs({debug})
    kept = []

    class Keep(logging.Handler):
        def emit(self, record):
            kept.append(record.name)

    logging.getLogger("jupyter_agent").addHandler(Keep())
    logging.getLogger("LiteLLM").warning("LoggingWorker: event loop changed")
    logging.getLogger("httpx").warning("HTTP trouble")
    leak = {{"client_session": "<litellm client>"}}
    logging.getLogger("asyncio").error("Unclosed client session", extra=leak)
    logging.getLogger("asyncio").error("the user's own task failed")
    print("kept:", ",".join(kept))
    """
)


def _run(debug: bool | None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(debug=debug)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env},
        check=True,
    )


def test_library_lines_are_routed_under_jupyter_agent_not_printed() -> None:
    """User sees: nothing from litellm/httpx on stderr; their own asyncio error still shows."""
    done = _run(False)
    assert _run(None).stderr == done.stderr  # a kernel: no flag, no variable
    assert "LoggingWorker" not in done.stderr and "HTTP trouble" not in done.stderr
    assert "Unclosed client session" not in done.stderr
    assert "the user's own task failed" in done.stderr
    # a handler on the "jupyter_agent" logger still receives them (re-emitted under .lib.<name>)
    kept = done.stdout.strip().removeprefix("kept: ").split(",")
    assert kept == ["LiteLLM", "httpx", "asyncio"], kept


@pytest.mark.parametrize("how", ["--debug", "JUPYTER_AGENT_DEBUG=1"])
def test_debug_shows_library_lines(how: str) -> None:
    """User sees (with --debug / JUPYTER_AGENT_DEBUG=1): the library lines, named by source.
    In a kernel there is no flag: the variable alone turns them on."""
    done = _run(True) if how == "--debug" else _run(None, JUPYTER_AGENT_DEBUG="1")
    assert "WARNING LiteLLM: LoggingWorker: event loop changed" in done.stderr
    assert "WARNING httpx: HTTP trouble" in done.stderr
    assert "ERROR asyncio: Unclosed client session" in done.stderr
