"""Crash safety and multi-process use of one SQLite store file (child processes)."""

from __future__ import annotations

import inspect
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kuzya import Memory
from kuzya.language.text import terms
from kuzya.testing import HashEmbedder

pytestmark = pytest.mark.slow


def text_for(tag: str, i: int) -> str:
    return f"{tag} message {i}: tok{tag}{i}alpha tok{tag}{i}beta tok{tag}{i}gamma topic {i % 17}"


TEXT_FOR = inspect.getsource(text_for)  # the children build texts with the same function

CRASH_WRITER = (
    TEXT_FOR
    + """
import sys
from kuzya.memory import Memory
from kuzya.testing import HashEmbedder

memory = Memory.open(sys.argv[1], namespace="crash", embedder=HashEmbedder())
i = int(sys.argv[2])
print("ready", flush=True)
while True:
    episode = memory.remember(text_for("crash", i), speaker="writer", conversation=f"c{i // 50}")
    print(episode.id, i, flush=True)
    i += 1
"""
)

CONCURRENT_WRITER = (
    TEXT_FOR
    + """
import sys
from kuzya.memory import Memory
from kuzya.testing import HashEmbedder

path, tag = sys.argv[1], sys.argv[2]
memory = Memory.open(path, namespace="shared", embedder=HashEmbedder())
print("ready", flush=True)
sys.stdin.readline()  # wait for "go" so that both writers overlap
speaker = f"writer-{tag}"
for i in range(150):
    episode = memory.remember(text_for(tag, i), speaker=speaker, conversation=f"{tag}-single",
                              participants=["team"])
    print("ack", episode.id, i, flush=True)
for start in range(150, 300, 25):
    stored = memory.remember_many(
        {"text": text_for(tag, i), "speaker": speaker, "conversation": f"{tag}-bulk",
         "participants": ["team"]}
        for i in range(start, start + 25)
    )
    for offset, episode in enumerate(stored):
        print("ack", episode.id, start + offset, flush=True)
memory.close()
print("done", flush=True)
"""
)


def spawn(script: str, guard: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", guard + script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def reader_thread(
    proc: subprocess.Popen[str], lines: queue.Queue[tuple[str, str | None]], tag: str
) -> threading.Thread:
    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put((tag, line.strip()))
        lines.put((tag, None))

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def integrity(path: Path) -> None:
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('integrity-check')")
    finally:
        db.close()


# -- kill -9 -----------------------------------------------------------------------------------


def crash_round(path: Path, guard: str, start: int, acks: int) -> dict[int, int]:
    """Run a writer from message `start`, SIGKILL it after `acks` acknowledgements."""
    proc = spawn(CRASH_WRITER, guard, str(path), str(start))
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    acked: dict[int, int] = {}
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        while len(acked) < acks:
            line = proc.stdout.readline()
            assert line, f"writer died early: {proc.stderr.read() if proc.stderr else ''}"
            episode_id, i = map(int, line.split())
            acked[episode_id] = i
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return acked


def test_kill_9_during_a_long_import_loses_no_acknowledged_message(tmp_path, child_network_guard):
    path = tmp_path / "crash.db"
    embedder = HashEmbedder()
    acked: dict[int, int] = {}
    start = 0
    # a long-lived reader that follows the change log across both crashes
    watcher = Memory.open(path, namespace="crash", embedder=embedder)
    for _ in range(2):  # crash, recover, write on, crash again
        acked.update(crash_round(path, child_network_guard, start, 300))
        integrity(path)
        with Memory.open(path, namespace="crash", embedder=embedder) as memory:
            start = memory.stats()["episodes"]

    integrity(path)
    with Memory.open(path, namespace="crash", embedder=embedder) as memory:
        rows = memory.get_all(limit=100_000)
        assert len(rows) == memory.stats()["episodes"] >= 600
        # every acknowledged message is there, with its own text
        by_id = {e.id: e for e in rows}
        for episode_id, i in acked.items():
            assert by_id[episode_id].text == text_for("crash", i)
        # what was committed is exactly a prefix of the sequence, nothing torn or doubled
        numbers = sorted(int(e.text.split()[2].rstrip(":")) for e in rows)
        assert numbers == list(range(len(rows)))
        assert all(e.text == text_for("crash", int(e.text.split()[2].rstrip(":"))) for e in rows)
        # positions inside each conversation are 0..n-1 without gaps
        for conversation in {e.conversation for e in rows}:
            positions = [e.position for e in rows if e.conversation == conversation]
            assert sorted(positions) == list(range(len(positions)))

        # the vector index agrees with the tables
        store, ns = memory.store, memory.namespace
        probe = embedder.embed(["anything"])[0]
        assert len(store.dense_search(store.scope(ns, ["writer"]), probe, 1_000_000)) == len(rows)
        assert len(store.vector_of(ns, [e.id for e in rows])) == len(rows)
        for episode_id, i in acked.items():
            text = text_for("crash", i)
            assert (
                store.dense_search(store.scope(ns, ["writer"]), embedder.embed([text])[0], 1)[0][0]
                == episode_id
            )
            assert (
                store.text_search(store.scope(ns, ["writer"]), terms(f"tokcrash{i}alpha"), 5)[0][0]
                == episode_id
            )

        # the reader that stayed open caught up with everything through the change log
        try:
            assert len(
                watcher.store.dense_search(watcher.store.scope(ns, ["writer"]), probe, 1_000_000)
            ) == len(rows)
            [(first, _)] = watcher.store.dense_search(
                watcher.store.scope(ns, ["writer"]), embedder.embed([rows[-1].text])[0], 1
            )
            assert first == rows[-1].id
        finally:
            watcher.close()

        # and the store takes new writes after the crashes
        later = memory.remember("after the crashes", speaker="writer")
        assert later.id > max(by_id)


# -- two writers and a reader ----------------------------------------------------------------------


def test_two_processes_write_one_store_while_a_third_reads(tmp_path, child_network_guard):
    path = tmp_path / "shared.db"
    embedder = HashEmbedder()
    # The reader creates the file (concurrent creation is covered by its own test below).
    reader = Memory.open(path, namespace="shared", embedder=embedder)
    assert reader.recall("anything at all", participants=["team"]).items == ()
    writers = {
        tag: spawn(CONCURRENT_WRITER, child_network_guard, str(path), tag) for tag in ("a", "b")
    }
    lines: queue.Queue[tuple[str, str | None]] = queue.Queue()
    try:
        for proc in writers.values():
            assert proc.stdout is not None
            ready = proc.stdout.readline().strip()
            assert ready == "ready", proc.stderr.read() if proc.stderr else ""
        for tag, proc in writers.items():
            reader_thread(proc, lines, tag)
        for proc in writers.values():
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()

        acked: dict[str, dict[int, int]] = {"a": {}, "b": {}}
        finished: set[str] = set()
        checked_live = 0
        deadline = time.monotonic() + 120
        while len(finished) < 2:
            tag, line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None or line == "done":
                finished.add(tag)
                continue
            kind, episode_id, i = line.split()
            assert kind == "ack"
            acked[tag][int(episode_id)] = int(i)
            if int(i) % 40 == 7:
                # the reader sees the other process's new message on its next recall
                text = text_for(tag, int(i))
                top = reader.recall(text, participants=["team"], budget_words=None, limit=3)
                assert top.items[0].id == int(episode_id)
                assert reader.store.dense_search(
                    reader.store.scope(reader.namespace, ["team"]), embedder.embed([text])[0], 1
                )[0][0] == int(episode_id)
                checked_live += 1
        for proc in writers.values():
            assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
            errors = proc.stderr.read() if proc.stderr else ""
            assert "Traceback" not in errors, errors
        assert checked_live >= 10
    finally:
        reader.close()
        for proc in writers.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    assert {len(acked["a"]), len(acked["b"])} == {300}
    all_ids = [*acked["a"], *acked["b"]]
    assert len(set(all_ids)) == 600

    integrity(path)
    with Memory.open(path, namespace="shared", embedder=embedder) as third:
        rows = third.get_all(limit=10_000)
        assert len(rows) == 600 == third.stats()["episodes"]
        assert {e.id for e in rows} == set(all_ids)
        expected = {text_for(tag, i) for tag in "ab" for i in range(300)}
        assert {e.text for e in rows} == expected
        for tag in "ab":
            for conversation, count in ((f"{tag}-single", 150), (f"{tag}-bulk", 150)):
                mine = third.get_all(conversation=conversation, limit=1000)
                assert sorted(e.position for e in mine) == list(range(count))
                assert {e.speaker for e in mine} == {f"writer-{tag}"}
        store, ns = third.store, third.namespace
        assert (
            len(store.dense_search(store.scope(ns, ["team"]), embedder.embed(["x"])[0], 10_000))
            == 600
        )
        for tag in "ab":
            for episode_id, i in acked[tag].items():
                text = text_for(tag, i)
                assert (
                    store.text_search(store.scope(ns, ["team"]), terms(f"tok{tag}{i}beta"), 3)[0][0]
                    == episode_id
                )
                assert (
                    store.dense_search(store.scope(ns, ["team"]), embedder.embed([text])[0], 1)[0][
                        0
                    ]
                    == episode_id
                )
        sample = text_for("b", 123)
        assert third.recall(sample, participants=["team"]).items[0].text == sample
        only_a = third.recall(sample, participants=["writer-a"])
        assert len(only_a) > 0 and {item.speaker for item in only_a} == {"writer-a"}


OPENER = """
import sys
from kuzya.store.sqlite.store import SQLiteStore

for line in sys.stdin:  # one fresh path per round, sent to every opener at once
    try:
        store = SQLiteStore(line.strip())
        store.bind_embedder("hash", 8)
        store.close()
        print("ok", flush=True)
    except Exception as exc:
        print("error", type(exc).__name__, exc, flush=True)
"""


def test_processes_creating_a_new_store_at_the_same_moment_all_succeed(
    tmp_path, child_network_guard
):
    """Several workers of a deployment start together on a store file that does not
    exist yet: each open must wait for the others (WAL switch, migrations), not fail
    with 'database is locked'."""
    openers = [spawn(OPENER, child_network_guard) for _ in range(4)]
    failures: list[str] = []
    try:
        for round_ in range(30):
            path = tmp_path / f"fresh-{round_}.db"
            for proc in openers:
                assert proc.stdin is not None
                proc.stdin.write(f"{path}\n")
                proc.stdin.flush()
            for proc in openers:
                assert proc.stdout is not None
                answer = proc.stdout.readline().strip()
                if answer != "ok":
                    failures.append(f"{path.name}: {answer}")
    finally:
        for proc in openers:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert failures == []
