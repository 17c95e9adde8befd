"""A store file written before the entity views (m005) opens and converts: mentions get
their episode's audience and their entity's name and kind, aliases the audience and
episode that taught them."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from kuzya.model import Message
from kuzya.store import migrations, sqlite_graph
from kuzya.store.base import NewEpisode
from kuzya.store.sqlite import SQLiteStore

NS = "t"
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _old_store(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A file at m003 with three episodes (ana's DM, ana's DM, the group) and the entity
    rows the code of that time wrote for them; returns the episode ids."""
    with monkeypatch.context() as patched:
        patched.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:3])
        patched.setattr(sqlite_graph, "record", lambda *_: None)  # written below, as then
        store = SQLiteStore(path)
        store.bind_embedder("hash", 4)
        vector = np.full(4, 0.5, dtype=np.float32)
        said = [
            ("ana",), ("ana",), ("ana", "bob"),
        ]  # fmt: skip
        stored = store.add_episodes(
            NS, [NewEpisode(Message(f"m{i}", "ana", "c", who, T0), vector, "m")
                 for i, who in enumerate(said)],
        )  # fmt: skip
        store.close()
    ids = [e.id for e in stored]
    with closing(sqlite3.connect(path)) as db, db:
        db.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, 0, ?, ?, ?, 0, 0)",
            [(1, NS, "leo", "Leo", "person", 2), (2, NS, "melanie", "Melanie", "name", 2)],
        )
        db.executemany(
            "INSERT INTO mentions VALUES (?, ?)",
            [(1, ids[0]), (1, ids[2]), (2, ids[1]), (2, ids[2])],
        )
        db.executemany(
            "INSERT INTO entity_aliases VALUES (?, ?, ?, ?)",
            [(NS, "", "leo", 1), (NS, "", "melanie", 2), (NS, "", "mel", 2),
             (NS, "ana", "my brother", 1)],
        )  # fmt: skip
    return ids


def test_an_old_store_converts_to_entity_views(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    ids = _old_store(path, monkeypatch)
    store = SQLiteStore(path)
    store.bind_embedder("hash", 4)
    listed = {e.key: (e.name, e.kind, e.mentions, e.aliases) for e in store.entities(NS)}
    assert listed == {
        "leo": ("Leo", "person", 2, frozenset({"leo", "my brother"})),
        "melanie": ("Melanie", "name", 2, frozenset({"melanie", "mel"})),
    }
    group = {e.key: e.mentions for e in store.entities(NS, ["ana", "bob"])}
    assert group == {"leo": 1, "melanie": 1}
    # ana's alias was taught by her latest message that names Leo: the group's
    assert store.gazetteer(NS, "ana", ["ana", "bob"])["my brother"] == "leo"
    assert store.gazetteer(NS, "ana", ["ana"]) == {
        "leo": "leo", "melanie": "melanie", "mel": "melanie", "my brother": "leo",
    }  # fmt: skip
    store.delete_episode(NS, ids[2], None)  # it takes its alias with it
    assert "my brother" not in store.gazetteer(NS, "ana", ["ana"])
    assert {e.key: e.mentions for e in store.entities(NS)} == {"leo": 1, "melanie": 1}
    store.close()
