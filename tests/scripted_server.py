"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for real-HTTP tests.

Tests queue replies (text, reasoning, incremental tool calls, usage, HTTP errors with
headers, mid-stream disconnects, delays); litellm reaches it as ``openai/test`` with
``api_base``. Every request body is recorded for assertions. An empty queue answers a
loud 500 so a test that under-scripts fails instead of hanging. Text completions
(``/completions``, fill-in-the-middle: ``prompt`` and ``suffix``) stream the same replies
as text chunks; a stalled reply notes when the client closed the connection
(``client_closed`` in its record: an aborted request, not just an ignored one).
"""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Usage:
    prompt_tokens: int = 10
    completion_tokens: int = 5
    reasoning_tokens: int = 0
    cached_tokens: int = 0


@dataclass
class ToolCall:
    name: str
    arguments: str
    id: str = ""


@dataclass
class Reply:
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = "auto"
    """"auto" → tool_calls when there are calls, else stop; None → never sent."""
    chunk_size: int = 8
    delay_per_chunk: float = 0.0
    disconnect_after_chunks: int | None = None
    same_tool_index: bool = False
    """Send every tool call at stream index 0 (told apart only by id), as some servers do."""
    stall_after_chunks: int | None = None
    """Send this many chunks, then nothing more (the connection stays open) until the server stops."""


@dataclass
class ErrorReply:
    status: int
    body: str = "error"
    headers: dict[str, str] = field(default_factory=dict)
    type: str = "scripted"
    """The error body's ``type`` (a LiteLLM proxy's: ``budget_exceeded``, ``auth_error`` …)."""


@dataclass
class RawReply:
    """Any answer at all: a login proxy's HTML page with status 200, say."""

    body: str
    status: int = 200
    content_type: str = "text/html; charset=utf-8"


Scripted = Reply | ErrorReply | RawReply


def call_id_for(n: int, call: ToolCall) -> str:
    """The id the model gives the ``n``-th call of a reply (the scripted one, or made up)."""
    return call.id or f"call_{n}_{abs(hash((call.name, call.arguments))) % 10**8}"


def _text_chunks(reply: Reply, model: str) -> list[dict[str, Any]]:
    """A text completion's stream (``/v1/completions``): ``choices[].text``, then usage."""
    base = {"id": "cmpl-scripted", "object": "text_completion", "created": int(time.time()), "model": model}
    size = max(1, reply.chunk_size)
    out = [
        {**base, "choices": [{"index": 0, "text": reply.text[i : i + size], "finish_reason": None}]}
        for i in range(0, len(reply.text), size)
    ]
    if reply.finish_reason is not None:
        finish = "stop" if reply.finish_reason == "auto" else reply.finish_reason
        out.append({**base, "choices": [{"index": 0, "text": "", "finish_reason": finish}]})
    u = reply.usage
    usage = {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens}
    out.append({**base, "choices": [], "usage": {**usage, "total_tokens": sum(usage.values())}})
    return out


def _chunks(reply: Reply, model: str) -> list[dict[str, Any]]:
    base = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    size = max(1, reply.chunk_size)
    for i in range(0, len(reply.reasoning), size):
        out.append(chunk({"reasoning_content": reply.reasoning[i : i + size]}))
    for i in range(0, len(reply.text), size):
        out.append(chunk({"content": reply.text[i : i + size]}))
    for n, call in enumerate(reply.tool_calls):
        index = 0 if reply.same_tool_index else n
        call_id = call_id_for(n, call)
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        for i in range(0, len(call.arguments), size):
            out.append(
                chunk(
                    {
                        "tool_calls": [
                            {"index": index, "function": {"arguments": call.arguments[i : i + size]}}
                        ]
                    }
                )
            )
    finish = reply.finish_reason
    if finish == "auto":
        finish = "tool_calls" if reply.tool_calls else "stop"
    if finish is not None:
        out.append(chunk({}, finish))
    u = reply.usage
    out.append(
        {
            **base,
            "choices": [],
            "usage": {
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "total_tokens": u.prompt_tokens + u.completion_tokens,
                "prompt_tokens_details": {"cached_tokens": u.cached_tokens},
                "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
            },
        }
    )
    return out


class ScriptedReplies:
    """The script and what was asked: shared by the HTTP server and the in-process model
    (``scripted_model.py``), so a test can switch between them without changing its script."""

    model = "openai/test"
    who = "scripted server"
    """Named in the 400 answered when nothing is queued."""

    def __init__(self) -> None:
        self._queue: list[Scripted] = []
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        """Streaming chat requests (the agent's steps), in order."""
        self.completions: list[dict[str, Any]] = []
        """Non-streaming requests (session titles), answered with ``title_reply``."""
        self.title_reply = Reply(text="Scripted session title")
        self.realistic_usage = False
        """Report ``prompt_tokens`` from the request size, so overflow happens as in real use."""
        self.default: Scripted | None = None
        """Answer used when the queue is empty (e.g. for benchmarks); None → a loud 400."""

    def queue(self, *replies: Scripted) -> None:
        with self._lock:
            self._queue.extend(replies)

    def pending(self) -> int:
        return len(self._queue)

    def _next(self) -> Scripted:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        return self.default or ErrorReply(400, f"{self.who}: no response queued")


class ScriptedServer(ScriptedReplies):
    """Start with :meth:`start`; queue replies with :meth:`queue`; read :attr:`requests`."""

    def __init__(self) -> None:
        super().__init__()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "test", "object": "model"}]}).encode()
                self._send(200, body, {"Content-Type": "application/json"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                record = {"path": self.path, "headers": dict(self.headers), "body": body, "at": time.time()}
                if not body.get("stream"):
                    # one-shot completions (session titles) have their own script
                    server.completions.append(record)
                    self._complete(server.title_reply, body.get("model", "test"))
                    return
                server.requests.append(record)
                reply = server._next()
                if isinstance(reply, RawReply):
                    self._send(reply.status, reply.body.encode(), {"Content-Type": reply.content_type})
                    return
                if isinstance(reply, ErrorReply):
                    payload = json.dumps(
                        {"error": {"message": reply.body, "type": reply.type, "code": reply.status}}
                    ).encode()
                    self._send(reply.status, payload, {"Content-Type": "application/json", **reply.headers})
                    return
                model = body.get("model", "test")
                if server.realistic_usage and isinstance(reply, Reply):
                    # report prompt tokens from the request's size (4 chars per token)
                    estimate = len(json.dumps(body.get("messages", []))) // 4
                    reply = replace(reply, usage=replace(reply.usage, prompt_tokens=estimate))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                # Mistral's FIM endpoint (/fim/completions) streams chat-shaped chunks
                text = self.path.rstrip("/").endswith("/completions") and not re.search(
                    r"/(chat|fim)/", self.path
                )
                try:
                    for n, chunk in enumerate((_text_chunks if text else _chunks)(reply, model)):
                        if reply.stall_after_chunks is not None and n >= reply.stall_after_chunks:
                            self._stall(record)  # silent, the connection open
                            return
                        if reply.disconnect_after_chunks is not None and n >= reply.disconnect_after_chunks:
                            self.close_connection = True
                            self.wfile.flush()
                            self.connection.shutdown(2)
                            return
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        if reply.delay_per_chunk:
                            time.sleep(reply.delay_per_chunk)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                    record["finished"] = time.time()  # the whole answer is out (streaming tests)
                except (BrokenPipeError, ConnectionResetError):
                    return
                self.close_connection = True

            def _stall(self, record: dict[str, Any]) -> None:
                """Say nothing until the server stops or the client closes the connection
                (then ``record["client_closed"]`` is when)."""
                while not server.stopping.is_set():
                    readable, _, _ = select.select([self.connection], [], [], 0.05)
                    if readable:
                        try:
                            gone = self.connection.recv(1, socket.MSG_PEEK) == b""
                        except OSError:
                            gone = True
                        if gone:
                            record["client_closed"] = time.time()
                            return
                        self.connection.recv(65536)  # more from the client: not a close

            def _complete(self, reply: Reply, model: str) -> None:
                if reply.delay_per_chunk:  # a slow answer in one piece: the wait before it
                    time.sleep(reply.delay_per_chunk)
                message: dict[str, Any] = {"role": "assistant", "content": reply.text}
                payload = {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {
                        "prompt_tokens": reply.usage.prompt_tokens,
                        "completion_tokens": reply.usage.completion_tokens,
                        "total_tokens": reply.usage.prompt_tokens + reply.usage.completion_tokens,
                    },
                }
                self._send(200, json.dumps(payload).encode(), {"Content-Type": "application/json"})

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.stopping = threading.Event()
        """Set by ``stop``: ends the silence of stalled replies."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def main() -> None:
    """Run standalone (for the browser tests and benchmarks): replies read from a JSON file."""
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = ScriptedServer().start()
    with open(args.port_file, "w") as fh:
        fh.write(str(server.port))
    for line in sys.stdin:
        spec = json.loads(line)
        if "status" in spec:
            server.queue(ErrorReply(**spec))
        else:
            calls = [ToolCall(**c) for c in spec.pop("tool_calls", [])]
            usage = Usage(**spec.pop("usage", {}))
            server.queue(Reply(tool_calls=calls, usage=usage, **spec))


if __name__ == "__main__":
    main()
