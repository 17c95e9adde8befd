"""Forgotten text leaves every file of the store (db, -wal, -shm) when the call returns.

The files are read byte by byte right after the call: the words as written, lower-cased,
their index terms, and the tails of those terms (the full-text index stores a term after
the prefix it shares with the term before it).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from kuzya import Memory
from kuzya.embed import Embedder
from kuzya.errors import StoreError
from kuzya.language.text import terms
from kuzya.model import Message
from kuzya.store.base import NewEpisode
from kuzya.store.sqlite.store import SQLiteStore
from kuzya.testing import HashEmbedder

SECRET_EN = "Zanzibarquux"
SECRET_RU = "Ъвмурзиквакс"
KEPT_EN = "Mombasaflorin"
KEPT_RU = "Щелкунчиковна"


def store_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())


def traces(word: str) -> set[bytes]:
    found = {word, word.lower()}
    for term in terms(word):
        found.add(term)
        if len(term) >= 8:
            found.add(term[2:])
    return {text.encode() for text in found}


def left_in_files(path: Path, words: Sequence[str]) -> list[bytes]:
    raw = store_bytes(path)
    return sorted(trace for word in words for trace in traces(word) if trace in raw)


def index_answers(path: Path, word: str) -> bool:
    """Whether the full-text index still knows any term of the word (a fresh connection)."""
    db = sqlite3.connect(path)
    try:
        for term in terms(word):
            match = f'terms : "{term}"'
            if (
                db.execute(
                    "SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ?", (match,)
                ).fetchall()
                or db.execute("SELECT 1 FROM episodes_fts_vocab WHERE term = ?", (term,)).fetchall()
            ):
                return True
        return False
    finally:
        db.close()


def fill(memory: Memory, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        memory.remember(f"ordinary note number {i} about lemons", speaker="ana")


@pytest.fixture
def hash_store(tmp_path: Path) -> Iterator[Memory]:
    with Memory.open(tmp_path / "p.db", namespace="test", embedder=HashEmbedder()) as opened:
        yield opened


@pytest.fixture
def reader_open(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A second connection to the file, in a read transaction on the current snapshot."""
    reader = sqlite3.connect(tmp_path / "p.db", isolation_level=None, check_same_thread=False)
    yield reader
    reader.close()


def start_reading(reader: sqlite3.Connection) -> None:
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM episodes").fetchone()


def test_delete_leaves_no_trace_in_any_file(tmp_path: Path, use_embedder: Embedder) -> None:
    path = tmp_path / "k.db"
    with Memory.open(path, namespace="test", embedder=use_embedder) as memory:
        old = memory.remember(f"my locker code is {SECRET_EN}", speaker="ana")
        kept = memory.remember(f"my cat is called {KEPT_EN}", speaker="ana")
        fill(memory, 20)
        memory.compact()  # the old secret now sits in one merged index segment
        new = memory.remember(f"мой пароль от почты {SECRET_RU}", speaker="ana")
        memory.remember(f"мою собаку зовут {KEPT_RU}", speaker="ana")
        fill(memory, 10, start=20)
        memory.delete(old.id)
        memory.delete(new.id)
        assert left_in_files(path, [SECRET_EN, SECRET_RU]) == []
        assert not index_answers(path, SECRET_EN) and not index_answers(path, SECRET_RU)
        for word in (KEPT_EN, KEPT_RU):
            raw = store_bytes(path)
            assert word.encode() in raw and all(t.encode() in raw for t in terms(word))
            assert index_answers(path, word)
            top = memory.recall(word, participants=["ana"]).items[0]
            assert word in top.text
        assert memory.recall(KEPT_EN, participants=["ana"]).items[0].id == kept.id
        assert [e.event for e in memory.history(old.id)] == ["ADD", "DELETE"]


def test_update_keeps_the_old_text_in_history_and_redaction_erases_it(
    hash_store: Memory, tmp_path: Path
) -> None:
    path = tmp_path / "p.db"
    episode = hash_store.remember(f"my locker code is {SECRET_EN}", speaker="ana")
    fill(hash_store, 10)
    hash_store.update(episode.id, f"my locker code is {SECRET_RU}")
    hash_store.store.purge()
    assert left_in_files(path, [SECRET_EN])  # by design
    assert hash_store.history(episode.id)[-1].old_text == f"my locker code is {SECRET_EN}"
    assert not index_answers(path, SECRET_EN) and index_answers(path, SECRET_RU)

    text = "my locker code is [forgotten]"
    message = Message(text, "ana", episode.conversation, ("ana",), episode.said_at)
    vector = hash_store.embedder.embed([text])[0]
    new = NewEpisode(message, vector, " ".join(terms(text)))
    hash_store.store.redact_episode("test", episode.id, new, None)
    hash_store.store.purge()
    assert left_in_files(path, [SECRET_EN, SECRET_RU]) == []
    assert hash_store.get(episode.id).text == text


def test_purge_waits_for_a_reader_of_an_older_snapshot(
    hash_store: Memory, reader_open: sqlite3.Connection, tmp_path: Path
) -> None:
    secret = hash_store.remember(f"my locker code is {SECRET_EN}", speaker="ana")
    fill(hash_store, 10)
    start_reading(reader_open)  # its snapshot still holds the secret
    threading.Timer(0.5, lambda: reader_open.execute("COMMIT")).start()
    started = time.monotonic()
    hash_store.delete(secret.id)
    assert time.monotonic() - started >= 0.4
    assert left_in_files(tmp_path / "p.db", [SECRET_EN]) == []


def test_a_reader_past_the_timeout_is_a_store_error_until_it_finishes(
    tmp_path: Path, reader_open: sqlite3.Connection
) -> None:
    path = tmp_path / "p.db"
    with Memory(SQLiteStore(path, timeout=0.2), HashEmbedder(), namespace="test") as memory:
        secret = memory.remember(f"my locker code is {SECRET_EN}", speaker="ana")
        fill(memory, 10)
        start_reading(reader_open)
        with pytest.raises(StoreError, match=r"may remain in the files.*older snapshot"):
            memory.delete(secret.id)
        assert left_in_files(path, [SECRET_EN])  # said so, not silently left
        reader_open.execute("COMMIT")
        memory.store.purge()
        assert left_in_files(path, [SECRET_EN]) == []


READ_FOR_TWO_SECONDS = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT COUNT(*) FROM episodes").fetchone()
print("reading", flush=True)
time.sleep(2.0)
db.execute("COMMIT")
"""

DELETE = """
import sys
from kuzya import Memory
from kuzya.testing import HashEmbedder
with Memory.open(sys.argv[1], namespace="test", embedder=HashEmbedder()) as memory:
    memory.delete(int(sys.argv[2]))
"""


def run_child(script: str, guard: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", guard + script, *args], stdout=subprocess.PIPE, text=True
    )


def test_another_process_reading_delays_the_purge(
    hash_store: Memory, tmp_path: Path, child_network_guard: str
) -> None:
    path = tmp_path / "p.db"
    secret = hash_store.remember(f"my locker code is {SECRET_EN}", speaker="ana")
    fill(hash_store, 10)
    child = run_child(READ_FOR_TWO_SECONDS, child_network_guard, str(path))
    assert child.stdout is not None and child.stdout.readline().strip() == "reading"
    started = time.monotonic()
    hash_store.delete(secret.id)
    assert time.monotonic() - started >= 0.5
    assert left_in_files(path, [SECRET_EN]) == []
    assert child.wait(timeout=10) == 0


def test_a_delete_in_another_process_purges_the_shared_file(
    hash_store: Memory, tmp_path: Path, child_network_guard: str
) -> None:
    path = tmp_path / "p.db"
    secret = hash_store.remember(f"my locker code is {SECRET_EN}", speaker="ana")
    fill(hash_store, 10)
    assert hash_store.recall(SECRET_EN, participants=["ana"]).items[0].id == secret.id
    child = run_child(DELETE, child_network_guard, str(path), str(secret.id))
    assert child.wait(timeout=60) == 0
    assert left_in_files(path, [SECRET_EN]) == []
    assert all(item.id != secret.id for item in hash_store.recall(SECRET_EN, participants=["ana"]))
