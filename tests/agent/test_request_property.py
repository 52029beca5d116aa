"""The incremental request builder equals a from-scratch conversion, at every step.

Hypothesis drives random sessions through the real runtime, loop, store and the in-process
scripted model: prompts, tool calls, edits of earlier parts (also in the middle of a run, keeping
the text's length and last characters), prune, manual and automatic compaction (context
full, overflow replay, failed summaries), revert/unrevert, fork and a kernel restart
(a new runtime reopening the store). A spy on ``RequestBuilder.build`` compares, at every
step the loop takes, the request it returns with one built from nothing: a new recorder
reading the store (only its window: the last compaction on, as far back as prune looks)
and a new builder. Byte for byte (``json.dumps``). What prune selects, a turn's and the
session's cost are the same from the window as from the whole history.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import tempfile
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from scripted_server import ErrorReply, Reply, ToolCall, Usage

from jupyter_agent.agent import request as request_module
from jupyter_agent.agent import window as window_module
from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.revert import RevertError, revert, unrevert
from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.config import load_config
from jupyter_agent.context.prune import select_prune
from jupyter_agent.core import cost
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import TextPart, ToolPart, ToolStateCompleted
from jupyter_agent.storage.sqlite_store import SqliteStore

OVERFLOW = ErrorReply(400, "This model's maximum context length is 32000 tokens. Please reduce the length.")
FULL = Usage(prompt_tokens=30_000, completion_tokens=10)  # over usable (27,904): auto compaction
SUMMARY = Reply(text="## Goal\n- scripted summary")

texts = st.text(alphabet=st.sampled_from("ab é\n\t{}\"'\\🙂"), max_size=40)
prompts = st.tuples(st.just("prompt"), texts, st.integers(0, 3), st.booleans())
ops = st.one_of(
    prompts,
    prompts,
    prompts,
    prompts,
    st.tuples(st.just("edit"), st.integers(0, 1_000), st.booleans()),
    st.tuples(st.just("prune"), st.integers(1, 3)),
    st.tuples(st.just("compact"), st.sampled_from(["ok", "error", "overflow"])),
    st.tuples(st.just("auto"), st.sampled_from(["full", "overflow", "overflow-twice"])),
    st.tuples(st.just("revert")),
    st.tuples(st.just("unrevert")),
    st.tuples(st.just("fork")),
    st.tuples(st.just("restart")),
)


def _same_shape_edit(text: str, rng: random.Random) -> str:
    """A different text of the same length and the same last 16 characters (when it can)."""
    if len(text) > 16:
        i = rng.randrange(len(text) - 16)
        return text[:i] + ("x" if text[i] != "x" else "y") + text[i + 1 :]
    return text + "!" if rng.random() < 0.5 else "edited " + text


def _editable(history: list[Any]) -> list[Any]:
    return [
        p
        for m in history
        for p in m.parts
        if (isinstance(p, TextPart) and p.text) or (isinstance(p, ToolPart) and p.state.status == "completed")
    ]


def _edit(recorder: Recorder, index: int, rng: random.Random, *, whole: bool = False) -> None:
    """``whole``: any part of the session; else one the recorder has loaded (a running loop's)."""
    parts = _editable(recorder.history() if whole else recorder.window())
    if not parts:
        return
    p = parts[index % len(parts)]
    if isinstance(p, TextPart):
        recorder.part(p.model_copy(update={"text": _same_shape_edit(p.text, rng)}))
    elif isinstance(p, ToolPart) and isinstance(p.state, ToolStateCompleted):
        state = p.state.model_copy(update={"output": _same_shape_edit(p.state.output, rng)})
        recorder.part(p.model_copy(update={"state": state}))


class Session:
    """One random session: its folder, runtime and the checks made so far."""

    def __init__(self, folder: Path, server: Any, rng: random.Random) -> None:
        self.folder, self.server, self.rng = folder, server, rng
        self.runtime = self._runtime()
        self.sid = self.runtime.new_session().id
        self.checks = 0
        self.failures: list[BaseException] = []
        for i in range(3):
            rows = (f"row {i} {j} {'v' * (j % 30)}" for j in range(60))
            (folder / f"data{i}.txt").write_text("\n".join(rows))

    def _runtime(self) -> Runtime:
        config = load_config(
            self.folder,
            {"model": self.server.model, "api_base": self.server.base_url},
            env={},
            global_dir=self.folder / "no-global",
        )
        return build_runtime(
            config=config,
            store=SqliteStore.for_directory(self.folder),
            project_root=self.folder,
            working_dir=self.folder,
            generate_titles=False,
            client=self.server,
        )

    def check(self, build: Any, builder: Any, args: tuple[Any, ...], built: list[Any]) -> None:
        """What the builder returned equals a new builder's request over the store's rows.

        The loop turns an exception into a session error, so failures are kept and
        asserted on after the run.
        """
        try:
            self._check(build, builder, args, built)
        except BaseException as e:
            self.failures.append(e)

    def _check(self, build: Any, builder: Any, args: tuple[Any, ...], built: list[Any]) -> None:
        recorder = builder.recorder
        recorder.flush()
        session = recorder.store.get_session(recorder.session.id)
        full = Recorder(recorder.store, Bus(), session).history()
        window = recorder.window()  # the loop's recorder stays lazy: it never loads older messages
        assert [m.model_dump() for m in window] == [m.model_dump() for m in full[len(full) - len(window) :]]
        fresh = Recorder(recorder.store, Bus(), session)  # a reopen: only the window is read
        scratch = request_module.RequestBuilder(fresh, builder.model, builder.vision, builder.media_in_tools)
        assert json.dumps(built) == json.dumps(build(scratch, *args))
        assert select_prune(fresh.window()) == select_prune(full)
        last_user = next((m.info.id for m in reversed(full) if m.info.role == "user"), None)
        if last_user is not None:
            assert cost.turn(fresh.window(), last_user) == cost.turn(full, last_user)
        assert fresh.spent() == cost.total(full)
        assert [m.model_dump() for m in fresh.history()] == [m.model_dump() for m in full]
        self.checks += 1

    async def apply(self, op: tuple[Any, ...]) -> None:
        kind, server, runtime = op[0], self.server, self.runtime
        if kind == "prompt":
            _, text, calls, big = op
            for n in range(calls):
                args = json.dumps({"filePath": f"data{n}.txt"})
                call = ToolCall("read", args, id=f"call_{self.rng.getrandbits(32)}")
                server.queue(Reply(tool_calls=[call]))
            server.queue(Reply(text="the answer, in words: " + "w " * (2_000 if big else 3)))
            await runtime.prompt(f"look at the data files, {text}", session_id=self.sid)
        elif kind == "edit":
            _edit(runtime.recorder(self.sid), op[1], self.rng, whole=True)
        elif kind == "prune":
            completed = [
                p.id
                for m in runtime.recorder(self.sid).history()
                for p in m.parts
                if isinstance(p, ToolPart) and p.state.status == "completed"
            ]
            runtime.store.mark_compacted(completed[: op[1]], 1)
        elif kind == "compact":
            reply = {"ok": SUMMARY, "error": ErrorReply(400, "invalid request"), "overflow": OVERFLOW}[op[1]]
            server.queue(reply)
            await runtime.compact(self.sid)
        elif kind == "auto":
            if op[1] == "full":
                server.queue(Reply(text="long answer", usage=FULL), SUMMARY, Reply(text="continued"))
            elif op[1] == "overflow":
                server.queue(OVERFLOW, SUMMARY, Reply(text="replayed"))
            else:
                server.queue(OVERFLOW, OVERFLOW)
            await runtime.prompt("a prompt the provider refuses at first", session_id=self.sid)
        elif kind in ("revert", "unrevert"):
            with contextlib.suppress(RevertError):
                (revert if kind == "revert" else unrevert)(runtime.sessions, self.sid)
        elif kind == "fork":
            self.sid = runtime.fork(self.sid).id
        elif kind == "restart":
            runtime.store.close()
            self.runtime = self._runtime()
        leftover = server.pending()
        if leftover:  # a run that stopped early (refused, failed) leaves replies unused
            server._queue.clear()


@pytest.fixture
def property_server(scripted_model: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The in-process model: the property is about the request builder, not the transport."""
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-test")
    return scripted_model


@settings(
    max_examples=25,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking real runs takes minutes
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.large_base_example,
    ],
)
@given(steps=st.lists(ops, min_size=3, max_size=10), seed=st.integers(0, 2**32))
def test_incremental_request_equals_a_full_rebuild(
    property_server: Any, steps: list[tuple[Any, ...]], seed: int
) -> None:
    rng = random.Random(seed)  # mid-run edits and prune, and which parts they touch
    original = request_module.RequestBuilder.build
    state: dict[str, Any] = {}

    def spy(builder: Any, *args: Any) -> list[Any]:
        """At some steps edit or prune earlier parts mid-run first, through the loop's recorder."""
        roll = rng.random()
        if roll < 0.4:
            _edit(builder.recorder, rng.randrange(1_000), rng)
        elif roll < 0.55:
            completed = [
                p.id
                for m in builder.recorder.window()
                for p in m.parts
                if isinstance(p, ToolPart) and p.state.status == "completed"
            ]
            chosen = rng.sample(completed, min(len(completed), 2))
            loop = state.get("loop")
            if loop is not None:
                with patch("jupyter_agent.agent.loop.select_prune", lambda *_: chosen):
                    loop.prune()
        built = original(builder, *args)
        state["session"].check(original, builder, args, built)
        return built

    from jupyter_agent.agent import loop as loop_module

    original_step = loop_module.AgentLoop._step

    async def remember(loop: Any, *args: Any) -> Any:
        state["loop"] = loop
        return await original_step(loop, *args)

    property_server.requests.clear()
    property_server._queue.clear()
    with tempfile.TemporaryDirectory() as folder:
        session = Session(Path(folder), property_server, rng)
        state["session"] = session
        with (
            patch.object(request_module.RequestBuilder, "build", spy),
            patch.object(loop_module.AgentLoop, "_step", remember),
            patch.object(window_module, "PAGE", 3),  # small sessions still load their window in pages
        ):
            for op in steps:
                asyncio.run(session.apply(op))
        session.runtime.store.close()
    if session.failures:
        raise session.failures[0]
    assert session.checks >= sum(1 for op in steps if op[0] in ("prompt", "auto"))
