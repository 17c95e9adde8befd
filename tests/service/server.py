"""A real `kuzya serve` process on a loopback port, for tests that go over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(
    db: str | Path, *options: str, env: dict[str, str] | None = None, log: Path | None = None
) -> Iterator[str]:
    """`kuzya serve` on the store `db` until the block ends (then stopped as a user
    stops it, with SIGINT, so its last turns are written); yields its base URL."""
    port = free_port()
    command: Sequence[str] = [
        sys.executable, "-m", "kuzya", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--db", str(db), *options,
    ]  # fmt: skip
    environment = {**os.environ, "KUZYA_EMBEDDER": "use", "KUZYA_LLM": "none", **(env or {})}
    output = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(command, env=environment, stdout=output, stderr=output)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"kuzya serve exited with {process.returncode}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("kuzya serve did not answer /health in 120 s")
            time.sleep(0.2)
        yield base
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if log:
            output.close()  # type: ignore[union-attr]


def served_model(base_url: str, steps: int = 3) -> dict[str, str]:
    """The variables that point `kuzya serve` at a model served the OpenAI way (sleep
    keeps to its rules, so it never takes the model's scripted answers)."""
    return {
        "KUZYA_LLM": "openai", "KUZYA_LLM_MODEL": "served", "KUZYA_LLM_BASE_URL": base_url,
        "KUZYA_SLEEP_LLM": "none", "KUZYA_MAX_TOOL_STEPS": str(steps),
    }  # fmt: skip
