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


def _subclasses(base: type[BaseException]) -> set[type[BaseException]]:
    """Every class below ``base``, once every module of the package is imported."""
    for info in pkgutil.walk_packages(jupyter_agent.__path__, "jupyter_agent."):
        if "labextension" not in info.name:
            importlib.import_module(info.name)
    found: set[type[BaseException]] = set()
    todo = [base]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo.extend(c for c in cls.__subclasses__() if c not in found)
    return found


def _failure_names() -> set[str]:
    return {cls.__name__ for cls in _subclasses(JupyterAgentError)}


OUTSIDE_THE_BASE = {
    # Each is caught inside the package and worded at one named place (its docstring says
    # where), so no front end meets it; its subclasses are covered with it.
    "jupyter_agent.checkpoint.blobs.HoldsSecret",  # the revert's report says why a file was not kept
    "jupyter_agent.checkpoint.variables.Unsaveable",  # the revert's report says why a name was not saved
    "jupyter_agent.checkpoint.variables._OverBudget",  # worded as Unsaveable
    "jupyter_agent.core.globs.PatternError",  # glob/grep make it a ToolError; instructions a note
    "jupyter_agent.core.nesting.TooDeep",  # a ConfigError, or a tool error the model reads
    "jupyter_agent.core.provider_errors.ProviderError",  # the step's MessageError (agent/processor.py)
    "jupyter_agent.mcp.manager.McpCallError",  # a ToolError, a "not read" note or McpInputError
    "jupyter_agent.mcp.problems.StartError",  # kept as the server's error text
    "jupyter_agent.providers.idle_watch.IdleTimeout",  # a ProviderError
    "jupyter_agent.providers.litellm_client._Silent",  # a ProviderError
    "jupyter_agent.providers.retry_after.RetryWaitTooLong",  # a ProviderError (agent/retrying.py)
    "jupyter_agent.tools.base.ToolError",  # the tool call's error result, for the model
    "jupyter_agent.tools.python.ExecutionTimeout",  # the python tool's timeout result
    "jupyter_agent.tools.python.OutputLimitExceeded",  # the python tool's output-cap result
    "jupyter_agent.tools.python_guard.GuardRefused",  # raised in the agent's own python code
    "jupyter_agent.tools.sandbox.SandboxUnsafe",  # bash makes it a ToolError
    "jupyter_agent.trust.Unreadable",  # a ConfigError (config.py)
}
"""Exceptions of the package outside ``JupyterAgentError``: a new one must derive from the base
(with the built-in as a second base where callers catch that), or be added here and say in its
docstring why no front end meets it."""


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_exception_derives_from_the_base_or_says_why_not() -> None:
    """A new exception a front end can meet would show as ``Type: message`` or a traceback
    instead of its one line and exit code."""
    ours = {c for c in _subclasses(BaseException) if c.__module__.startswith("jupyter_agent.")}
    allowed = {c for c in ours if _name(c) in OUTSIDE_THE_BASE}
    outside = sorted(
        _name(c)
        for c in ours
        if not issubclass(c, JupyterAgentError) and not any(issubclass(c, a) for a in allowed)
    )
    assert outside == [], f"derive these from JupyterAgentError (core/errors.py): {outside}"
    assert sorted(_name(c) for c in allowed) == sorted(OUTSIDE_THE_BASE), "stale allow-list entries"
    for cls in allowed:
        assert not issubclass(cls, JupyterAgentError), f"{_name(cls)} derives from the base now"
        doc = " ".join((cls.__doc__ or "").split())
        assert "front end" in doc or "boundary" in doc, (
            f"{_name(cls)}: say in its docstring why no front end meets it"
        )


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
