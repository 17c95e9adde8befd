"""Reading episodes and the searches of the SQLite store: dense (exact, over the visible
rows), full text (FTS5 with scope tokens per namespace and audience), recency, time
windows and neighbouring turns. Every search applies the privacy rule in its query."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.model import Attachment, Episode, Span
from kuzya.store.base import Hit
from kuzya.store.sqlite.base import (
    PER_AUDIENCE,
    SQLiteConnection,
    newest_per_audience,
    placeholders,
)

EPISODE_COLUMNS = (
    "id, namespace, conversation, speaker, text, attachments, metadata, "
    "said_at, stored_at, updated_at, audience_id, position, events"
)
# Full-text postings read per query at most: frequent terms carry little weight and
# cost the most, so they are dropped first (bounds latency on large stores).
_MAX_POSTINGS = 6_000
# Up to this many visible audiences, the full-text query itself is restricted to them
# through scope tokens; past it, to the namespace (with a join on the audience unless
# every audience of the namespace is visible).
_MAX_SCOPE_TOKENS = 64


def _json(value: str) -> Any:
    """JSON text to a value; the common empty cases skip the parser."""
    if value == "[]":
        return []
    return {} if value == "{}" else json.loads(value)


def _events_from_json(value: str) -> tuple[Span, ...]:
    return tuple(
        Span(e["phrase"], from_epoch(e["start"]), from_epoch(e["end"])) for e in _json(value)
    )


def namespace_token(namespace: str) -> str:
    return "n" + hashlib.blake2b(namespace.encode(), digest_size=8).hexdigest()


def index_text(
    db: sqlite3.Connection, namespace: str, episode_id: int, audience_id: int, terms: str
) -> None:
    """Full-text row: the terms, and scope tokens for its namespace and audience."""
    db.execute(
        "INSERT INTO episodes_fts (rowid, terms, scope) VALUES (?, ?, ?)",
        (episode_id, terms, f"{namespace_token(namespace)} a{audience_id}"),
    )


class SearchTables(SQLiteConnection):
    """Episode rows and the search side of the store port."""

    def _episode(self, row: sqlite3.Row | tuple[Any, ...]) -> Episode:
        attachments = tuple(Attachment(**a) for a in _json(row[5]))
        return Episode(
            id=int(row[0]),
            namespace=row[1],
            conversation=row[2],
            speaker=row[3],
            text=row[4],
            attachments=attachments,
            metadata=_json(row[6]),
            said_at=from_epoch(row[7]),
            stored_at=from_epoch(row[8]),
            updated_at=None if row[9] is None else from_epoch(row[9]),
            audience=self._members_of(int(row[10])),
            position=int(row[11]),
            events=_events_from_json(row[12]),
        )

    def _episodes(
        self, namespace: str, ids: Sequence[int], visible: Sequence[int] | None = None
    ) -> list[Episode]:
        # Unary + keeps the planner on rowid lookups instead of scanning a namespace index.
        where, params = f"id IN ({placeholders(ids)}) AND +namespace = ?", [*ids, namespace]
        if visible is not None:
            where += f" AND +audience_id IN ({placeholders(visible)})"
            params.extend(visible)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE {where}", params
            ).fetchall()
            by_id = {int(row[0]): self._episode(row) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def dense_search(
        self, namespace: str, vector: npt.NDArray[np.float32], participants: Sequence[str], k: int
    ) -> list[Hit]:
        index = self._sync()
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
        return index.search(namespace, vector, visible, k)  # beside other queries

    def text_search(
        self, namespace: str, terms: Sequence[str], participants: Sequence[str], k: int
    ) -> list[Hit]:
        unique = sorted(set(terms))
        if not unique:
            return []
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            if not visible:
                return []
            kept = self._affordable_terms(unique)
            if not kept:
                return []
            match = "terms : (" + " OR ".join('"' + t.replace('"', '""') + '"' for t in kept) + ")"
            everything = (
                len(visible)
                == self._db.execute(
                    "SELECT COUNT(*) FROM audiences WHERE namespace = ?", (namespace,)
                ).fetchone()[0]
            )
            if everything or len(visible) <= _MAX_SCOPE_TOKENS:
                scope = (
                    namespace_token(namespace)
                    if everything
                    else "(" + " OR ".join(f"a{audience}" for audience in visible) + ")"
                )
                rows = self._db.execute(
                    "SELECT rowid, -bm25(episodes_fts, 1.0, 0.0) AS score FROM episodes_fts "
                    "WHERE episodes_fts MATCH ? ORDER BY score DESC LIMIT ?",
                    (f"{match} AND scope : {scope}", k),
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
        """Rarest terms first, until the postings to read would exceed the bound."""
        frequency = dict(
            self._db.execute(
                "SELECT term, doc FROM episodes_fts_vocab "
                f"WHERE col = 'terms' AND term IN ({placeholders(unique)})",
                unique,
            )
        )
        kept: list[str] = []
        postings = 0
        for term in sorted(frequency, key=lambda t: (frequency[t], t)):
            postings += frequency[term]
            if kept and postings > _MAX_POSTINGS:
                break
            kept.append(term)
        return kept

    def recent_search(self, namespace: str, participants: Sequence[str], k: int) -> list[Hit]:
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            if len(visible) <= PER_AUDIENCE:
                rows = newest_per_audience(
                    self._db,
                    "SELECT id, said_at FROM episodes WHERE audience_id = ? "
                    "ORDER BY said_at DESC, id DESC LIMIT ?",
                    (), visible, k, lambda row: (row[1], row[0]),
                )  # fmt: skip
            else:
                rows = self._db.execute(
                    "SELECT id, said_at FROM episodes WHERE namespace = ? "
                    f"AND +audience_id IN ({placeholders(visible)}) "
                    "ORDER BY said_at DESC, id DESC LIMIT ?",
                    (namespace, *visible, k),
                ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def window_search(
        self,
        namespace: str,
        start: datetime,
        end: datetime,
        participants: Sequence[str],
        k: int,
    ) -> list[Hit]:
        low, high = to_epoch(start), to_epoch(end)
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                "SELECT id, said_at FROM episodes WHERE namespace = ? AND ("
                "(said_at >= ? AND said_at < ?) OR (event_start < ? AND event_end > ?)) "
                f"AND +audience_id IN ({placeholders(visible)}) ORDER BY said_at DESC LIMIT ?",
                (namespace, low, high, high, low, *visible, k),
            ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def fetch(
        self, namespace: str, ids: Sequence[int], participants: Sequence[str]
    ) -> list[Episode]:
        if not ids:
            return []
        with self._lock:
            return self._episodes(namespace, ids, self._visible_audiences(namespace, participants))

    def neighbours(
        self, namespace: str, episodes: Sequence[Episode], span: int, participants: Sequence[str]
    ) -> list[Episode]:
        if not episodes or span <= 0:
            return []
        given = {e.id for e in episodes}
        # Each clause matches the (namespace, conversation, position) index on its own, so
        # the planner unions index ranges instead of scanning the namespace.
        around = " OR ".join(
            "(namespace = ? AND conversation = ? AND position BETWEEN ? AND ?)" for _ in episodes
        )
        params: list[Any] = []
        for e in episodes:
            params.extend((namespace, e.conversation, e.position - span, e.position + span))
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE ({around}) "
                f"AND +audience_id IN ({placeholders(visible)})",
                (*params, *visible),
            ).fetchall()
            return [self._episode(row) for row in rows if int(row[0]) not in given]

    def matching(
        self, namespace: str, terms: Sequence[str], participants: Sequence[str]
    ) -> list[int]:
        unique = sorted(set(terms))
        if not unique:
            return []
        match = "terms : (" + " AND ".join('"' + t.replace('"', '""') + '"' for t in unique) + ")"
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            if not visible:
                return []
            rows = self._db.execute(
                "SELECT f.rowid FROM episodes_fts f JOIN episodes e ON e.id = f.rowid "
                f"WHERE episodes_fts MATCH ? AND e.audience_id IN ({placeholders(visible)}) "
                "ORDER BY f.rowid",
                (f"{match} AND scope : {namespace_token(namespace)}", *visible),
            ).fetchall()
        return [int(row[0]) for row in rows]
