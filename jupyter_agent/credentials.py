"""API keys saved by the setup (the side panel's, ``jupyter-agent setup``), never in a project.

A key typed into the setup goes to the system's keyring when the ``keyring`` library is
installed and has a real backend (Secret Service, macOS Keychain, Windows Credential
Locker), else to ``keys.json`` in the user's config folder (``~/.config/jupyter-agent``),
readable by the user alone (mode 0600). Keys are stored under the name of the environment
variable they stand for (``ANTHROPIC_API_KEY``, ``JUPYTER_AGENT_API_KEY``): a variable that
is set always wins, so an exported key is never shadowed by an old saved one. A key read
from here is registered as a secret, so it is redacted like any key from the environment.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.redaction import register_secret

KEY_FILE = "keys.json"
SERVICE = "jupyter-agent"
"""The keyring's service name; the user name is the variable's."""
_NO_BACKEND = ("keyring.backends.fail", "keyring.backends.null")


class KeyStoreError(JupyterAgentError, OSError):
    """A key could not be saved (a read-only folder, a keyring that refused it); still an
    ``OSError`` for callers that catch one."""


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's config folder (``$XDG_CONFIG_HOME/jupyter-agent``, else ``~/.config/…``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "jupyter-agent"


def key_file(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / KEY_FILE


def _keyring() -> Any | None:
    """The keyring backend, when the library is installed and one is usable."""
    try:
        # optional and slow-ish to import: only when a key is looked up or saved
        import keyring
        import keyring.errors
    except Exception:  # not installed, or broken in this environment
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    if type(backend).__module__.startswith(_NO_BACKEND) or getattr(backend, "priority", 0) <= 0:
        return None
    return keyring


def backend_name() -> str:
    """Where a saved key goes, in words (for the setup's confirmation)."""
    ring = _keyring()
    if ring is not None:
        return f"the system keyring ({type(ring.get_keyring()).__name__})"
    return str(key_file())


def _read_file(env: Mapping[str, str] | None) -> dict[str, str]:
    path = key_file(env)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return (
        {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(data, dict)
        else {}
    )


def get(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The saved key for variable ``name`` (None when none was saved)."""
    value: str | None = None
    ring = _keyring()
    if ring is not None:
        with contextlib.suppress(Exception):  # a locked or absent keyring: try the file
            value = ring.get_password(SERVICE, name)
    if not value:
        value = _read_file(env).get(name)
    if value:
        register_secret(value, name)
    return value or None


def where(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Where the saved key for ``name`` is, in words, or None."""
    ring = _keyring()
    if ring is not None:
        with contextlib.suppress(Exception):
            if ring.get_password(SERVICE, name):
                return "the system keyring"
    return str(key_file(env)) if name in _read_file(env) else None


def save(name: str, value: str, env: Mapping[str, str] | None = None) -> str:
    """Save ``value`` as the key for variable ``name``; returns where it went."""
    register_secret(value, name)
    ring = _keyring()
    if ring is not None:
        try:
            ring.set_password(SERVICE, name, value)
        except Exception:  # a keyring that refuses: the file is the fallback
            pass
        else:
            _write_file({k: v for k, v in _read_file(env).items() if k != name}, env)
            return "the system keyring"
    data = _read_file(env)
    data[name] = value
    _write_file(data, env)
    return str(key_file(env))


def _write_file(data: dict[str, str], env: Mapping[str, str] | None) -> None:
    """Write the key file readable by the user alone, created so (never 0644 for a moment)."""
    path = key_file(env)
    if not data and not path.exists():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
        os.chmod(tmp, 0o600)  # a umask cannot widen it, but an existing file kept its mode
        os.replace(tmp, path)
    except OSError as exc:
        raise KeyStoreError(f"could not save the key in {path}: {exc.strerror or exc}") from None
