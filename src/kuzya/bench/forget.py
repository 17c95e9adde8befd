"""Cost of forgetting at N episodes: `delete` with the purge that takes the text out of
every file of the store, the same delete without the purge, and a full `compact()`.

The store holds the synthetic messages of the scale benchmark; every N/k-th of them is a
secret with a random word, so the deleted rows lie in old and new parts of the index. At
the end the files are searched for the secret words.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

from kuzya.bench.scale import messages, percentiles
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import Message

SECRET = "my locker code is "


def _with_secrets(count: int, words: list[str]) -> Iterator[Message]:
    every = max(count // len(words), 1)
    for i, message in enumerate(messages(count)):
        if i % every == 0 and i // every < len(words):
            yield replace(message, text=SECRET + words[i // every])
        else:
            yield message


def _files_holding(path: Path, words: list[str]) -> int:
    """How many of the words occur in the store's files (db, WAL, shared memory)."""
    raw = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())
    return sum(word.encode() in raw for word in words)


def _index_bytes(path: Path) -> int:
    with closing(sqlite3.connect(path)) as db:
        return int(db.execute("SELECT SUM(LENGTH(block)) FROM episodes_fts_data").fetchone()[0])


def run(
    episodes: int,
    embedder: Embedder,
    workdir: Path,
    *,
    deletes: int = 20,
    batch: int = 1000,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    words = [f"qx{secrets.token_hex(6)}" for _ in range(deletes)]
    path = workdir / "forget.db"
    with Memory.open(
        path, namespace="scale", embedder=embedder, durable=False, llm="none"
    ) as memory:
        stream = list(_with_secrets(episodes, words))
        ids: list[int] = []
        for start in range(0, episodes, batch):
            stored = memory.remember_many(stream[start : start + batch])
            ids.extend(e.id for e in stored if e.text.startswith(SECRET))
            if progress:
                progress(len(stored))
    with Memory.open(path, namespace="scale", embedder=embedder, llm="none") as memory:
        memory.compact()  # start from one index segment and an empty WAL
        memory.recall("load the vector index", participants=["assistant"])
        index_bytes = _index_bytes(path)
        middle = memory.get_all(limit=2 * deletes, offset=episodes // 2)
        ordinary = [e.id for e in middle if e.id not in ids][:deletes]
        plain = []
        for episode_id in ordinary:
            started = time.perf_counter()
            memory.store.delete_episode(memory.namespace, episode_id, None)
            plain.append(1000 * (time.perf_counter() - started))
        purged = []
        for episode_id in ids:
            started = time.perf_counter()
            memory.delete(episode_id)
            purged.append(1000 * (time.perf_counter() - started))
        left = _files_holding(path, words)
        before = path.stat().st_size
        started = time.perf_counter()
        memory.compact()
        compact_seconds = time.perf_counter() - started
    return {
        "episodes": episodes,
        "embedder": embedder.name,
        "deletes": deletes,
        "index_bytes": index_bytes,
        "db_bytes": before,
        "db_bytes_compacted": path.stat().st_size,
        "delete_ms": percentiles(purged),
        "delete_without_purge_ms": percentiles(plain),
        "compact_s": round(compact_seconds, 2),
        "secret_words_left_in_files": left,
    }
