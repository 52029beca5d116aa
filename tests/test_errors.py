"""Every failure a user is told about derives from one base that carries its message and exit
code: the CLI, the magics and the side panel show it the same way, and none lists classes by name.

User sees: ``error: no session abc…`` (exit 2) from the CLI, the same line in a cell and in the
panel; a full disk is told by file and what to do; a bug keeps its traceback.
"""

from __future__ import annotations

import ast
import errno
import importlib
import pkgutil
from pathlib import Path

import pytest

import jupyter_agent
from jupyter_agent.agent.revert import RevertError
from jupyter_agent.agent.workspace import ConfigurationError
from jupyter_agent.config import ConfigError
from jupyter_agent.core.agents import UnknownAgent
from jupyter_agent.core.errors import EXIT_FAILED, EXIT_USAGE, JupyterAgentError
from jupyter_agent.failures import UsageProblem, explain
from jupyter_agent.kernel.fix import NothingToFix
from jupyter_agent.magics.outcome import AgentRunError
from jupyter_agent.magics.parser import UsageError
from jupyter_agent.mcp.config import McpConfigError
from jupyter_agent.session.fork import MessageNotFound
from jupyter_agent.storage.database import StoreBusyError, StoreError
from jupyter_agent.storage.lease import SessionBusyError
from jupyter_agent.storage.sqlite_store import SessionNotFound

FRONT_ENDS = ("cli.py", "session_cli.py", "magics/magics.py", "ui/panel.py", "failures.py")


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (SessionNotFound("no session ses_x; did you mean ses_y?"), EXIT_USAGE),
        (UnknownAgent("no agent 'bild'; choose build or plan"), EXIT_USAGE),
        (MessageNotFound("no message msg_1 in this session"), EXIT_USAGE),
        (ConfigError("jupyter-agent.json: `model` must be a string"), EXIT_USAGE),
        (UsageError("--model needs a value"), EXIT_USAGE),
        (UsageProblem("--output: a folder has that name"), EXIT_USAGE),
        (NothingToFix("no cell has failed yet"), EXIT_USAGE),
        (RevertError("nothing to revert"), EXIT_USAGE),
        (McpConfigError("server `tickets`: TICKETS_TOKEN is not set"), EXIT_USAGE),
        (StoreBusyError("sessions.db stayed locked: close the other kernel"), EXIT_FAILED),
        (SessionBusyError("ses_1", 1234, "elsewhere"), EXIT_FAILED),
        (AgentRunError("the run failed: rate limited"), EXIT_FAILED),
    ],
)
def test_each_failure_explains_itself_in_one_place(exc: JupyterAgentError, code: int) -> None:
    assert isinstance(exc, JupyterAgentError)
    explained = explain(exc, cli=True)
    assert explained is not None
    assert explained == (exc.for_user(cli=True), code)
    assert not explained.message.startswith("'")  # names typed by the user are not shown as a KeyError repr


def test_names_not_found_stay_key_errors_and_the_cli_wording_is_chosen() -> None:
    with pytest.raises(KeyError):
        raise SessionNotFound("no session ses_x")
    assert str(SessionNotFound()) == "session not found"
    missing = ConfigurationError("Set %agent --model …", for_cli="pass --model")
    assert explain(missing) == ("Set %agent --model …", EXIT_USAGE)
    assert explain(missing, cli=True) == ("pass --model", EXIT_USAGE)


def test_a_refused_file_names_it_and_a_bug_is_left_alone() -> None:
    full = OSError(errno.ENOSPC, "No space left on device", "/data/out.json")
    told = "/data/out.json: no space left on device; free some space and run again"
    assert explain(full) == (told, EXIT_FAILED)
    assert explain(KeyError("ses_1")) is None
    assert explain(StoreError("x")) == ("x", EXIT_FAILED)


def _failure_names() -> set[str]:
    for info in pkgutil.walk_packages(jupyter_agent.__path__, "jupyter_agent."):
        if "labextension" not in info.name:
            importlib.import_module(info.name)
    found: set[str] = set()
    todo = [JupyterAgentError]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return found


def test_front_ends_catch_the_base_not_a_list_of_failures() -> None:
    names = _failure_names()
    root = Path(jupyter_agent.__file__).parent
    listed = []
    for rel in FRONT_ENDS:
        for node in ast.walk(ast.parse((root / rel).read_text())):
            if isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Tuple):
                caught = {n.id for n in node.type.elts if isinstance(n, ast.Name)} & names
                if len(caught) > 1:
                    listed.append(f"{rel}:{node.lineno} {sorted(caught)}")
    assert not listed, listed
