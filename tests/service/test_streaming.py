"""`/ask/stream` over a real `kuzya serve` process: the answer arrives as server-sent
events while the model (a scripted server streaming the OpenAI way) writes it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kuzya.bench.serving import serving
from tests.llm.scripted_server import running, streamed
from tests.service.server import served_model

pytestmark = pytest.mark.slow


def _events(lines: Iterable[str]) -> list[tuple[str, Any]]:
    found, event = [], "message"
    for line in lines:
        if line.startswith("event:"):
            event = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            found.append((event, json.loads(line.removeprefix("data:"))))
    return found


def _ask(base: str, message: str) -> list[tuple[str, Any]]:
    body = {"message": message, "session_id": "s", "user_id": "ana"}
    with httpx.stream("POST", f"{base}/ask/stream", json=body, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return _events(response.iter_lines())


def test_the_answer_streams_then_the_whole_reply_follows(tmp_path: Path) -> None:
    with running() as model, serving(tmp_path / "s.db", env=served_model(model.base_url),
                                     log=tmp_path / "serve.log") as base:  # fmt: skip
        added = {"text": "My locker code is 4512", "user_id": "ana"}
        assert httpx.post(f"{base}/v1/memories", json=added).status_code == 201
        model.script(streamed("Your ", "locker code ", "is 4512."))
        events = _ask(base, "What's my locker code?")
        assert [data["text"] for kind, data in events if kind == "delta"] == [
            "Your ", "locker code ", "is 4512."
        ]  # fmt: skip
        kind, reply = events[-1]
        assert kind == "reply" and reply["reply"] == "Your locker code is 4512."
        assert any("4512" in m["text"] for m in reply["memories"])
        assert model.requests[0].body["stream"] is True

        model.script(streamed("Sor", "ry", broken=True))
        broken = _ask(base, "And my bike lock?")
        assert broken[0] == ("delta", {"text": "Sor"})
        assert broken[-1][0] == "error" and broken[-1][1]["status"] == 502

        bad = httpx.post(f"{base}/ask/stream", json={"message": "", "session_id": "s"})
        assert bad.status_code == 422 and bad.json()["error"]
        # the streamed turn was remembered like any other
        listed = httpx.get(f"{base}/v1/memories", params={"user_id": "ana"}).json()
        assert "Your locker code is 4512." in [m["text"] for m in listed]
