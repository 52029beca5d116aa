"""The ``mcp`` config key, in OpenCode's shape, and ``{env:NAME}`` substitution.

Local servers are commands talking MCP over stdio; remote ones are URLs (streamable
HTTP, falling back to SSE). Header and environment values may say ``{env:TOKEN}`` so a
secret stays out of the config file; the resolved values are redacted everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from jupyter_agent.core.errors import UsageFailure

ENV_REF = re.compile(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
DEFAULT_TIMEOUT = 30.0


class McpConfigError(UsageFailure, ValueError):
    """A server's settings cannot be used (a referenced variable is missing)."""


class _Server(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    timeout: float | None = None
    """Seconds to connect and list tools (OpenCode's milliseconds, 1000 and up, are accepted)."""

    def startup_timeout(self) -> float:
        if self.timeout is None or self.timeout <= 0:
            return DEFAULT_TIMEOUT
        return self.timeout / 1000 if self.timeout >= 1000 else self.timeout


class LocalServer(_Server):
    type: Literal["local"] = "local"
    command: list[str] = Field(min_length=1)
    environment: dict[str, str] = Field(default_factory=dict)

    @field_validator("command")
    @classmethod
    def _not_blank(cls, value: list[str]) -> list[str]:
        if not value[0].strip():
            raise ValueError("the first entry must be the program to run")
        return value


class RemoteServer(_Server):
    type: Literal["remote"] = "remote"
    url: str
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value


McpServerConfig = Annotated[LocalServer | RemoteServer, Field(discriminator="type")]
ServerName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
"""Server names prefix tool names (``<server>_<tool>``), so they follow tool-name rules."""


def substitute(value: str, env: Mapping[str, str], where: str) -> tuple[str, list[tuple[str, str]]]:
    """Replace ``{env:NAME}``; returns the text and the (value, NAME) pairs to redact."""
    used: list[tuple[str, str]] = []

    def repl(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise McpConfigError(f"environment variable {name} is not set (used in {where})")
        used.append((env[name], name))
        return env[name]

    return ENV_REF.sub(repl, value), used


def shown(value: str) -> str:
    """How a header or environment value is displayed: references as written (``Bearer
    {env:TOKEN}``), any other literal text of 8 characters or more hidden (``***``)."""
    literal = ENV_REF.sub("", value)
    return value if ENV_REF.search(value) and len(literal.strip()) < 8 else "***"
