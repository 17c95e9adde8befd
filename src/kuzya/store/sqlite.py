"""The embedded store: one SQLite file (WAL), FTS5 full text, exact vector search.

Writes happen in `BEGIN IMMEDIATE` transactions, so several processes can write one
file; a batch is acknowledged only after its COMMIT returns.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.dates import Span
from kuzya.errors import InvalidInput, NotFound
from kuzya.model import (
    Attachment,
    Conversation,
    Episode,
    HistoryEvent,
)
from kuzya.store import sqlite_graph as graph
from kuzya.store.base import Hit, NewEpisode
from kuzya.store.sqlite_base import audience_key, placeholders
from kuzya.store.sqlite_entities import EntityTables
from kuzya.store.sqlite_facts import FactTables

_EPISODE_COLUMNS = (
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


def _event_columns(events: Sequence[Span]) -> tuple[str, float | None, float | None]:
    """The events as JSON, and the earliest start and latest end (for time windows)."""
    encoded = json.dumps(
        [{"phrase": e.phrase, "start": to_epoch(e.start), "end": to_epoch(e.end)} for e in events],
        ensure_ascii=False,
    )
    if not events:
        return encoded, None, None
    return encoded, min(to_epoch(e.start) for e in events), max(to_epoch(e.end) for e in events)


def _json(value: str) -> Any:
    """JSON text to a value; the common empty cases skip the parser."""
    if value == "[]":
        return []
    return {} if value == "{}" else json.loads(value)


def _events_from_json(value: str) -> tuple[Span, ...]:
    return tuple(
        Span(e["phrase"], from_epoch(e["start"]), from_epoch(e["end"])) for e in _json(value)
    )


def _namespace_token(namespace: str) -> str:
    return "n" + hashlib.blake2b(namespace.encode(), digest_size=8).hexdigest()


def _index_text(
    db: sqlite3.Connection, namespace: str, episode_id: int, audience_id: int, terms: str
) -> None:
    """Full-text row: the terms, and scope tokens for its namespace and audience."""
    db.execute(
        "INSERT INTO episodes_fts (rowid, terms, scope) VALUES (?, ?, ?)",
        (episode_id, terms, f"{_namespace_token(namespace)} a{audience_id}"),
    )


class SQLiteStore(EntityTables, FactTables):
    """Store port over one SQLite file. Thread-safe; one connection guarded by a lock."""

    # -- writing ------------------------------------------------------------------------

    def add_episodes(self, namespace: str, batch: Sequence[NewEpisode]) -> list[Episode]:
        if not batch:
            return []
        for new in batch:
            self._check_vector(new.vector)
        stored_at = time.time()
        with self._write() as db:
            ids = [self._insert(db, namespace, new, stored_at) for new in batch]
        self._sync()
        return self._episodes(namespace, ids)

    def _check_vector(self, vector: npt.NDArray[np.float32]) -> None:
        dim = self._index().dim
        if vector.shape != (dim,) or not np.all(np.isfinite(vector)):
            raise InvalidInput(
                f"vector of shape {vector.shape} does not fit this store ({dim} finite values)"
            )

    def _insert(
        self, db: sqlite3.Connection, namespace: str, new: NewEpisode, stored_at: float
    ) -> int:
        msg = new.message
        said_at = to_epoch(msg.time)
        audience_id = self._audience_id(db, namespace, msg.participants)
        row = db.execute(
            "SELECT messages, participants FROM conversations WHERE namespace = ? AND id = ?",
            (namespace, msg.conversation),
        ).fetchone()
        position = 0 if row is None else int(row[0])
        everyone = set(msg.participants) | set(json.loads(row[1]) if row else [])
        db.execute(
            "INSERT INTO conversations VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (namespace, id) DO "
            "UPDATE SET messages = messages + 1, last_at = max(last_at, excluded.last_at), "
            "started_at = min(started_at, excluded.started_at), "
            "participants = excluded.participants",
            (namespace, msg.conversation, said_at, said_at, audience_key(sorted(everyone))),
        )
        episode_id = db.execute(
            "INSERT INTO episodes (namespace, conversation, speaker, text, attachments, "
            "metadata, said_at, stored_at, audience_id, position, embedding, events, "
            "event_start, event_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                namespace,
                msg.conversation,
                msg.speaker,
                msg.text,
                json.dumps([asdict(a) for a in msg.attachments], ensure_ascii=False),
                json.dumps(msg.metadata, ensure_ascii=False),
                said_at,
                stored_at,
                audience_id,
                position,
                new.vector.astype(np.float32).tobytes(),
                *_event_columns(new.events),
            ),
        ).lastrowid
        assert episode_id is not None
        _index_text(db, namespace, episode_id, audience_id, new.terms)
        graph.record(db, namespace, (episode_id, audience_id, msg.speaker), said_at, new.mentions,
                     new.vector, self.half_life)  # fmt: skip
        db.execute(
            "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'put')",
            (namespace, episode_id),
        )
        self._log(db, namespace, episode_id, "ADD", None, msg.text, msg.speaker, stored_at)
        return episode_id

    def _log(
        self,
        db: sqlite3.Connection,
        namespace: str,
        episode_id: int,
        event: str,
        old: str | None,
        new: str | None,
        actor: str | None,
        at: float,
    ) -> None:
        db.execute(
            "INSERT INTO history (namespace, memory_id, event, old_text, new_text, at, actor) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (namespace, episode_id, event, old, new, at, actor),
        )

    def update_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        return self._rewrite(namespace, episode_id, new, actor, redact=False)

    def redact_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        return self._rewrite(namespace, episode_id, new, actor, redact=True)

    def _rewrite(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None, *, redact: bool
    ) -> Episode:
        self._check_vector(new.vector)
        now = time.time()
        with self._write() as db:
            row = db.execute(
                "SELECT text, audience_id, speaker, said_at FROM episodes "
                "WHERE namespace = ? AND id = ?",
                (namespace, episode_id),
            ).fetchone()
            if row is None:
                raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
            db.execute(
                "UPDATE episodes SET text = ?, updated_at = ?, embedding = ?, events = ?, "
                "event_start = ?, event_end = ? WHERE id = ?",
                (
                    new.message.text,
                    now,
                    new.vector.astype(np.float32).tobytes(),
                    *_event_columns(new.events),
                    episode_id,
                ),
            )
            db.execute("DELETE FROM episodes_fts WHERE rowid = ?", (episode_id,))
            _index_text(db, namespace, episode_id, row[1], new.terms)
            graph.forget_mentions(db, episode_id, self.half_life)
            graph.record(db, namespace, (episode_id, row[1], row[2]), row[3], new.mentions,
                         new.vector, self.half_life)  # fmt: skip
            db.execute(
                "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'put')",
                (namespace, episode_id),
            )
            if redact:  # nothing said before the redaction survives, not even in history
                db.execute(
                    "UPDATE history SET old_text = NULL, new_text = NULL "
                    "WHERE namespace = ? AND memory_id = ?",
                    (namespace, episode_id),
                )
                self._log(db, namespace, episode_id, "FORGET", None, new.message.text, actor, now)
            else:
                self._log(db, namespace, episode_id, "UPDATE", row[0], new.message.text, actor, now)
        self._sync()
        return self.get_episode(namespace, episode_id)

    def delete_episode(self, namespace: str, episode_id: int, actor: str | None) -> None:
        now = time.time()
        with self._write() as db:
            if not db.execute(
                "SELECT 1 FROM episodes WHERE namespace = ? AND id = ?", (namespace, episode_id)
            ).fetchone():
                raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
            graph.forget_mentions(db, episode_id, self.half_life)  # reads the episode
            db.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))
            db.execute("DELETE FROM episodes_fts WHERE rowid = ?", (episode_id,))
            db.execute(
                "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'remove')",
                (namespace, episode_id),
            )
            db.execute(
                "UPDATE history SET old_text = NULL, new_text = NULL "
                "WHERE namespace = ? AND memory_id = ?",
                (namespace, episode_id),
            )
            self._log(db, namespace, episode_id, "DELETE", None, None, actor, now)
        self._sync()

    # -- reading ------------------------------------------------------------------------

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
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE {where}", params
            ).fetchall()
            by_id = {int(row[0]): self._episode(row) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def get_episode(self, namespace: str, episode_id: int) -> Episode:
        found = self._episodes(namespace, [episode_id])
        if not found:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return found[0]

    def list_episodes(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        conversation: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]:
        where: list[str] = ["namespace = ?"]
        params: list[Any] = [namespace]
        with self._lock:
            if participants is not None:
                condition, values = self._audience_filter(namespace, participants)
                where.append(condition)
                params.extend(values)
            if conversation is not None:
                where.append("conversation = ?")
                params.append(conversation)
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE {' AND '.join(where)} "
                "ORDER BY said_at, id LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            return [self._episode(row) for row in rows]

    def conversations(
        self, namespace: str, participants: Sequence[str] | None = None
    ) -> list[Conversation]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, participants, started_at, last_at, messages FROM conversations "
                "WHERE namespace = ? ORDER BY last_at DESC, id",
                (namespace,),
            ).fetchall()
        present = set(participants or ())
        found = [
            Conversation(
                r[0], frozenset(json.loads(r[1])), from_epoch(r[2]), from_epoch(r[3]), int(r[4])
            )
            for r in rows
        ]
        return [c for c in found if present <= c.participants]

    def history(self, namespace: str, episode_id: int) -> list[HistoryEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT memory_id, event, old_text, new_text, at, actor FROM history "
                "WHERE namespace = ? AND memory_id = ? ORDER BY id",
                (namespace, episode_id),
            ).fetchall()
        if not rows:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return [HistoryEvent(int(r[0]), r[1], r[2], r[3], from_epoch(r[4]), r[5]) for r in rows]

    def episodes_after(self, namespace: str, after: int, limit: int) -> list[Episode]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (namespace, after, limit),
            ).fetchall()
            return [self._episode(row) for row in rows]

    def recent_turns(
        self, namespace: str, conversation: str, participants: Sequence[str], limit: int
    ) -> list[Episode]:
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND "
                f"conversation = ? AND audience_id IN ({placeholders(visible)}) "
                "ORDER BY position DESC LIMIT ?",
                (namespace, conversation, *visible, limit),
            ).fetchall()
            return [self._episode(row) for row in reversed(rows)]

    def stats(self, namespace: str) -> dict[str, Any]:
        with self._lock:
            episodes, first, last = self._db.execute(
                "SELECT COUNT(*), MIN(said_at), MAX(said_at) FROM episodes WHERE namespace = ?",
                (namespace,),
            ).fetchone()
            conversations = self._db.execute(
                "SELECT COUNT(*) FROM conversations WHERE namespace = ?", (namespace,)
            ).fetchone()[0]
            participants = self._db.execute(
                "SELECT COUNT(DISTINCT m.participant) FROM audience_members m "
                "JOIN audiences a ON a.id = m.audience_id WHERE a.namespace = ?",
                (namespace,),
            ).fetchone()[0]
        return {
            "namespace": namespace,
            "episodes": episodes,
            "conversations": conversations,
            "participants": participants,
            "first": None if first is None else from_epoch(first).isoformat(),
            "last": None if last is None else from_epoch(last).isoformat(),
            "embedder": self.embedder_name,
            "path": str(self.path),
            "bytes": self.path.stat().st_size if self.path.exists() else 0,
        }

    # -- search -------------------------------------------------------------------------

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
                    _namespace_token(namespace)
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
                    (f"{match} AND scope : {_namespace_token(namespace)}", *visible, k),
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
            rows = self._db.execute(
                "SELECT id, said_at FROM episodes WHERE namespace = ? "
                f"AND +audience_id IN ({placeholders(visible)}) ORDER BY said_at DESC LIMIT ?",
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
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE ({around}) "
                f"AND +audience_id IN ({placeholders(visible)})",
                (*params, *visible),
            ).fetchall()
            return [self._episode(row) for row in rows if int(row[0]) not in given]
