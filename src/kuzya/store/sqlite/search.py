"""The searches of the SQLite store that need its own indexes: dense (exact, over the
visible rows of the vector index) and full text (FTS5 with scope tokens per namespace
and audience). Every search applies the privacy rule in its query."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kuzya.store.base import Hit, Scope
from kuzya.store.sql.episodes import Indexed
from kuzya.store.sql.reading import EpisodeReads, affordable_terms
from kuzya.store.sql.tables import Connection, placeholders
from kuzya.store.sqlite.base import SQLiteConnection

# Up to this many visible audiences, the full-text query itself is restricted to them
# through scope tokens; past it, to the namespace (with a join on the audience unless
# every audience of the namespace is visible).
_MAX_SCOPE_TOKENS = 64


def namespace_token(namespace: str) -> str:
    return "n" + hashlib.blake2b(namespace.encode(), digest_size=8).hexdigest()


def index_text(
    db: Connection, namespace: str, episode_id: int, audience_id: int, terms: str
) -> None:
    """Full-text row: the terms, and scope tokens for its namespace and audience."""
    db.execute(
        "INSERT INTO episodes_fts (rowid, terms, scope) VALUES (?, ?, ?)",
        (episode_id, terms, f"{namespace_token(namespace)} a{audience_id}"),
    )


class SearchTables(SQLiteConnection, EpisodeReads):
    """Episode rows and the search side of the store port."""

    def _index_episodes(self, db: Connection, namespace: str, batch: Sequence[Indexed]) -> None:
        for episode_id, audience_id, new in batch:
            index_text(db, namespace, episode_id, audience_id, new.terms)
        db.executemany(
            "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'put')",
            [(namespace, episode_id) for episode_id, _, _ in batch],
        )

    def _unindex_episode(self, db: Connection, namespace: str, episode_id: int) -> None:
        db.execute("DELETE FROM episodes_fts WHERE rowid = ?", (episode_id,))
        db.execute(
            "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'remove')",
            (namespace, episode_id),
        )

    def _after_write(self) -> None:
        self._sync()

    def dense_search(self, scope: Scope, vector: npt.NDArray[np.float32], k: int) -> list[Hit]:
        namespace, visible = scope.namespace, self._seen_by(scope)
        return self._sync().search(namespace, vector, visible, k)  # beside other queries

    def text_search(self, scope: Scope, terms: Sequence[str], k: int) -> list[Hit]:
        namespace, visible = scope.namespace, self._seen_by(scope)
        unique = sorted(set(terms))
        if not unique:
            return []
        with self._session:
            if not visible:
                return []
            kept = self._affordable_terms(unique)
            if not kept:
                return []
            match = "terms : (" + " OR ".join('"' + t.replace('"', '""') + '"' for t in kept) + ")"
            # Every audience of the namespace visible: its token alone is the filter.
            everything = not self._db.execute(
                "SELECT 1 FROM audiences WHERE namespace = ? "
                f"AND id NOT IN ({placeholders(visible)}) LIMIT 1",
                (namespace, *visible),
            ).fetchone()
            if everything or len(visible) <= _MAX_SCOPE_TOKENS:
                tokens = (
                    namespace_token(namespace)
                    if everything
                    else "(" + " OR ".join(f"a{audience}" for audience in visible) + ")"
                )
                rows = self._db.execute(
                    "SELECT rowid, -bm25(episodes_fts, 1.0, 0.0) AS score FROM episodes_fts "
                    "WHERE episodes_fts MATCH ? ORDER BY score DESC LIMIT ?",
                    (f"{match} AND scope : {tokens}", k),
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT f.rowid, -bm25(episodes_fts, 1.0, 0.0) AS score FROM episodes_fts f "
                    "JOIN episodes e ON e.id = f.rowid WHERE episodes_fts MATCH ? "
                    f"AND e.audience_id IN ({placeholders(visible)}) "
                    "ORDER BY score DESC LIMIT ?",
                    (f"{match} AND scope : {namespace_token(namespace)}", *visible, k),
                ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def _affordable_terms(self, unique: Sequence[str]) -> list[str]:
        return affordable_terms(
            dict(
                self._db.execute(
                    "SELECT term, doc FROM episodes_fts_vocab "
                    f"WHERE col = 'terms' AND term IN ({placeholders(unique)})",
                    unique,
                )
            )
        )

    def matching(self, scope: Scope, terms: Sequence[str]) -> list[int]:
        namespace, visible = scope.namespace, self._seen_by(scope)
        unique = sorted(set(terms))
        if not unique:
            return []
        match = "terms : (" + " AND ".join('"' + t.replace('"', '""') + '"' for t in unique) + ")"
        with self._session:
            if not visible:
                return []
            rows = self._db.execute(
                "SELECT f.rowid FROM episodes_fts f JOIN episodes e ON e.id = f.rowid "
                f"WHERE episodes_fts MATCH ? AND e.audience_id IN ({placeholders(visible)}) "
                "ORDER BY f.rowid",
                (f"{match} AND scope : {namespace_token(namespace)}", *visible),
            ).fetchall()
        return [int(row[0]) for row in rows]
