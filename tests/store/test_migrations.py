"""A store file written before the claims (m004) and the entity views (m005) opens and
converts: facts become claims of their sources (a negation found in a fact's history
too); mentions get their episode's audience and their entity's name and kind, aliases
the audience and episode that taught them."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from kuzya.memory import Memory
from kuzya.store.sqlite import migrations
from kuzya.store.sqlite.store import SQLiteStore
from kuzya.testing import HashEmbedder

NS = "t"
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _old_store(path: Path) -> list[int]:
    """A file at m003, as the code of that time wrote it: three episodes (ana's DM, ana's
    DM, the group), their entity rows, and facts (one ended by a negation, one replaced);
    returns the episode ids."""
    vector = np.full(4, 0.5, dtype=np.float32).tobytes()
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        for migration in migrations.MIGRATIONS[:3]:
            db.execute("BEGIN")
            migration(db)
            db.execute("INSERT INTO migrations VALUES (?, 0)", (migration.__name__,))
            db.execute("COMMIT")
        db.execute("INSERT INTO meta VALUES ('embedder', 'hash'), ('dim', '4')")
        db.executemany(
            "INSERT INTO audiences VALUES (?, ?, ?)",
            [(1, NS, '["ana"]'), (2, NS, '["ana", "bob"]')],
        )
        db.executemany(
            "INSERT INTO audience_members VALUES (?, ?)", [(1, "ana"), (2, "ana"), (2, "bob")]
        )
        said = [(1, 1, "m0"), (2, 1, "m1"), (3, 2, "m2")]
        t0 = T0.timestamp()
        db.executemany(
            "INSERT INTO episodes VALUES (?, ?, 'c', ?, 'ana', ?, '[]', '{}', ?, ?, NULL, ?, ?, "
            "'[]', NULL, NULL)",
            [(i, NS, i - 1, text, t0 + i, t0 + i, audience, vector) for i, audience, text in said],
        )
        db.executemany(
            "INSERT INTO history (namespace, memory_id, event, new_text, at) "
            "VALUES (?, ?, 'ADD', ?, ?)",
            [(NS, i, text, t0) for i, _, text in said],
        )
        db.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, 0, ?, ?, ?, 0, 0)",
            [(1, NS, "leo", "Leo", "person", 2), (2, NS, "melanie", "Melanie", "name", 2)],
        )
        db.executemany("INSERT INTO mentions VALUES (?, ?)", [(1, 1), (1, 3), (2, 2), (2, 3)])
        db.executemany(
            "INSERT INTO entity_aliases VALUES (?, ?, ?, ?)",
            [(NS, "", "leo", 1), (NS, "", "melanie", 2), (NS, "", "mel", 2),
             (NS, "ana", "my brother", 1)],
        )  # fmt: skip
        db.executemany(
            "INSERT INTO facts VALUES (?, ?, 'ana', ?, ?, ?, ?, 'x', 1, ?, ?, ?, 0, ?, 'rules', "
            "?, ?)",
            [
                (1, NS, "likes", "jazz", "jazz", "ana likes jazz", 1, t0 + 1, t0 + 2, None, vector,
                 vector),
                (2, NS, "lives_in", "Oslo", "oslo", "ana lives in Oslo", 1, t0 + 1, t0 + 3, None,
                 vector, vector),
                (3, NS, "lives_in", "Bergen", "bergen", "ana lives in Bergen", 2, t0 + 3, None,
                 None, vector, vector),
                (4, NS, "pet", "cat", "cat", "(forgotten)", 1, t0 + 1, None, t0 + 5, vector,
                 vector),
            ],
        )  # fmt: skip
        db.executemany("INSERT INTO fact_sources VALUES (?, ?)", [(1, 1), (2, 1), (3, 3), (4, 1)])
        db.executemany(
            "INSERT INTO fact_history (namespace, fact_id, event, detail, at) "
            "VALUES (?, ?, ?, ?, 0)",
            [
                (NS, 1, "CLOSE", "no longer true, said in memory 2 (01 January 2025)"),
                (NS, 2, "CLOSE", "replaced by a new value in memory 3 (01 January 2025)"),
            ],
        )
    return [i for i, _, _ in said]


def test_an_old_store_converts_its_facts_to_claims(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    ids = _old_store(path)
    with Memory(SQLiteStore(path), HashEmbedder(4), namespace=NS) as memory:
        claims = memory.store.claims(NS, participants=None)
        assert [(c.episode_id, c.attribute, c.value, c.negated) for c in claims] == [
            (ids[0], "likes", "jazz", False),
            (ids[0], "lives_in", "Oslo", False),
            (ids[1], "likes", "jazz", True),  # the negation that ended it, found in its history
            (ids[2], "lives_in", "Bergen", False),
        ]  # the forgotten fact stays forgotten
        facts = memory.facts(include_past=True)
        assert {(f.value, f.current) for f in facts} == {
            ("jazz", False), ("Oslo", False), ("Bergen", True),
        }  # fmt: skip
        assert [f.value for f in memory.facts(participants=["ana", "bob"])] == ["Bergen"]
        assert [h.event for h in memory.history(ids[2], participants=["bob"])] == ["ADD"]


def test_an_old_store_converts_to_entity_views(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    ids = _old_store(path)
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
    assert store.gazetteer(store.scope(NS, ["ana", "bob"]), "ana")["my brother"] == "leo"
    assert store.gazetteer(store.scope(NS, ["ana"]), "ana") == {
        "leo": "leo", "melanie": "melanie", "mel": "melanie", "my brother": "leo",
    }  # fmt: skip
    store.delete_episode(NS, ids[2], None)  # it takes its alias with it
    assert "my brother" not in store.gazetteer(store.scope(NS, ["ana"]), "ana")
    assert {e.key: e.mentions for e in store.entities(NS)} == {"leo": 1, "melanie": 1}
    store.close()
