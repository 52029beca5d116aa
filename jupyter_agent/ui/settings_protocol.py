"""The side panel's settings and setup views on the wire (``panel_settings.py`` answers them).

Kept apart from ``panel_protocol.py``, which lists them in its unions; ``tsgen.py`` writes
them into ``labextension/src/protocol.ts`` with the rest.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, SecretStr


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SettingsRequest(_Wire):
    """The settings view: each effective key with where it came from."""

    type: Literal["settings"] = "settings"


class SetupRequest(_Wire):
    """The setup view: ``providers`` and ``models`` fill its lists, ``test`` makes a one-token
    request, ``save`` writes the choice to the user's config folder (never the project)."""

    type: Literal["setup"] = "setup"
    action: Literal["providers", "models", "test", "save"]
    provider: str = ""
    model: str = ""
    api_base: str = ""
    api_key: SecretStr = SecretStr("")
    """Typed by the user; never echoed, logged or stored in the notebook."""


class SettingView(_Wire):
    key: str
    value: str
    """As shown: secrets masked, maps as JSON."""
    origin: str
    """``default``, ``admin file …``, ``user file …``, ``project file …``, ``environment ($VAR)``
    or ``flag``."""
    locked: bool = False


class SettingsMsg(_Wire):
    """The effective settings with their origins (``%agent config`` shows the same)."""

    kind: Literal["settings"] = "settings"
    model: str | None = None
    key: str
    """Whether the model's key is set and where from (never the key)."""
    settings: list[SettingView]
    sources: list[str]
    """The files and layers read, lowest first."""


class SetupMsg(_Wire):
    """The answer to a :class:`SetupRequest` (``ok`` False: ``text`` says what to change)."""

    kind: Literal["setup"] = "setup"
    action: Literal["providers", "models", "test", "save"]
    ok: bool = True
    text: str = ""
    provider: str = ""
    model: str = ""
    api_base: str = ""
    providers: list[str] | None = None
    models: list[str] | None = None
    key_name: str | None = None
    """The variable the chosen model's key stands for (None: it needs none)."""
