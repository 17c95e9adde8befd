"""Consolidation as a queue on one PostgreSQL database: API processes ask for sleeps,
`kuzya worker` processes run them; a worker killed mid-job leaves it to another, which
completes it once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from kuzya.bench.serving import serving, stop
from kuzya.memory import Memory
from kuzya.sleep.queue import QUEUE, TASK, ensure_schema, queue_app
from kuzya.store.postgres.embedded import EmbeddedServer
from kuzya.testing import HashEmbedder

pytestmark = pytest.mark.slow


@contextmanager
def working(url: str, log: Path, *, embedder: str = "use") -> Iterator[subprocess.Popen[bytes]]:
    """`kuzya worker` on the database until the block ends (stopped with SIGINT)."""
    command = [sys.executable, "-m", "kuzya", "worker", "--db", url, "--heartbeat", "1"]
    environment = {**os.environ, "KUZYA_EMBEDDER": embedder, "KUZYA_LLM": "none"}
    with open(log, "wb") as output:
        process = subprocess.Popen(command, env=environment, stdout=output, stderr=output)
        try:
            yield process
        finally:
            stop(process)


def _until(check: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.25)
    return found


def _jobs(url: str, namespace: str) -> list[tuple[int, str]]:
    with psycopg.connect(url) as db:
        return db.execute(
            "SELECT id, status::text FROM procrastinate_jobs WHERE task_name = %s "
            "AND args->>'namespace' = %s ORDER BY id",
            (TASK, namespace),
        ).fetchall()


def test_two_api_processes_and_a_worker_share_one_database(
    postgres_server: EmbeddedServer, tmp_path: Path
) -> None:
    url = postgres_server.database("queue_shared")
    quick = {"KUZYA_SLEEP_IDLE_SECONDS": "1"}
    with (
        serving(url, env=quick, log=tmp_path / "api1.log") as first,
        serving(url, env=quick, log=tmp_path / "api2.log") as second,
        working(url, tmp_path / "worker.log"),
    ):
        said = {"message": "I live in Lisbon and I work as a nurse", "session_id": "phone",
                "user_id": "ana"}  # fmt: skip
        assert httpx.post(f"{first}/ask", json=said, timeout=60).status_code == 200

        def stored() -> bool:  # a turn is written just after its reply is sent
            listed = httpx.get(f"{second}/v1/memories", params={"user_id": "ana"}).json()
            return any("Lisbon" in m["text"] for m in listed)

        _until(stored, 10, "the other API process to see the turn")
        asked = {"message": "Where do I live?", "session_id": "laptop", "user_id": "ana"}
        reply = httpx.post(f"{second}/ask", json=asked, timeout=60).json()
        assert "Lisbon" in reply["reply"], reply
        stranger = httpx.post(f"{second}/ask", json={**asked, "user_id": "ben"}, timeout=60)
        assert "Lisbon" not in stranger.json()["reply"]

        def profiled() -> bool:
            found = httpx.get(f"{first}/v1/profile/ana", params={"user_id": "ana"}).json()
            return "Lisbon" in {f["value"] for f in found["facts"]}

        _until(profiled, 90, "the worker to consolidate what the API processes took")

        def done() -> bool:  # marked so once the whole sleep (facts, diary, ...) has run
            return "succeeded" in [status for _, status in _jobs(url, "default")]

        _until(done, 60, "the sleep job to be marked done")


def test_a_job_killed_mid_way_is_retried_and_completes_once(
    postgres_server: EmbeddedServer, tmp_path: Path
) -> None:
    url = postgres_server.database("queue_killed")
    rng = random.Random(5)
    lines = ["I live in {c} now", "My sister {n} works as a nurse", "I'm allergic to {f}",
             "We moved to {c} last year", "I work at {c} Bank as an engineer"]  # fmt: skip
    start = datetime(2026, 1, 5, tzinfo=UTC)
    with Memory.open(url, namespace="big", embedder=HashEmbedder(), llm="none") as memory:
        memory.remember_many(
            {"text": rng.choice(lines).format(c=rng.choice(["Lisbon", "Oslo", "Kyoto"]),
                                              n=rng.choice(["Olga", "Tom"]),
                                              f=rng.choice(["peanuts", "cats"])),
             "speaker": f"u{i % 40}", "time": start + timedelta(minutes=i)}
            for i in range(3000)
        )  # fmt: skip
    app = queue_app(url)
    with app.open():
        ensure_schema(app, url)
        app.configure_task(TASK, queue=QUEUE, lock="sleep:big").defer(namespace="big")
    with working(url, tmp_path / "killed.log", embedder="hash") as doomed:
        _until(lambda: _jobs(url, "big")[-1][1] == "doing", 120, "the first worker to start")
        time.sleep(1.5)  # well into the job (a clean sleep of these takes ~8 s)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
    assert _jobs(url, "big")[-1][1] == "doing"  # stalled: its worker is gone
    time.sleep(3.5)  # past three missed heartbeats
    with working(url, tmp_path / "second.log", embedder="hash"):
        _until(lambda: _jobs(url, "big")[-1][1] == "succeeded", 180, "the retried job")
    assert [status for _, status in _jobs(url, "big")] == ["succeeded"]  # one job, done once
    with Memory.open(url, namespace="big", embedder=HashEmbedder(), llm="none") as memory:
        assert memory.store.job_position("big", "digest") == 3000
        facts = memory.facts(include_past=True)
        assert facts and len(
            {(f.subject, f.attribute, f.value, f.valid_from) for f in facts}
        ) == len(facts)
        assert memory.sleep().episodes == 0  # nothing was left to consolidate
