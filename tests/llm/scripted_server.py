"""A real HTTP server on loopback that plays an OpenAI-compatible endpoint from a script
(for the client's error paths, and the assistant's tool loop against a server)."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: a status and a JSON body (or raw bytes), after a delay."""

    body: Any = None
    status: int = 200
    raw: bytes | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.replies: deque[Reply] = deque()
        self.requests: list[Seen] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with self.server.lock:
            body = json.loads(raw) if raw else None
            self.server.requests.append(Seen(self.path, dict(self.headers), body))
            reply = self.server.replies.popleft() if self.server.replies else None
        if reply is None:
            reply = Reply({"error": {"message": "no scripted reply left"}}, status=500)
        if reply.delay:
            self.server.stopping.wait(reply.delay)
        payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass  # the client gave up (timeout) and closed the connection

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def running() -> Iterator[FakeServer]:
    """A scripted server on a free loopback port until the block ends."""
    fake = FakeServer()
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        yield fake
    finally:
        fake.stopping.set()
        fake.shutdown()
        fake.server_close()
        thread.join(timeout=5)


def ok(
    text: str | None = "hello",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, int] | None = None,
    finish: str | None = "stop",
    **reply: Any,
) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {"id": "x", "choices": [{"index": 0, "message": message}]}
    body["choices"][0]["finish_reason"] = finish
    body["usage"] = {"prompt_tokens": 10, "completion_tokens": 3} if usage is None else usage
    return Reply(body, **reply)


def wire_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def streamed(*pieces: str, finish: str = "stop", broken: bool = False) -> Reply:
    """An answer as server-sent events, one piece per event, usage in the last; `broken`:
    the stream turns to garbage after the first piece."""
    events = [
        {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
        for piece in pieces
    ]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    events.append({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": len(pieces)}})
    lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
    if broken:
        lines = [lines[0], "data: {not json\n\n"]
    return Reply(raw="".join(lines).encode(), headers={"X-Stream": "sse"})
