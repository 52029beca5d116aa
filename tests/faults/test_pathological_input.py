"""Issue 27.5: pathological input is one line naming what was wrong, and nothing is stored half.

Tool arguments nested 200,000 levels deep and a config file nested 100,000 levels used to
surface as ``RecursionError`` ("unexpected … report it"); a prompt with a lone surrogate
or invalid UTF-8 as "surrogates not allowed (unexpected …)".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from faults_support import one_line, parts
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, TextPart, ToolPart

DEEP = "[" * 200_000 + "]" * 200_000


async def test_deeply_nested_tool_arguments_are_one_error(make_runtime: Any, scripted_model: Any) -> None:
    """The model reads: "The arguments provided to the tool are invalid: they are nested more
    than 64 levels deep. Resend …" and the run goes on; the stored part is whole."""
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("read", DEEP)]),
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": [[[[[[[["x"]]]]]]]] * 1, "deep": "x"}))]),
        Reply(tool_calls=[ToolCall("read", '{"filePath": ' + "[" * 500 + "]" * 500 + "}")]),
        Reply(text="gave up"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("read it")
    first, second, third = parts(runtime, sid, ToolPart)
    assert first.state.status == "error"
    assert first.state.error == (
        "The arguments provided to the tool are invalid: they are nested more than 64 levels deep. "
        "Resend the call with flatter arguments."
    )
    assert first.state.input == {"raw": DEEP}
    assert second.state.status == "error" and "Invalid arguments for tool 'read'" in second.state.error
    assert third.state.error == first.state.error and third.state.input["raw"].startswith('{"filePath": [[[')
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is None


def test_deeply_nested_config_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "jupyter-agent.json").write_text('{"models": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = run_cli(["run", "--model", "openai/test", "hi"], tmp_path)
    assert result.returncode == 2
    assert one_line(result) == (
        f"error: {tmp_path / 'jupyter-agent.json'}: the JSON is nested more than 64 levels deep; a config "
        "file is a few levels at most"
    )
    assert not (tmp_path / ".jupyter-agent").exists()


def test_invalid_utf8_prompt_is_one_line_and_stores_nothing(tmp_path: Path) -> None:
    """`jupyter-agent run $'caf\\xff'`: "the prompt is not valid UTF-8: byte 0xff at character 3
    is not text", exit 2, no store."""
    env = {**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test"}
    cmd = [
        sys.executable.encode(),
        b"-m",
        b"jupyter_agent.cli",
        b"run",
        b"--model",
        b"openai/test",
        b"caf\xff",
    ]
    result = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert one_line(result) == (
        "error: the prompt is not valid UTF-8: byte 0xff at character 3 is not text. Save or type it as "
        "UTF-8 and try again."
    )
    assert not (tmp_path / ".jupyter-agent").exists()


def test_lone_surrogate_prompt_in_the_cli(tmp_path: Path) -> None:
    env = {**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test", "PYTHONIOENCODING": "utf-8"}
    code = (
        "import sys; from jupyter_agent.cli import entry; "
        "sys.argv = ['x', 'run', '--model', 'o/t', 'a\\ud800b']; entry()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert one_line(result).startswith(
        "error: the prompt holds a lone surrogate (U+D800 at character 1), which is not text."
    )
    assert not (tmp_path / ".jupyter-agent").exists()


async def test_a_model_that_sends_lone_surrogates_is_kept_with_replacements(
    make_runtime: Any, scripted_server: Any
) -> None:
    """A hostile stream with "\\ud800" in its text and tool input: stored with U+FFFD, the run ends well."""
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("glob", json.dumps({"pattern": "x\ud800*.txt"}))]),
        Reply(text="odd \ud800 text"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("hi")
    (tool,) = parts(runtime, sid, ToolPart)
    assert tool.state.input == {"pattern": "x\ufffd*.txt"}
    texts = [p.text for p in parts(runtime, sid, TextPart) if p.text.startswith("odd")]
    assert texts == ["odd \ufffd text"]
    assert runtime.store.messages(sid)[-1].info.error is None
