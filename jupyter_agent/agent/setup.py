"""The first ten minutes: pick a provider, a model and a key, test them, save them.

Shared by the side panel's setup view and ``jupyter-agent setup``. What is saved goes to the
user's own config folder, never to the project or the notebook: the model (and a server's
``api_base``) into ``config.json``, the key into the keyring or ``keys.json`` (mode 0600,
``credentials.py``). A running kernel reads the file again before its next prompt, so the
next prompt uses what was saved, without a restart.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from jupyter_agent import credentials
from jupyter_agent.agent.ports import ModelClient
from jupyter_agent.config import Config, ConfigError, check_url, global_config_dir
from jupyter_agent.core.chat import ChatUser
from jupyter_agent.core.errors import EXIT_FAILED, JupyterAgentError, UsageFailure
from jupyter_agent.core.model_request import Connection, ModelRequest
from jupyter_agent.providers.catalog import COMPATIBLE, key_names, models, provider_of, providers

SERVER_KEY = "JUPYTER_AGENT_API_KEY"
"""The variable (and the saved key's name) of an OpenAI-compatible server's key."""
TEST_PROMPT = "Reply with the single word OK."
TEST_TIMEOUT_S = 30.0
"""A test that hangs says so instead of keeping the buttons off for minutes."""

__all__ = ["COMPATIBLE", "Choice", "SetupError", "models", "providers", "save", "test_connection"]


class SetupError(UsageFailure):
    """What the user chose cannot be used or saved: the message says what to change."""


class ConnectionFailed(SetupError):
    """The test request failed: the provider's answer (or the network's) in one line."""

    exit_code: ClassVar[int] = EXIT_FAILED


@dataclass(frozen=True)
class Choice:
    """What the user picked in the setup."""

    provider: str
    model: str
    api_base: str = ""
    api_key: str = ""

    def checked(self) -> Choice:
        """The choice with a full model string (``openai/<name>`` on a server), or SetupError."""
        model = self.model.strip()
        if not model:
            raise SetupError("Choose a model (pick one from the list or type its name).")
        base = self.api_base.strip()
        if self.provider == COMPATIBLE:
            if not base:
                raise SetupError(
                    "An OpenAI-compatible server needs its base URL, e.g. http://localhost:8000/v1."
                )
            try:
                base = check_url(base)
            except ValueError as exc:
                raise SetupError(str(exc)) from None
            if "/" not in model:
                model = f"openai/{model}"
        elif "/" not in model:
            model = f"{self.provider}/{model}"
        return Choice(self.provider, model, base if self.provider == COMPATIBLE else "", self.api_key.strip())

    @property
    def key_name(self) -> str | None:
        """The variable the key stands for (None: the provider needs none, e.g. Ollama)."""
        if self.provider == COMPATIBLE:
            return SERVER_KEY
        names = key_names(self.model)
        return names[0] if names else None


def _connection(choice: Choice, config: Config) -> Connection:
    """The key typed now, else the one the environment or an earlier save has."""
    if choice.api_base:
        key = choice.api_key or config.api_key() or credentials.get(SERVER_KEY) or "not-needed"
        return Connection(api_base=choice.api_base, api_key=key)
    name = choice.key_name
    return Connection(api_key=choice.api_key or (credentials.get(name) if name else None) or None)


async def test_connection(client: ModelClient, choice: Choice, config: Config) -> str:
    """A one-token request to the chosen model; its answer (or the provider's refusal) in
    one line. Raises SetupError with that line when the request fails."""
    choice = choice.checked()
    request = ModelRequest(
        model=choice.model,
        messages=[ChatUser(role="user", content=TEST_PROMPT)],
        max_tokens=1,
        connection=_connection(choice, config),
    )
    try:
        text, _cost = await asyncio.wait_for(client.request(request), TEST_TIMEOUT_S)
    except asyncio.TimeoutError:  # TimeoutError itself from Python 3.11 on
        raise ConnectionFailed(
            f"{choice.model} did not answer within {TEST_TIMEOUT_S:.0f} s; is the server running at "
            f"{choice.api_base or 'the provider'}?"
        ) from None
    except JupyterAgentError as exc:
        raise ConnectionFailed(_one_line(exc.for_user())) from None
    except Exception as exc:  # an adapter's own failure: still one line, never a traceback
        raise ConnectionFailed(_one_line(f"{type(exc).__name__}: {exc}")) from None
    answer = _one_line(text) or "(an empty answer)"
    return f"Connected: {choice.model} answered “{answer}”."


def save(choice: Choice, config: Config, env: Mapping[str, str] | None = None) -> str:
    """Write the model (and server) into the user's config file and the key where keys go;
    returns what was saved, and what still overrides it (an environment variable, a lock)."""
    choice = choice.checked()
    if config.is_locked("model"):
        raise SetupError(
            f"The administrator fixed the model in {config.admin_file}; it cannot be changed here."
        )
    path = global_config_dir(env or _environ()) / "config.json"
    data = _read_user_file(path)
    data["model"] = choice.model
    if choice.api_base:
        data["api_base"] = choice.api_base
    else:
        data.pop("api_base", None)  # a hosted provider must not be sent to an old server's address
    try:
        Config.model_validate(data)
    except Exception as exc:
        raise SetupError(f"{path}: the settings would not be valid ({exc}); fix the file first.") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise SetupError(f"could not write {path}: {exc.strerror or exc}") from None
    said = [f"Saved {choice.model} in {path}"]
    if choice.api_key and choice.key_name:
        try:
            said.append(
                f"its key ({choice.key_name}) in {credentials.save(choice.key_name, choice.api_key, env)}"
            )
        except credentials.KeyStoreError as exc:
            raise SetupError(str(exc)) from None
    return " and ".join(said) + "." + _overridden(choice, env or _environ())


def _overridden(choice: Choice, env: Mapping[str, str]) -> str:
    """What will still win over the user's file (the environment, the project's file)."""
    notes = []
    if env.get("JUPYTER_AGENT_MODEL", choice.model) != choice.model:
        notes.append(
            f"$JUPYTER_AGENT_MODEL ({env['JUPYTER_AGENT_MODEL']}) still overrides the model: unset it"
        )
    if not choice.api_base and env.get("JUPYTER_AGENT_API_BASE"):
        notes.append("$JUPYTER_AGENT_API_BASE still sends the calls to another server: unset it")
    return (" " + "; ".join(notes) + ".") if notes else ""


def _read_user_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        raise SetupError(f"{path}: cannot be read as JSON ({exc}); fix or remove it first.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object")
    return data


def _environ() -> Mapping[str, str]:
    return os.environ  # the live environment (``%env`` in a kernel counts)


def _one_line(text: str, cap: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= cap else line[: cap - 1] + "…"


def current(config: Config) -> Choice:
    """The setup's starting point: what is configured now."""
    model = config.model or ""
    provider = COMPATIBLE if config.api_base else (provider_of(model) if model else "anthropic")
    return Choice(provider, model, config.api_base or "")


def key_status(config: Config, model: str | None) -> str:
    """Whether ``model``'s key is set and where from, in words (never the key)."""
    if config.api_base:
        name = config.api_key_source()
        if name:
            return f"set (environment ${name})"
        where = credentials.where(SERVER_KEY)
        return f"saved in {where}" if where else "none (the server at api_base gets “not-needed”)"
    if not model:
        return "no model chosen yet"
    names = key_names(model)
    if not names:
        return "not needed for this provider"
    for name in names:
        if os.environ.get(name):
            return f"set (environment ${name})"
        where = credentials.where(name)
        if where:
            return f"saved in {where}"
    return f"not set (${names[0]}): set it, or save one in the setup"
