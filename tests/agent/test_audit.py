"""The admin's audit trail: one JSON line per tool call with who, where, what (redacted,
cut), how it was decided and what the step cost; rotation by size; ``jupyter-agent audit``
sums it up by user, tool and decision."""

from __future__ import annotations

import argparse
import asyncio
import json
import syslog
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent import audit_cli
from jupyter_agent.config import load_config
from jupyter_agent.failures import UsageProblem
from jupyter_agent.storage.audit_log import AuditLog, files, records

SECRET = "sk-live-0123456789abcdef0123"


def _lines(folder: Path) -> list[dict[str, Any]]:
    return list(records(folder))


async def test_one_line_per_tool_call_with_its_decision(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    monkeypatch.setenv("AUDIT_TEST_TOKEN", SECRET)  # a secret-looking variable: redacted everywhere
    (tmp_path / "data.txt").write_text("numbers\n")
    audit = tmp_path / "audit"
    scripted_model.queue(
        Reply(
            tool_calls=[
                ToolCall("read", json.dumps({"filePath": "data.txt"}), id="c1"),
                ToolCall(
                    "write",
                    json.dumps({"filePath": "out.txt", "content": f"{SECRET} " + "x" * 5000}),
                    id="c2",
                ),
                ToolCall(
                    "edit", json.dumps({"filePath": "data.txt", "oldString": "n", "newString": "N"}), id="c3"
                ),
                ToolCall(
                    "edit", json.dumps({"filePath": "data.txt", "oldString": "u", "newString": "U"}), id="c4"
                ),
                ToolCall("nope", "{}", id="c5"),
            ]
        ),
        Reply(text="done"),
    )
    runtime = make_runtime(
        interactive=True, audit=str(audit), permission={"edit": {"*": "ask", "out.txt": "deny"}}
    )
    answers = ["once", "reject"]
    asked: list[str] = []

    def answer(event: Any) -> None:
        asked.append(event.request.permission)
        reply = answers.pop(0) if answers else "reject"
        asyncio.get_running_loop().call_soon(runtime.permissions.reply, event.request.id, reply)

    runtime.bus.subscribe(answer, "permission.asked")
    sid = await runtime.prompt("work on the data")
    assert asked == ["edit", "edit"]
    lines = _lines(audit)
    assert [f.name for f in files(audit)] == ["ada.jsonl"]
    assert [(r["tool"], r["decision"], r.get("answer"), r["outcome"]) for r in lines] == [
        ("read", "allowed", None, "completed"),
        ("write", "denied", None, "rejected"),
        ("edit", "asked", "once", "completed"),
        ("edit", "asked", "reject", "rejected"),
        ("nope", "not run", None, "error"),
    ]
    first = lines[0]
    assert first["user"] == "ada" and first["session"] == sid and first["agent"] == "build"
    assert first["time"].endswith("+00:00") and first["arguments"] == {"filePath": "data.txt"}
    assert "step_cost_usd" in first and first["cost_unknown"] is True  # the scripted model has no price
    write = lines[1]
    assert write["rule"] == 'edit "out.txt"' and write["by"] == "config"
    raw = (audit / "ada.jsonl").read_text()
    assert SECRET not in raw and "[REDACTED" in raw
    assert len(write["arguments"]["content"]) < 400 and "characters)" in write["arguments"]["content"]
    assert lines[2]["permissions"][0]["permission"] == "edit"


async def test_an_admin_floor_denial_names_the_admins_rule(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = tmp_path / "admin.json"
    audit = tmp_path / "audit"
    admin.write_text(json.dumps({"audit": str(audit), "permission": {"edit": {"*.env": "deny"}}}))
    monkeypatch.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(admin))
    scripted_model.queue(
        Reply(
            tool_calls=[
                ToolCall("write", json.dumps({"filePath": "x.env", "content": "A=1"}), id="w1"),
                ToolCall("write", json.dumps({"filePath": "notes.txt", "content": "fine"}), id="w2"),
            ]
        ),
        Reply(text="ok"),
    )
    runtime = make_runtime()
    await runtime.prompt("write it")
    denied, allowed = _lines(audit)
    assert (denied["decision"], denied["by"], denied["rule"]) == ("denied", "admin", 'edit "*.env"')
    # what the floor says nothing of is not the admin's doing: allowed by the merged rules' default
    assert allowed["decision"] == "allowed" and allowed["permissions"][0]["by"] == "config"
    assert allowed["permissions"][0]["rule"] == "default"


def test_the_admins_audit_setting_cannot_be_switched_off_by_a_user(tmp_path: Path) -> None:
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"audit": "/var/log/jupyter-agent"}))
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"audit": None}))
    config = load_config(tmp_path, env={}, global_dir=tmp_path / "g", system_file=admin)
    assert config.audit == "/var/log/jupyter-agent" and config.is_locked("audit")


def test_rotation_by_size_keeps_every_line(tmp_path: Path) -> None:
    log = AuditLog(str(tmp_path), "bob", max_bytes=300, keep=3)
    for n in range(40):
        assert log.write({"tool": "read", "n": n, "decision": "allowed"})
    names = sorted(p.name for p in files(tmp_path))
    assert names == ["bob.jsonl", "bob.jsonl.1", "bob.jsonl.2", "bob.jsonl.3"]
    assert all(p.stat().st_size <= 300 for p in files(tmp_path))
    kept = [r["n"] for r in records(tmp_path)]
    assert (
        kept == sorted(kept) and kept[-1] == 39 and kept[0] > 0
    )  # oldest first; only the oldest files dropped


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    log = AuditLog(str(blocker / "audit"), "ada")
    assert not log.write({"tool": "read"})
    assert log.problem and str(blocker) in log.problem and "\n" not in log.problem


def _summary(folder: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    args = argparse.Namespace(folder=str(folder), by=None, json="--json" in flags)
    assert audit_cli.main(args) == 0
    return capsys.readouterr().out


def test_the_audit_command_counts_by_user_tool_and_decision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for who, tool, decision, answer, cost, message in (
        ("ada", "bash", "allowed", None, 0.01, "m1"),
        ("ada", "read", "allowed", None, 0.01, "m1"),  # the same step: its cost counts once
        ("ada", "bash", "asked", "reject", 0.02, "m2"),
        ("bob", "write", "denied", None, None, "m3"),
    ):
        record = {
            "tool": tool,
            "decision": decision,
            "session": "s",
            "message": message,
            "step_cost_usd": cost,
        }
        if answer:
            record["answer"] = answer
        if cost is None:
            record["cost_unknown"] = True
        AuditLog(str(tmp_path), who).write(record)
    (tmp_path / "ada.jsonl").open("a").write("not json\n")
    text = _summary(tmp_path, capsys)
    assert text.startswith("4 tool calls in ") and "$0.0300 + unknown" in text.splitlines()[0]
    by_user = text.split("by user:")[1].split("by tool:")[0]
    assert "ada" in by_user and " 3 " in by_user and "asked 1" in by_user and "$0.0300" in by_user
    assert "asked → reject" in text.split("by decision:")[1]
    counted = json.loads(_summary(tmp_path, capsys, "--json"))
    assert counted["tool"]["bash"]["calls"] == 2 and counted["decision"]["denied"]["calls"] == 1
    assert counted["all"]["calls"] == 4 and counted["user"]["bob"]["cost_unknown"] is True


def test_the_audit_command_without_a_trail_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(tmp_path / "admin.json"))
    (tmp_path / "admin.json").write_text(json.dumps({"audit": "syslog"}))
    args = argparse.Namespace(folder=None, by=None, json=False)
    with pytest.raises(UsageProblem, match="journalctl"):
        audit_cli.main(args)
    (tmp_path / "admin.json").write_text("{}")
    with pytest.raises(UsageProblem, match='sets "audit"'):
        audit_cli.main(args)


def test_the_agent_cannot_rewrite_its_own_trail(make_runtime: Any, tmp_path: Path) -> None:
    """The audit folder is a protected path: a write to it always asks (a headless run
    refuses it), and the sandbox keeps it read-only like the session store."""
    audit = tmp_path / "audit"
    runtime = make_runtime(audit=str(audit))
    guard = runtime.workspace.services.guard
    assert guard.protects(audit / "ada.jsonl", tmp_path, tmp_path) == "the administrator's audit trail"
    assert make_runtime(audit="syslog").workspace.services.guard.audit is None


async def test_a_trail_that_cannot_be_written_is_told_once_and_the_calls_go_on(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    (tmp_path / "a.txt").write_text("a")
    read = json.dumps({"filePath": "a.txt"})
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("read", read, id="r1"), ToolCall("read", read, id="r2")]), Reply(text="ok")
    )
    runtime = make_runtime(audit=str(blocker / "audit"))
    sid = await runtime.prompt("read it twice")
    told = [n for n in runtime.take_notices(sid, None) if "audit log" in n]
    assert len(told) == 1 and str(blocker) in told[0] and "go on unrecorded" in told[0]
    assert runtime.messages(sid)[-1].info.error is None


def test_syslog_gets_one_json_line_per_record(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[int, str]] = []
    # as the real one: the message is encoded to UTF-8 (a lone surrogate raises)
    monkeypatch.setattr(
        syslog, "syslog", lambda priority, line: sent.append((priority, line.encode().decode()))
    )
    assert AuditLog("syslog", "ada").write({"tool": "bash", "decision": "allowed"})
    ((priority, line),) = sent
    assert priority == syslog.LOG_INFO and json.loads(line) == {
        "user": "ada",
        "tool": "bash",
        "decision": "allowed",
    }
    # a tool's output may hold half a surrogate pair: syslog gets ASCII JSON, never an exception
    assert AuditLog("syslog", "ada").write({"arguments": {"text": "half a pair \ud800"}})
    assert json.loads(sent[-1][1])["arguments"]["text"] == "half a pair \ud800"
