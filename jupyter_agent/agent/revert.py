"""Revert / unrevert: undo what the agent changed after a message, and undo that undo.

Files are restored from the patch parts recorded before each write (new files are
removed). The messages after the point are hidden at once and deleted when the next
prompt (or a compaction) starts; ``unrevert`` puts files and messages back until then.

Whatever a store says, every path is checked again before anything is written: one that
leaves the project is refused (a tampered or imported store), and a protected one (a git
hook, a configuration file) is written only when the user approves it (``approve``: the
terminal asks; elsewhere it is refused).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from jupyter_agent.agent.outside import external_pattern, refused_paths
from jupyter_agent.agent.permissions import Rule
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    PatchPart,
    RevertState,
    UserMessage,
)
from jupyter_agent.storage.sqlite_store import SqliteStore


class SessionAccess(Protocol):
    """What a revert needs of the sessions (``SessionService`` passes itself); named here so
    that this module does not import the service that offers revert."""

    @property
    def store(self) -> SqliteStore: ...

    @property
    def project_root(self) -> Path: ...

    def rules_for(self, agent: str) -> dict[str, Rule]: ...

    def protects(self, path: Path) -> str | None: ...

    def busy(self, session_id: str) -> bool: ...

    def recorder(self, session_id: str) -> Recorder: ...


class RevertError(UsageFailure):
    """A revert that cannot be done; the message says why."""


def _check_inside(sessions: SessionAccess, paths: list[str], action: str) -> None:
    """Refuse before writing anything when a stored path leaves the project (an imported
    or tampered session must not write elsewhere); only an "allow" rule lets it through."""
    bad = refused_paths(paths, sessions.project_root, sessions.rules_for("build"))
    if bad:
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        example = json.dumps({"permission": {"external_directory": {external_pattern(bad[0]): "allow"}}})
        raise RevertError(
            f"{action} would write outside the project ({shown}); nothing was changed. "
            f"If you trust this session, allow it in jupyter-agent.json, e.g. {example}"
        )


Approve = Callable[[list[str]], bool]
"""Asked with one line per protected path; True writes them."""


def _check_protected(sessions: SessionAccess, paths: list[str], action: str, approve: Approve | None) -> None:
    """Protected paths are written only with the user's approval, whatever the store says."""
    found = [f"{p} ({why})" for p in paths if (why := sessions.protects(Path(p))) is not None]
    if not found or (approve is not None and approve(found)):
        return
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    raise RevertError(
        f"{action} would write protected paths: {shown}; nothing was changed. They are never "
        "written without you: restore them yourself, or run `jupyter-agent sessions "
        f"{action.lower()}` in a terminal, which asks."
    )


def _write(path: Path, content: str | None, binary: bool) -> None:
    if content is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if binary:
        path.write_bytes(base64.b64decode(content))
    else:
        path.write_bytes(content.encode("utf-8"))


def _current(path: Path) -> dict[str, object]:
    if not path.exists():
        return {"content": None, "binary": False}
    raw = path.read_bytes()
    try:
        return {"content": raw.decode("utf-8"), "binary": False}
    except UnicodeDecodeError:
        return {"content": base64.b64encode(raw).decode(), "binary": True}


def _default_point(history: list[MessageWithParts]) -> str:
    users = [m.info.id for m in history if isinstance(m.info, UserMessage)]
    if not users:
        raise RevertError("Nothing to revert: the session has no prompts yet.")
    return users[-1]


def revert(
    sessions: SessionAccess, session_id: str, message_id: str | None = None, approve: Approve | None = None
) -> RevertState:
    """Hide the messages from ``message_id`` on and restore the files they changed."""
    if sessions.busy(session_id):
        raise RevertError("The agent is working in this session; stop it first, then revert.")
    session = sessions.store.get_session(session_id)
    history = sessions.store.messages(session_id)
    if session.revert is not None:
        history = [m for m in history if m.info.id < session.revert.message_id]
    point = message_id or _default_point(history)
    if point not in {m.info.id for m in history}:
        known = ", ".join(m.info.id for m in history if isinstance(m.info, UserMessage))
        raise RevertError(f"No message '{point}' in this session. Prompts: {known}")
    after = [m for m in history if m.info.id >= point]
    for m in after:
        if any(isinstance(p, CompactionPart) for p in m.parts) or (
            isinstance(m.info, AssistantMessage) and m.info.summary
        ):
            raise RevertError(
                "Cannot revert across a compaction: the history before it was summarised. "
                "Fork the session at an earlier message instead (%agent fork MSG_ID)."
            )
    patches = [p for m in after for p in m.parts if isinstance(p, PatchPart)]
    touched = {c.path for p in patches for c in p.files}
    _check_inside(sessions, sorted(touched), "Revert")
    _check_protected(sessions, sorted(touched), "Revert", approve)
    snapshot = {path: _current(Path(path)) for path in sorted(touched)}
    if session.revert is not None and session.revert.snapshot:
        snapshot = {**json.loads(session.revert.snapshot), **snapshot}
    for patch in reversed(patches):
        for change in reversed(patch.files):
            _write(Path(change.path), change.before, change.binary)
    state = RevertState(message_id=point, snapshot=json.dumps(snapshot))
    sessions.recorder(session_id).update_session(session.model_copy(update={"revert": state}))
    return state


def unrevert(sessions: SessionAccess, session_id: str, approve: Approve | None = None) -> None:
    """Put back the files and messages of the pending revert."""
    if sessions.busy(session_id):
        raise RevertError("The agent is working in this session; stop it first.")
    session = sessions.store.get_session(session_id)
    if session.revert is None:
        raise RevertError("Nothing to unrevert: there is no pending revert in this session.")
    saved_files: dict[str, Any] = json.loads(session.revert.snapshot or "{}")
    _check_inside(sessions, sorted(saved_files), "Unrevert")
    _check_protected(sessions, sorted(saved_files), "Unrevert", approve)
    for path, saved in saved_files.items():
        _write(Path(path), saved["content"], bool(saved["binary"]))
    sessions.recorder(session_id).update_session(session.model_copy(update={"revert": None}))


def cleanup(sessions: SessionAccess, session_id: str) -> int:
    """Make a pending revert final: delete the hidden messages. Returns how many."""
    session = sessions.store.get_session(session_id)
    if session.revert is None:
        return 0
    point = session.revert.message_id
    recorder = sessions.recorder(session_id)
    hidden = [m.info.id for m in sessions.store.messages(session_id) if m.info.id >= point]
    for mid in hidden:
        recorder.remove_message(mid)
    recorder.update_session(session.model_copy(update={"revert": None}))
    return len(hidden)
