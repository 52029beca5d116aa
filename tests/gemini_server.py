"""A scripted Gemini ``streamGenerateContent`` endpoint on 127.0.0.1.

litellm's own ``gemini/`` provider reaches it with ``api_base`` set to :attr:`base_url`.
Replies stream as Gemini's SSE chunks; a function call carries the ``thoughtSignature``
Gemini 3 issues, and every request body is recorded so a test can check which signature
came back with the call in the history (Gemini 3 refuses a function call without its own).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "gemini/gemini-3-pro-preview"


@dataclass
class GReply:
    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(name, args) of each function call, each signed by :func:`signature_for`."""


def signature_for(name: str, args: dict[str, Any]) -> str:
    return "gsig-" + hashlib.sha256(f"{name}{json.dumps(args, sort_keys=True)}".encode()).hexdigest()[:20]


def _chunks(reply: GReply, model: str) -> list[dict[str, Any]]:
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    for name, args in reply.calls:
        signed = {"functionCall": {"name": name, "args": args}, "thoughtSignature": signature_for(name, args)}
        parts.append(signed)
    return [
        {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": usage,
            "modelVersion": model,
        }
    ]


class GeminiServer:
    """Start with :meth:`start`; queue replies with :meth:`queue`; read :attr:`requests`."""

    def __init__(self) -> None:
        self._queue: list[GReply] = []
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "body": body})
                with server._lock:
                    reply = server._queue.pop(0) if server._queue else None
                if reply is None or "streamGenerateContent" not in self.path:
                    problem = {"code": 400, "message": "scripted gemini: nothing queued"}
                    payload = json.dumps({"error": problem})
                    self.send_response(400)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload.encode())
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in _chunks(reply, MODEL.split("/", 1)[1]):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> GeminiServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def queue(self, *replies: GReply) -> None:
        with self._lock:
            self._queue.extend(replies)
