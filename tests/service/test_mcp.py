"""`kuzya mcp` as MCP clients meet it: the official client lists and calls every tool,
over stdio (the client starts the server) and over Streamable HTTP on loopback."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kuzya.bench.serving import free_port

pytestmark = pytest.mark.slow

ENV = {"KUZYA_EMBEDDER": "use", "KUZYA_LLM": "none", "KUZYA_SLEEP_IDLE_SECONDS": "1"}


async def _calls(client: Client) -> dict[str, Any]:
    """Every tool, called as a client would, and what came back."""
    seen: dict[str, Any] = {}
    listed = await client.list_tools()
    seen["tools"] = sorted(tool.name for tool in listed.tools)

    async def call(name: str, **arguments: Any) -> Any:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, result
        content = result.structured_content or {}
        return content.get("result", content)

    await call("remember", text="I live in Lisbon and my dog is called Bruno", speaker="ana")
    await call("remember", text="Team lunch on Friday at noon", speaker="ana",
               participants=["ana", "ben"], conversation="team")  # fmt: skip
    seen["group"] = await call("recall", query="Where does Ana live?", participants=["ana", "ben"])
    seen["alone"] = await call("recall", query="Where does Ana live?", participants=["ana"])
    deadline = time.monotonic() + 60
    while not (profile := await call("profile", subject="ana"))["facts"]:
        assert time.monotonic() < deadline, "sleep never made the profile"
        await asyncio.sleep(0.5)
    seen["profile"] = profile
    seen["forgot"] = await call("forget", subject="ana", about="Lisbon")
    seen["after"] = await call("recall", query="Lisbon", participants=["ana"])
    bad = await client.call_tool("recall", {"query": "x", "participants": []})
    seen["bad"] = (bad.is_error, " ".join(getattr(c, "text", "") for c in bad.content))
    return seen


def _check(seen: dict[str, Any]) -> None:
    assert seen["tools"] == ["forget", "profile", "recall", "remember"]
    assert all("Lisbon" not in item["text"] for item in seen["group"])
    assert "Lisbon" in seen["alone"][0]["text"] and seen["alone"][0]["sources"]
    assert "Lisbon" in {f["value"] for f in seen["profile"]["facts"]}
    assert seen["forgot"]["messages"] >= 1
    assert all("Lisbon" not in item["text"] for item in seen["after"])
    assert seen["bad"][0] and "participants" in seen["bad"][1]


def test_every_tool_over_stdio(tmp_path: Path) -> None:
    command = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kuzya", "mcp", "--db", str(tmp_path / "m.db")],
        env={**ENV, "HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")},
    )

    async def session() -> dict[str, Any]:
        async with Client(command) as client:
            return await _calls(client)

    _check(asyncio.run(session()))


def test_every_tool_over_streamable_http(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "kuzya", "mcp", "--transport", "http", "--port", str(port),
               "--db", str(tmp_path / "h.db")]  # fmt: skip
    with open(tmp_path / "mcp.log", "wb") as log:
        process = subprocess.Popen(command, env={**os.environ, **ENV}, stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                    break
                except httpx.TransportError:
                    assert process.poll() is None and time.monotonic() < deadline
                    time.sleep(0.3)

            async def session() -> dict[str, Any]:
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    return await _calls(client)

            _check(asyncio.run(session()))
        finally:
            process.terminate()
            process.wait(timeout=30)


def test_http_past_loopback_is_refused(tmp_path: Path) -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "kuzya", "mcp", "--transport", "http", "--host", "0.0.0.0",
         "--db", str(tmp_path / "r.db")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2 and "loopback only" in refused.stdout
