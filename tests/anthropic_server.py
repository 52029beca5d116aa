"""A scripted Anthropic Messages endpoint on 127.0.0.1, validating requests as Anthropic does.

litellm's own ``anthropic/`` provider reaches it with ``api_base`` set to :attr:`base_url`
(litellm posts to ``{api_base}/v1/messages``). Replies stream the real SSE events
(``message_start``, ``content_block_*`` with ``thinking_delta``, ``signature_delta``,
``input_json_delta``, ``message_delta`` with cache usage). Requests Anthropic refuses are
answered with Anthropic's HTTP 400 body: more than 4 ``cache_control`` breakpoints, a
tool-use turn that does not start with the thinking block this server issued when
thinking is on, unanswered ``tool_use`` / orphan ``tool_result``, non-alternating roles,
empty text blocks. Every request body is recorded in :attr:`requests`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "anthropic/claude-sonnet-4-5"
THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
"""The call options that turn extended thinking on."""


@dataclass
class AUsage:
    input_tokens: int = 100
    output_tokens: int = 20
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


@dataclass
class AToolUse:
    name: str
    input: dict[str, Any]
    id: str = ""


@dataclass
class AReply:
    thinking: str = ""
    redacted: str = ""
    """Data of a ``redacted_thinking`` block sent before the thinking block."""
    text: str = ""
    tool_uses: list[AToolUse] = field(default_factory=list)
    usage: AUsage = field(default_factory=AUsage)
    chunk_size: int = 6
    input_delay: float = 0.0
    """Seconds before each ``input_json_delta``: a tool's input that streams slowly."""


def signature_for(thinking: str) -> str:
    return "sig-" + hashlib.sha256(thinking.encode()).hexdigest()[:24]


def breakpoints(body: dict[str, Any]) -> int:
    """``cache_control`` marks in a Messages request (system, messages, tools)."""
    count = 0

    def walk(value: Any) -> None:
        nonlocal count
        if isinstance(value, dict):
            if value.get("cache_control"):
                count += 1
            for v in value.values():
                if isinstance(v, (dict, list)):
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(body.get("system"))
    walk(body.get("messages"))
    walk(body.get("tools"))
    return count


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def validate(body: dict[str, Any], issued: dict[str, str]) -> str | None:
    """Anthropic's refusal message for ``body``, or None when Anthropic would accept it."""
    marks = breakpoints(body)
    if marks > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {marks}."
    messages = body.get("messages") or []
    if not messages or messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    thinking_on = (body.get("thinking") or {}).get("type") == "enabled"
    for n, m in enumerate(messages):
        if n and m.get("role") == messages[n - 1].get("role"):
            role = m.get("role")
            return (
                'messages: roles must alternate between "user" and "assistant", '
                f'but found multiple "{role}" roles in a row'
            )
        blocks = _blocks(m)
        if not blocks and not (n == len(messages) - 1 and m.get("role") == "assistant"):
            return (
                f"messages.{n}: all messages must have non-empty content "
                "except for the optional final assistant message"
            )
        for b, block in enumerate(blocks):
            if block.get("type") == "text" and not str(block.get("text", "")).strip():
                return f"messages.{n}.content.{b}.text: text content blocks must contain non-whitespace text"
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if results:
            before = [b["id"] for b in _blocks(messages[n - 1]) if b.get("type") == "tool_use"] if n else []
            orphan = [r for r in results if r not in before]
            if orphan:
                return (
                    f"messages.{n}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{orphan[0]}. Each `tool_result` block must have a corresponding `tool_use` block "
                    "in the previous message."
                )
        if uses:
            after = _blocks(messages[n + 1]) if n + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in after if b.get("type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing:
                return (
                    f"messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately "
                    f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                    "`tool_result` block in the next message."
                )
    if thinking_on:
        last_assistant = max(
            (n for n, m in enumerate(messages) if m.get("role") == "assistant"), default=None
        )
        if last_assistant is not None:
            blocks = _blocks(messages[last_assistant])
            if any(b.get("type") == "tool_use" for b in blocks):
                first = blocks[0]
                if first.get("type") not in ("thinking", "redacted_thinking"):
                    return (
                        f"messages.{last_assistant}.content.0.type: Expected `thinking` or "
                        f"`redacted_thinking`, but found `{first.get('type')}`. When `thinking` is enabled, "
                        "a final `assistant` message must start with a thinking block (preceeding the "
                        "lastmost set of `tool_use` and `tool_result` blocks)."
                    )
                for b, block in enumerate(blocks):
                    if block.get("type") == "thinking" and issued.get(
                        block.get("signature", "")
                    ) != block.get("thinking"):
                        return (
                            f"messages.{last_assistant}.content.{b}: Invalid `signature` in `thinking` block"
                        )
                    if block.get("type") == "redacted_thinking" and block.get("data") not in issued.values():
                        where = f"messages.{last_assistant}.content.{b}"
                        return f"{where}: Invalid `data` in `redacted_thinking` block"
    return None


def _events(
    reply: AReply, model: str, issued: dict[str, str], number: int
) -> list[tuple[str, dict[str, Any]]]:
    u = reply.usage
    start_usage = {
        "input_tokens": u.input_tokens,
        "output_tokens": 1,
        "cache_read_input_tokens": u.cache_read_input_tokens,
        "cache_creation_input_tokens": u.cache_creation_input_tokens,
    }
    out: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_scripted_{number}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        )
    ]
    index = 0
    size = max(1, reply.chunk_size)

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        out.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for d in deltas:
            out.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if reply.redacted:
        issued[f"redacted-{reply.redacted}"] = reply.redacted
        block({"type": "redacted_thinking", "data": reply.redacted}, [])
    if reply.thinking:
        signature = signature_for(reply.thinking)
        issued[signature] = reply.thinking
        pieces = [
            {"type": "thinking_delta", "thinking": reply.thinking[i : i + size]}
            for i in range(0, len(reply.thinking), size)
        ]
        block(
            {"type": "thinking", "thinking": "", "signature": ""},
            [*pieces, {"type": "signature_delta", "signature": signature}],
        )
    if reply.text:
        pieces = [
            {"type": "text_delta", "text": reply.text[i : i + size]} for i in range(0, len(reply.text), size)
        ]
        block({"type": "text", "text": ""}, pieces)
    for n, use in enumerate(reply.tool_uses):
        raw = json.dumps(use.input)
        pieces = [
            {"type": "input_json_delta", "partial_json": raw[i : i + size]} for i in range(0, len(raw), size)
        ]
        call_id = use.id or f"toolu_{number:02d}_{n}"
        block({"type": "tool_use", "id": call_id, "name": use.name, "input": {}}, pieces)
    stop = "tool_use" if reply.tool_uses else "end_turn"
    out.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {
                    "output_tokens": u.output_tokens,
                    "input_tokens": u.input_tokens,
                    "cache_read_input_tokens": u.cache_read_input_tokens,
                    "cache_creation_input_tokens": u.cache_creation_input_tokens,
                },
            },
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def _message(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "msg_scripted_title",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 3},
    }


class AnthropicServer:
    """Start with :meth:`start`; queue :class:`AReply` with :meth:`queue`; read :attr:`requests`."""

    model = MODEL

    def __init__(self) -> None:
        self._queue: list[AReply] = []
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.refusals: list[str] = []
        """Validation errors answered with HTTP 400, in order."""
        self.completions: list[dict[str, Any]] = []
        """Non-streaming requests (session titles), answered with :attr:`title`."""
        self.title = "Scripted title"
        self.issued: dict[str, str] = {}
        """Signatures (and redacted data) this server handed out → the thinking they sign."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/v1/messages"):
                    self._error(404, "not_found_error", f"Not found: {self.path}")
                    return
                if not body.get("stream"):
                    # one-shot calls (session titles) get a plain message
                    server.completions.append(body)
                    self._json(200, _message(server.title, body.get("model", "claude")))
                    return
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                problem = validate(body, server.issued)
                if problem is not None:
                    server.refusals.append(problem)
                    self._error(400, "invalid_request_error", problem)
                    return
                with server._lock:
                    reply = server._queue.pop(0) if server._queue else None
                if reply is None:
                    self._error(400, "invalid_request_error", "scripted anthropic server: no response queued")
                    return
                events = _events(reply, body.get("model", "claude"), server.issued, len(server.requests))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for name, data in events:
                        if reply.input_delay and data.get("delta", {}).get("type") == "input_json_delta":
                            time.sleep(reply.input_delay)
                        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
                self.close_connection = True

            def _error(self, status: int, kind: str, message: str) -> None:
                self._json(status, {"type": "error", "error": {"type": kind, "message": message}})

            def _json(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """No ``/v1``: litellm appends ``/v1/messages`` itself."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> AnthropicServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def queue(self, *replies: AReply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def pending(self) -> int:
        return len(self._queue)

    def clear(self) -> None:
        """Drop the replies still queued."""
        with self._lock:
            self._queue.clear()


def main() -> None:
    """Run standalone (for kernels and the CLI in a child process): replies as JSON lines on stdin."""
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = AnthropicServer().start()
    with open(args.port_file, "w") as fh:
        fh.write(str(server.port))
    for line in sys.stdin:
        spec = json.loads(line)
        uses = [AToolUse(**u) for u in spec.pop("tool_uses", [])]
        server.queue(AReply(tool_uses=uses, usage=AUsage(**spec.pop("usage", {})), **spec))


if __name__ == "__main__":
    main()
