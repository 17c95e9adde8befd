"""Facts, diary entries and job positions of the SQLite store."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.errors import NotFound
from kuzya.model import DiaryEntry, Fact
from kuzya.store.base import NewDiaryEntry, NewFact
from kuzya.store.sqlite_base import SQLiteConnection, placeholders

_FACT_COLUMNS = (
    "f.id, f.subject, f.attribute, f.value, f.statement, f.category, f.priority, "
    "f.audience_id, f.valid_from, f.valid_to, f.recorded_at, f.retired_at, f.origin, "
    "(SELECT group_concat(episode_id) FROM fact_sources s WHERE s.fact_id = f.id)"
)
_DIARY_COLUMNS = "id, kind, key, level, text, start, end, audience_id, sources, origin, created_at"


class SQLiteFactWriter:
    """Fact changes inside one write transaction (see `FactStore.fact_writer`)."""

    def __init__(self, store: FactTables, db: sqlite3.Connection, namespace: str) -> None:
        self._store, self._db, self._namespace = store, db, namespace

    def current(self, subject: str, attribute: str) -> list[Fact]:
        rows = self._db.execute(
            f"SELECT {_FACT_COLUMNS} FROM facts f WHERE f.namespace = ? AND f.subject = ? "
            "AND f.attribute = ? AND f.valid_to IS NULL AND f.retired_at IS NULL ORDER BY f.id",
            (self._namespace, subject, attribute),
        ).fetchall()
        return [self._store._fact(row) for row in rows]

    def stated_by(self, episode_id: int) -> list[Fact]:
        rows = self._db.execute(
            f"SELECT {_FACT_COLUMNS} FROM facts f JOIN fact_sources s ON s.fact_id = f.id "
            "WHERE s.episode_id = ? AND f.namespace = ?",
            (episode_id, self._namespace),
        ).fetchall()
        return [self._store._fact(row) for row in rows]

    def add(self, new: NewFact) -> int:
        db, now = self._db, time.time()
        fact_id = db.execute(
            "INSERT INTO facts (namespace, subject, attribute, value, value_key, statement, "
            "category, priority, audience_id, valid_from, valid_to, recorded_at, origin, "
            "embedding, own_embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self._namespace,
                new.subject,
                new.attribute,
                new.value,
                new.value_key,
                new.statement,
                new.category,
                new.priority,
                self._store._audience_id(db, self._namespace, new.audience),
                to_epoch(new.valid_from),
                None if new.valid_to is None else to_epoch(new.valid_to),
                now,
                new.origin,
                new.vector.astype(np.float32).tobytes(),
                new.own_vector.astype(np.float32).tobytes(),
            ),
        ).lastrowid
        assert fact_id is not None
        db.execute("INSERT INTO fact_sources VALUES (?, ?)", (fact_id, new.source))
        self._log(fact_id, "ADD", new.statement, None, now)
        return fact_id

    def _owns(self, fact_id: int) -> bool:
        """The fact belongs to this writer's namespace (nothing crosses namespaces)."""
        return (
            self._db.execute(
                "SELECT 1 FROM facts WHERE id = ? AND namespace = ?", (fact_id, self._namespace)
            ).fetchone()
            is not None
        )

    def add_source(self, fact_id: int, episode_id: int) -> bool:
        if not self._owns(fact_id):
            return False
        added = self._db.execute(
            "INSERT OR IGNORE INTO fact_sources VALUES (?, ?)", (fact_id, episode_id)
        ).rowcount
        if added:
            self._log(fact_id, "STRENGTHEN", f"stated again in memory {episode_id}", None)
        return bool(added)

    def close(self, fact_id: int, valid_to: datetime, reason: str) -> None:
        if not self._owns(fact_id):
            return
        self._db.execute(
            "UPDATE facts SET valid_to = ? WHERE id = ? AND namespace = ? AND valid_to IS NULL",
            (to_epoch(valid_to), fact_id, self._namespace),
        )
        self._log(fact_id, "CLOSE", reason, None)

    def retire(self, fact_id: int, reason: str, actor: str | None) -> None:
        """Retracted: out of recall and profile; its value is erased from the record."""
        if not self._owns(fact_id):
            return
        now = time.time()
        self._db.execute(
            "UPDATE facts SET retired_at = ?, value = '', value_key = '', statement = "
            "'(forgotten)', embedding = zeroblob(length(embedding)), "
            "own_embedding = zeroblob(length(own_embedding)) WHERE id = ? AND "
            "namespace = ?",
            (now, fact_id, self._namespace),
        )
        self._db.execute(
            "UPDATE fact_history SET detail = '(forgotten)' WHERE fact_id = ? AND namespace = ?",
            (fact_id, self._namespace),
        )
        self._log(fact_id, "FORGET", reason, actor, now)
        self._store._fact_vectors.pop(fact_id, None)

    def _log(
        self, fact_id: int, event: str, detail: str, actor: str | None, at: float | None = None
    ) -> None:
        self._db.execute(
            "INSERT INTO fact_history (namespace, fact_id, event, detail, at, actor) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (self._namespace, fact_id, event, detail, time.time() if at is None else at, actor),
        )


class FactTables(SQLiteConnection):
    """The fact, diary and job side of the store port."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # statement and own-words vectors by fact id (a fact's text never changes)
        self._fact_vectors: dict[int, tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = {}

    def _fact(self, row: sqlite3.Row | tuple[Any, ...]) -> Fact:
        return Fact(
            id=int(row[0]),
            subject=row[1],
            attribute=row[2],
            value=row[3],
            statement=row[4],
            category=row[5],
            priority=int(row[6]),
            audience=self._members_of(int(row[7])),
            strength=len(row[13].split(",")) if row[13] else 0,
            valid_from=from_epoch(row[8]),
            valid_to=None if row[9] is None else from_epoch(row[9]),
            recorded_at=from_epoch(row[10]),
            retired_at=None if row[11] is None else from_epoch(row[11]),
            sources=tuple(sorted(int(s) for s in row[13].split(","))) if row[13] else (),
            origin=row[12],
        )

    @contextmanager
    def fact_writer(self, namespace: str) -> Iterator[SQLiteFactWriter]:
        with self._write() as db:
            yield SQLiteFactWriter(self, db, namespace)

    def facts(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        subject: str | None = None,
        current_only: bool = True,
        ids: Sequence[int] | None = None,
    ) -> list[Fact]:
        where = ["f.namespace = ?", "f.retired_at IS NULL"]
        params: list[Any] = [namespace]
        with self._lock:
            if participants is not None:
                condition, values = self._audience_filter(namespace, participants, "f.audience_id")
                where.append(condition)
                params.extend(values)
            if subject is not None:
                where.append("f.subject = ?")
                params.append(subject)
            if current_only:
                where.append("f.valid_to IS NULL")
            if ids is not None:
                where.append(f"f.id IN ({placeholders(ids)})")
                params.extend(ids)
            rows = self._db.execute(
                f"SELECT {_FACT_COLUMNS} FROM facts f WHERE {' AND '.join(where)} "
                "ORDER BY f.priority DESC, f.valid_from, f.id",
                params,
            ).fetchall()
            return [self._fact(row) for row in rows]

    def fact_search(
        self,
        namespace: str,
        vector: npt.NDArray[np.float32],
        participants: Sequence[str],
        k: int,
        current_only: bool = True,
        asker: str | None = None,
    ) -> list[tuple[Fact, float]]:
        candidates = self.facts(namespace, participants=participants, current_only=current_only)
        if not candidates:
            return []
        pairs = [self._fact_vectors_of(f.id) for f in candidates]
        query = vector.astype(np.float32)
        scores = np.stack([pair[0] for pair in pairs]) @ query
        own = np.stack([pair[1] for pair in pairs]) @ query
        mine = np.array([f.subject == asker for f in candidates])
        scores = np.where(mine, np.maximum(scores, own), scores)
        order = np.argsort(-scores)[:k]
        return [(candidates[i], float(scores[i])) for i in order]

    def _fact_vectors_of(
        self, fact_id: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        pair = self._fact_vectors.get(fact_id)
        if pair is None:
            with self._lock:
                row = self._db.execute(
                    "SELECT embedding, own_embedding FROM facts WHERE id = ?", (fact_id,)
                ).fetchone()
            pair = (
                np.frombuffer(row[0], dtype=np.float32),
                np.frombuffer(row[1], dtype=np.float32),
            )
            self._fact_vectors[fact_id] = pair
        return pair

    def superseded_episodes(self, namespace: str, episode_ids: Sequence[int]) -> set[int]:
        """Episodes that stated facts, all of which are no longer current."""
        if not episode_ids:
            return set()
        with self._lock:
            rows = self._db.execute(
                "SELECT s.episode_id FROM fact_sources s JOIN facts f ON f.id = s.fact_id "
                f"WHERE s.episode_id IN ({placeholders(episode_ids)}) AND f.namespace = ? "
                "GROUP BY s.episode_id "
                "HAVING SUM(f.valid_to IS NULL AND f.retired_at IS NULL) = 0",
                (*episode_ids, namespace),
            )
            return {int(row[0]) for row in rows}

    def fact_history(self, namespace: str, fact_id: int) -> list[tuple[str, str, datetime]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT event, detail, at FROM fact_history WHERE namespace = ? AND fact_id = ? "
                "ORDER BY id",
                (namespace, fact_id),
            ).fetchall()
        if not rows:
            raise NotFound(f"no fact {fact_id} in namespace {namespace!r}")
        return [(row[0], row[1], from_epoch(row[2])) for row in rows]

    # -- diary --------------------------------------------------------------------------

    def _diary_entry(self, row: tuple[Any, ...]) -> DiaryEntry:
        return DiaryEntry(
            id=int(row[0]),
            kind=row[1],
            key=row[2],
            level=int(row[3]),
            text=row[4],
            start=from_epoch(row[5]),
            end=from_epoch(row[6]),
            audience=self._members_of(int(row[7])),
            sources=tuple(json.loads(row[8])),
            origin=row[9],
            created_at=from_epoch(row[10]),
        )

    def put_diary(self, namespace: str, new: NewDiaryEntry) -> DiaryEntry:
        """Write (or rewrite) the entry for its kind, key, level and audience."""
        with self._write() as db:
            audience_id = self._audience_id(db, namespace, new.audience)
            entry_id = db.execute(
                "INSERT INTO diary (namespace, kind, key, level, text, start, end, audience_id, "
                "sources, origin, created_at, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?) ON CONFLICT (namespace, kind, key, level, audience_id) DO UPDATE SET "
                "text = excluded.text, start = excluded.start, end = excluded.end, "
                "sources = excluded.sources, origin = excluded.origin, "
                "created_at = excluded.created_at, embedding = excluded.embedding, "
                "compressed_into = NULL RETURNING id",
                (
                    namespace,
                    new.kind,
                    new.key,
                    new.level,
                    new.text,
                    to_epoch(new.start),
                    to_epoch(new.end),
                    audience_id,
                    json.dumps(sorted(new.sources)),
                    new.origin,
                    time.time(),
                    new.vector.astype(np.float32).tobytes(),
                ),
            ).fetchone()[0]
            for covered in new.covers:
                db.execute(
                    "UPDATE diary SET compressed_into = ? WHERE id = ? AND namespace = ?",
                    (entry_id, covered, namespace),
                )
        return self.diary(namespace, ids=[int(entry_id)])[0]

    def diary(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        kind: str | None = None,
        uncompressed: bool = False,
        before: datetime | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[DiaryEntry]:
        where = ["namespace = ?"]
        params: list[Any] = [namespace]
        with self._lock:
            if participants is not None:
                condition, values = self._audience_filter(namespace, participants)
                where.append(condition)
                params.extend(values)
            if kind is not None:
                where.append("kind = ?")
                params.append(kind)
            if uncompressed:
                where.append("compressed_into IS NULL")
            if before is not None:
                where.append("end < ?")
                params.append(to_epoch(before))
            if ids is not None:
                where.append(f"id IN ({placeholders(ids)})")
                params.extend(ids)
            rows = self._db.execute(
                f"SELECT {_DIARY_COLUMNS} FROM diary WHERE {' AND '.join(where)} "
                "ORDER BY start, id",
                params,
            ).fetchall()
            return [self._diary_entry(row) for row in rows]

    def diary_vectors(self, namespace: str, ids: Sequence[int]) -> npt.NDArray[np.float32]:
        with self._lock:
            rows = dict(
                self._db.execute(
                    f"SELECT id, embedding FROM diary WHERE id IN ({placeholders(ids)}) "
                    "AND namespace = ?",
                    (*ids, namespace),
                ).fetchall()
            )
        return np.stack([np.frombuffer(rows[i], dtype=np.float32) for i in ids])

    # -- consolidation jobs -------------------------------------------------------------

    def job_position(self, namespace: str, job: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT position FROM job_cursors WHERE namespace = ? AND job = ?",
                (namespace, job),
            ).fetchone()
        return 0 if row is None else int(row[0])

    def set_job_position(self, namespace: str, job: str, position: int) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO job_cursors VALUES (?, ?, ?) ON CONFLICT (namespace, job) "
                "DO UPDATE SET position = max(position, excluded.position)",
                (namespace, job, position),
            )
