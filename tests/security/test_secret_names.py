"""Which variables count as secret (issue 13 item 5): by name, by the config, by use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agent.config import load_config
from jupyter_agent.core.redaction import looks_secret, redact, register


@pytest.mark.parametrize(
    "name",
    [
        "DB_PASSWORD",
        "OPENAI_API_KEY",
        "githubToken",
        "HF_TOKEN",
        "CLIENT_SECRET",
        "JUPYTER_TOKEN",
        "PGPASSWORD",
    ],
)
def test_secret_looking_names(name: str) -> None:
    assert looks_secret(name)


@pytest.mark.parametrize(
    "name",
    ["PWD", "OLDPWD", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM", "KEY_FILE", "HOME", "PATH", "KEYBOARD"],
)
def test_ordinary_names(name: str) -> None:
    assert not looks_secret(name)


def test_redact_entries_name_a_variable_or_are_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """User sees: ``"redact": ["SERVICE_URL", "hunter2-corp"]`` hides both the URL's value
    (named by the variable) and the literal."""
    monkeypatch.setenv("SERVICE_URL", "https://user:pw@internal.example")
    register(values=["SERVICE_URL", "hunter2-corp"])
    text = redact("GET https://user:pw@internal.example as hunter2-corp")
    assert text == "GET [REDACTED:SERVICE_URL] as [REDACTED:redact]"


def test_agent_config_does_not_show_literal_redact_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """User sees: ``%agent config`` lists variable names but not the literal secrets."""
    monkeypatch.setenv("SERVICE_URL", "https://user:pw@internal.example")
    cfg = load_config(
        tmp_path, {"redact": ["SERVICE_URL", "hunter2-corp"]}, env={}, global_dir=tmp_path / "g"
    )
    shown = json.dumps(cfg.redacted())
    assert "hunter2-corp" not in shown and "SERVICE_URL" in shown


def test_a_password_inside_a_url_variable_is_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """``env`` run by the model shows ``DATABASE_URL=postgres://app:[REDACTED:DATABASE_URL]@db/sales``:
    the host stays readable, the password does not leave."""
    monkeypatch.setenv("DATABASE_URL", "postgres://app:s3cr3t-pw@db.internal:5432/sales")
    monkeypatch.setenv("DOCS_URL", "https://docs.example.com/guide")
    text = redact(
        "DATABASE_URL=postgres://app:s3cr3t-pw@db.internal:5432/sales\nDOCS_URL=https://docs.example.com/guide"
    )
    assert "s3cr3t-pw" not in text
    assert "postgres://app:[REDACTED:DATABASE_URL]@db.internal:5432/sales" in text
    assert "https://docs.example.com/guide" in text
