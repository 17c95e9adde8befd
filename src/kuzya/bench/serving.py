"""A real `kuzya serve` process on a loopback port (for the service benchmark and the
tests that go over HTTP)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
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
    command = [
        sys.executable, "-m", "kuzya", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--db", str(db), *options,
    ]  # fmt: skip
    environment = {**os.environ, "KUZYA_EMBEDDER": "use", "KUZYA_LLM": "none", **(env or {})}
    with open(log or os.devnull, "wb") as output:
        process = subprocess.Popen(command, env=environment, stdout=output, stderr=output)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(process, base)
            yield base
        finally:
            stop(process)


def stop(process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Stop a Kuzya process as a user does (SIGINT: it finishes what it holds), killing
    it only if it has not stopped within `seconds`."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_up(process: subprocess.Popen[bytes], base: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"kuzya serve exited with {process.returncode}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"kuzya serve did not answer /health in {seconds:g} s")
        time.sleep(0.2)
