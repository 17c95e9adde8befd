"""One sleep at a time per namespace: a second one returns at once saying so, or waits;
a holder that crashed does not block the next (real store files and processes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.sleep.sleeper import LEASE
from kuzya.store.sqlite.store import SQLiteStore

SRC = Path(__file__).resolve().parents[1] / "src"

HOLDER = """
import sys, time
from kuzya.store.sqlite.store import SQLiteStore
store = SQLiteStore(sys.argv[1])
assert store.take_lease("default", "sleep", "other-process", 3600.0) is None
print("holding", flush=True)
time.sleep(600)
"""


def kuzya(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "kuzya", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip


def test_a_second_sleep_returns_at_once_and_a_crashed_holder_is_taken_over(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    path = tmp_path / "kuzya.db"
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        memory.remember("I live in Oslo", speaker="ana")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], env=env,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        busy = kuzya("sleep", "--db", path)
        assert busy.returncode == 0, busy.stdout + busy.stderr
        assert f"is running (pid {holder.pid} on" in busy.stdout and "nothing done" in busy.stdout
        with Memory.open(path, embedder=use_embedder, llm="none") as memory:
            skipped = memory.sleep()
            assert skipped.skipped and skipped.episodes == 0
            assert memory.facts(subject="ana", participants=["ana"]) == []
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    done = kuzya("sleep", "--db", path)  # the holder is gone: its lease is taken over
    assert done.returncode == 0 and '"episodes": 1' in done.stdout, done.stdout + done.stderr


def test_sleeps_in_two_threads_digest_each_message_once(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    path = tmp_path / "kuzya.db"
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        memory.remember_many(
            [{"text": f"Day {n}: I cooked {('ramen', 'pasta', 'borscht')[n % 3]} for Kate",
              "speaker": "ana"} for n in range(1200)]
        )  # fmt: skip
    reports = []

    def sleep(wait: bool) -> None:
        with Memory.open(path, embedder=use_embedder, llm="none") as memory:
            reports.append(memory.sleep(wait=wait))

    threads = [threading.Thread(target=sleep, args=(True,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    sleep(False)  # a third, while one of the two runs
    for thread in threads:
        thread.join()
    assert sum(r.episodes for r in reports) == 1200
    assert sum(1 for r in reports if r.skipped) == 1 and reports[0].skipped
    store = SQLiteStore(path, create=False)
    assert store.take_lease("default", LEASE, "after", 1.0) is None  # released
    store.close()


def test_a_lease_past_its_time_is_taken_over(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kuzya.db")
    assert store.take_lease("ns", LEASE, "first", 0.05) is None
    assert store.take_lease("ns", LEASE, "second", 60.0) is not None  # first still holds it
    assert store.take_lease("ns", LEASE, "first", 0.05) is None  # renewed by its holder
    time.sleep(0.1)
    assert store.take_lease("ns", LEASE, "second", 60.0) is None
    assert store.take_lease("other", LEASE, "third", 60.0) is None  # per namespace
    store.release_lease("ns", LEASE, "first")  # not the holder: nothing happens
    assert store.take_lease("ns", LEASE, "first", 60.0) is not None
    store.release_lease("ns", LEASE, "second")
    assert store.take_lease("ns", LEASE, "first", 60.0) is None
    store.close()
