"""On PostgreSQL the search table keeps each vector in its row (a 512-d vector is past
TOAST's 2 kB): an exact search over an audience reads a page for a few rows, not five
pages for each; a table made before that is rewritten by compaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from kuzya.embed import Embedder
from kuzya.memory import Memory
from tests.conftest import PostgresBackend

LINES = [f"note {i}: the {word} list for the weekend" for i, word in enumerate(
    ["shopping", "packing", "reading", "cleaning", "garden", "guest", "music", "film"] * 3
)]  # fmt: skip


def _outside(url: str) -> tuple[int, int]:
    """(bytes of the vectors' TOAST table, bytes of one vector)."""
    with psycopg.connect(url) as db:
        toast = db.execute(
            "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'vectors'"
        ).fetchone()
        size = db.execute("SELECT MAX(pg_column_size(embedding)) FROM vectors").fetchone()
    assert toast is not None and size is not None
    return int(toast[0]), int(size[0])


def test_vectors_stay_in_their_rows(
    postgres_server: Any, tmp_path: Path, use_embedder: Embedder
) -> None:
    url = PostgresBackend(postgres_server, tmp_path).url
    with Memory.open(url, embedder=use_embedder, llm="none") as memory:
        memory.remember_many([{"text": line, "speaker": "ana"} for line in LINES])
        vectors = memory.store.vector_of(memory.namespace, [1, 2])
        assert sorted(vectors) == [1, 2] and vectors[1].shape == (use_embedder.dim,)
    toast, size = _outside(url)
    assert size > 2032 and toast == 0  # past TOAST's threshold, yet in line


def test_compaction_moves_an_older_tables_vectors_into_their_rows(
    postgres_server: Any, tmp_path: Path, use_embedder: Embedder
) -> None:
    url = PostgresBackend(postgres_server, tmp_path).url
    with Memory.open(url, embedder=use_embedder, llm="none") as memory:
        memory.remember("the first note", speaker="ana")
    with psycopg.connect(url, autocommit=True) as db:  # as a table from before was made
        db.execute("ALTER TABLE vectors RESET (toast_tuple_target)")
        db.execute("VACUUM (FULL) vectors")
    with Memory.open(url, embedder=use_embedder, llm="none") as memory:
        assert _outside(url)[0] > 0
        memory.remember_many([{"text": line, "speaker": "ana"} for line in LINES])
        memory.store.compact()
        found = memory.recall("the packing list", participants=["ana"], limit=3)
        assert "packing" in found.items[0].text
    assert _outside(url)[0] == 0
