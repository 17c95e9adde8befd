"""Tool calling end to end: `kuzya serve --tools` over a model served the OpenAI way on
loopback. A scripted server plays the model for the error paths (bad arguments, an
unknown tool, a server failing mid-loop, the step limit); llama.cpp's own server with
Qwen2.5 1.5B shows a real model calling the memory tools."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kuzya.bench.serving import free_port, serving
from tests.llm.scripted_server import FakeServer, Reply, ok, running, wire_call
from tests.service.server import served_model

pytestmark = pytest.mark.slow


def _tool_turns(server: FakeServer, request: int) -> list[str]:
    messages = server.requests[request].body["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


def test_bad_calls_are_told_to_the_model_and_the_loop_ends_in_an_answer(tmp_path: Path) -> None:
    with running() as model, serving(tmp_path / "t.db", "--tools", env=served_model(model.base_url),
                                     log=tmp_path / "serve.log") as base:  # fmt: skip
        client = httpx.Client(base_url=base, timeout=60)
        added = {"text": "My locker code is 4512", "user_id": "ana"}
        assert client.post("/v1/memories", json=added).status_code == 201
        model.script(
            ok(None, finish="tool_calls", tool_calls=[
                wire_call("a", "search_memory", '{"q": "locker"}'),
                wire_call("b", "send_email", '{"to": "boss@example.com"}'),
            ]),
            ok(None, finish="tool_calls", tool_calls=[
                wire_call("c", "search_memory", '{"limit": 2, "query": "locker code"}'),
            ]),
            ok("Your locker code is 4512."),
        )  # fmt: skip
        asked = {"message": "What's my locker code?", "session_id": "s1", "user_id": "ana"}
        reply = client.post("/ask", json=asked)
        assert reply.status_code == 200, reply.text
        assert reply.json()["reply"] == "Your locker code is 4512."
        assert [c["name"] for c in reply.json()["tool_calls"]] == [
            "search_memory", "send_email", "search_memory"
        ]  # fmt: skip
        bad, unknown = _tool_turns(model, 1)
        assert bad.startswith("error: bad arguments for search_memory") and "query" in bad
        assert unknown.startswith("error: there is no tool 'send_email'")
        assert "4512" in _tool_turns(model, 2)[-1]
        assert "tools" not in model.requests[2].body  # the last step must answer

        # the step limit: a model that keeps calling tools is made to answer
        looping = ok(None, finish="tool_calls",
                     tool_calls=[wire_call("d", "search_memory", '{"query": "keys"}')])  # fmt: skip
        model.script(looping, looping, ok("I could not find your keys."))
        stuck = client.post("/ask", json={**asked, "message": "Where are my keys?"}).json()
        assert stuck["reply"] == "I could not find your keys." and len(stuck["tool_calls"]) == 2

        # the model's server fails mid-loop (every retry too): a 502 that says why
        model.script(looping, *[Reply({"error": {"message": "model crashed"}}, status=500)] * 4)
        failed = client.post("/ask", json={**asked, "message": "And my bike lock?"})
        assert failed.status_code == 502 and "model crashed" in failed.json()["error"]
        # and the service goes on
        model.script(ok("Hello!"))
        assert client.post("/ask", json={**asked, "message": "hi"}).json()["reply"] == "Hello!"


@pytest.fixture(scope="module")
def qwen_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server with Qwen2.5-Coder 1.5B and its tool calling."""
    from kuzya.llm.models import model_path

    try:
        path = model_path("qwen-1.5b")
    except Exception as exc:  # the parts are not installed
        pytest.fail(f"Qwen is not installed (make install-dev installs it): {exc}")
    port = free_port()
    log = tmp_path_factory.mktemp("qwen") / "llama-server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host", "127.0.0.1",
        "--port", str(port), "--chat_format", "chatml-function-calling", "--n_ctx", "4096",
        "--n_threads", "2",
    ]  # fmt: skip
    with open(log, "wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=output)
        base = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + 180
            while not _up(base):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"llama.cpp's server did not start: {log.read_text()[-2000:]}"
                    )
                time.sleep(0.5)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=30)


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/models", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.qwen
def test_a_real_model_calls_a_memory_tool(qwen_server: str, tmp_path: Path) -> None:
    with serving(tmp_path / "q.db", "--tools", env=served_model(qwen_server, steps=3),
                 log=tmp_path / "serve.log") as base:  # fmt: skip
        client = httpx.Client(base_url=base, timeout=600)
        asked = {"message": "Use the add_memory tool to save this note: the wifi password "
                 "is tulip42", "session_id": "s", "user_id": "ana"}  # fmt: skip
        reply = client.post("/ask", json=asked)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        notes = [c for c in body["tool_calls"] if c["name"] == "add_memory"]
        assert notes and "tulip42" in notes[0]["arguments"]["text"], body
        # the note the tool stored is a memory of ana's, found by a search
        found = client.post("/v1/memories/search", json={"query": "wifi password",
                                                          "user_id": "ana"}).json()  # fmt: skip
        assert notes[0]["arguments"]["text"].strip() in [m["text"] for m in found]
