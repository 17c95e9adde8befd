"""The embedded store: one SQLite file (WAL), FTS5 full text, exact vector search.

Writes happen in `BEGIN IMMEDIATE` transactions, so several processes can write one
file; a batch is acknowledged only after its COMMIT returns.
"""

from __future__ import annotations

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
from kuzya.errors import InvalidInput, NotFound
from kuzya.model import (
    Conversation,
    Episode,
    HistoryEvent,
    Span,
)
from kuzya.store.base import NewEpisode
from kuzya.store.sqlite import graph
from kuzya.store.sqlite.base import audience_key, placeholders
from kuzya.store.sqlite.diary import DiaryTables
from kuzya.store.sqlite.entities import EntityTables
from kuzya.store.sqlite.facts import ClaimTables, forget_claims
from kuzya.store.sqlite.files import one_line_errors
from kuzya.store.sqlite.jobs import JobTables
from kuzya.store.sqlite.operations import Operations
from kuzya.store.sqlite.search import EPISODE_COLUMNS, index_text
from kuzya.store.sqlite.transfer import TransferTables


def _event_columns(events: Sequence[Span]) -> tuple[str, float | None, float | None]:
    """The events as JSON, and the earliest start and latest end (for time windows)."""
    encoded = json.dumps(
        [{"phrase": e.phrase, "start": to_epoch(e.start), "end": to_epoch(e.end)} for e in events],
        ensure_ascii=False,
    )
    if not events:
        return encoded, None, None
    return encoded, min(to_epoch(e.start) for e in events), max(to_epoch(e.end) for e in events)


@one_line_errors
class SQLiteStore(EntityTables, ClaimTables, DiaryTables, JobTables, TransferTables, Operations):
    """Store port over one SQLite file. Thread-safe; one connection guarded by a lock.
    Every SQLite failure leaves its methods as a one-line `StoreError`."""

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
        by_id = {episode.id: episode for episode in self._episodes(namespace, ids)}
        return [by_id[i] for i in ids]

    def keyed(self, namespace: str, keys: Sequence[str]) -> dict[str, int]:
        with self._lock:
            return {
                key: int(episode_id)
                for start in range(0, len(keys), 500)
                for key, episode_id in self._db.execute(
                    f"SELECT key, id FROM episodes WHERE namespace = ? AND "
                    f"key IN ({placeholders(keys[start : start + 500])})",
                    (namespace, *keys[start : start + 500]),
                )
            }

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
        if msg.key is not None:  # stored meanwhile by another writer, or earlier in the batch
            row = db.execute(
                "SELECT id FROM episodes WHERE namespace = ? AND key = ?", (namespace, msg.key)
            ).fetchone()
            if row is not None:
                return int(row[0])
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
            "event_start, event_end, key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
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
                msg.key,
            ),
        ).fetchone()[0]
        index_text(db, namespace, episode_id, audience_id, new.terms)
        graph.record(db, namespace, (episode_id, audience_id, msg.speaker), said_at, new.mentions,
                     new.vector, self.half_life)  # fmt: skip
        db.execute(
            "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'put')",
            (namespace, episode_id),
        )
        db.executemany(
            "INSERT INTO derivations VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(episode_id, source) for source in msg.derived_from],
        )
        self._log(db, namespace, episode_id, "ADD", None, msg.text, msg.speaker, stored_at)
        return int(episode_id)

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
            "INSERT INTO history (namespace, memory_id, event, old_text, new_text, at, actor, "
            "audience_id) VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT audience_id FROM history WHERE "
            "namespace = ? AND memory_id = ? AND audience_id IS NOT NULL UNION ALL SELECT "
            "audience_id FROM episodes WHERE id = ? LIMIT 1))",
            (namespace, episode_id, event, old, new, at, actor, namespace, episode_id, episode_id),
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
            index_text(db, namespace, episode_id, row[1], new.terms)
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
            forget_claims(db, namespace, "episode_id = ?", [episode_id],
                          f"memory {episode_id} was deleted", actor)  # fmt: skip
            db.execute(
                "DELETE FROM derivations WHERE episode_id = ? OR source_id = ?",
                (episode_id, episode_id),
            )
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
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE {' AND '.join(where)} "
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

    def history(
        self, namespace: str, episode_id: int, participants: Sequence[str] | None = None
    ) -> list[HistoryEvent]:
        where, params = "namespace = ? AND memory_id = ?", [namespace, episode_id]
        with self._lock:
            if participants is not None:
                condition, values = self._audience_filter(namespace, participants)
                where += f" AND {condition}"
                params.extend(values)
            rows = self._db.execute(
                "SELECT memory_id, event, old_text, new_text, at, actor FROM history "
                f"WHERE {where} ORDER BY id",
                params,
            ).fetchall()
        if not rows:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return [HistoryEvent(int(r[0]), r[1], r[2], r[3], from_epoch(r[4]), r[5]) for r in rows]

    def derived_from(self, namespace: str, sources: Sequence[int]) -> list[int]:
        if not sources:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT d.episode_id FROM derivations d JOIN episodes e ON "
                f"e.id = d.episode_id WHERE d.source_id IN ({placeholders(sources)}) "
                "AND e.namespace = ? ORDER BY d.episode_id",
                (*sources, namespace),
            ).fetchall()
        return [int(row[0]) for row in rows]

    def episodes_after(self, namespace: str, after: int, limit: int) -> list[Episode]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND id > ? "
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
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND "
                f"conversation = ? AND audience_id IN ({placeholders(visible)}) "
                "ORDER BY position DESC LIMIT ?",
                (namespace, conversation, *visible, limit),
            ).fetchall()
            return [self._episode(row) for row in reversed(rows)]

    def last_said_at(self, namespace: str) -> datetime | None:
        with self._lock:
            (newest,) = self._db.execute(
                "SELECT MAX(said_at) FROM episodes WHERE namespace = ?", (namespace,)
            ).fetchone()
        return None if newest is None else from_epoch(newest)

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
