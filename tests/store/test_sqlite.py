"""SQLite-adapter specifics that the port contract cannot express."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime

import numpy as np
import pytest

from kuzya.model import Message
from kuzya.store.base import NewEpisode
from kuzya.store.sqlite.store import SQLiteStore


def test_file_is_in_wal_mode_and_bound_to_its_embedder(tmp_path):
    store = SQLiteStore(tmp_path / "w.db")
    store.bind_embedder("hash", 8)
    store.close()
    db = sqlite3.connect(tmp_path / "w.db")
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert dict(db.execute("SELECT key, value FROM meta")) == {"embedder": "hash", "dim": "8"}
    finally:
        db.close()


def test_its_size_counts_the_pages_still_in_the_write_ahead_log(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    store.bind_embedder("hash", 8)
    store.add_episodes("ns", _batch(500, distinct_audiences=False))
    wal = tmp_path / "s.db-wal"
    on_disk = (tmp_path / "s.db").stat().st_size + wal.stat().st_size
    try:
        assert wal.stat().st_size > 0  # not checkpointed yet
        assert store.stats("ns")["bytes"] == on_disk
    finally:
        store.close()


def _batch(count: int, distinct_audiences: bool) -> list[NewEpisode]:
    vector = np.ones(8, dtype=np.float32) / np.sqrt(8)
    now = datetime(2024, 1, 1, tzinfo=UTC)
    return [
        NewEpisode(
            Message(
                "hello world",
                "alice",
                f"c{i}",
                ("alice", f"user{i}" if distinct_audiences else "bob"),
                now,
            ),
            vector,
            "hello world",
        )
        for i in range(count)
    ]


def _add_and_read_back(tmp_path, name: str, distinct: bool, count: int) -> float:
    store = SQLiteStore(tmp_path / name, durable=False)
    store.bind_embedder("hash", 8)
    started = time.perf_counter()
    store.add_episodes("ns", _batch(count, distinct))
    store.close()
    reopened = SQLiteStore(tmp_path / name, durable=False)  # cold caches
    reopened.bind_embedder("hash", 8)
    assert len(reopened.list_episodes("ns", limit=count)) == count
    reopened.close()
    return time.perf_counter() - started


@pytest.mark.slow
def test_many_distinct_audiences_do_not_make_reads_quadratic(tmp_path):
    """A bot with thousands of one-to-one chats has thousands of audiences; reading an
    episode looks up its audience's members, which must use an index (not scan every
    membership row), so the cost stays close to that of a single shared audience."""
    count = 6000
    shared = _add_and_read_back(tmp_path, "shared.db", False, count)
    distinct = _add_and_read_back(tmp_path, "distinct.db", True, count)
    assert distinct < 4 * shared + 0.5, (shared, distinct)


def test_a_new_audience_written_by_another_connection_is_seen(tmp_path, hash_embedder):
    from tests.store.test_contract import NS, add, ids_of

    reader, writer = SQLiteStore(tmp_path / "two.db"), SQLiteStore(tmp_path / "two.db")
    for store in (reader, writer):
        store.bind_embedder(hash_embedder.name, hash_embedder.dim)
    first = add(writer, hash_embedder, "just me", participants=["ana"])
    assert ids_of(reader.recent_search(reader.scope(NS, ["ana"]), 10)) == [
        first[0].id
    ]  # kept for later
    group = add(writer, hash_embedder, "the three of us", participants=["ana", "bo", "cy"])
    assert sorted(ids_of(reader.recent_search(reader.scope(NS, ["ana"]), 10))) == [
        first[0].id,
        group[0].id,
    ]
    assert ids_of(reader.recent_search(reader.scope(NS, ["bo"]), 10)) == [group[0].id]
    reader.close()
    writer.close()
