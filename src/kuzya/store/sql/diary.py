"""Diary entries of the SQLite store."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.model import DiaryEntry
from kuzya.store.base import NewDiaryEntry
from kuzya.store.sql.tables import Tables, placeholders

_DIARY_COLUMNS = (
    'id, kind, key, level, text, start, "end", audience_id, sources, origin, created_at'
)


class DiaryTables(Tables):
    """The diary side of the store port."""

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
                'INSERT INTO diary (namespace, kind, key, level, text, start, "end", '
                "audience_id, sources, origin, created_at, embedding) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (namespace, kind, key, level, audience_id) DO UPDATE SET "
                'text = excluded.text, start = excluded.start, "end" = excluded."end", '
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
                    time.time() if new.created_at is None else to_epoch(new.created_at),
                    new.vector.astype(np.float32).tobytes(),
                ),
            ).fetchone()[0]
            db.execute("DELETE FROM diary_sources WHERE diary_id = ?", (entry_id,))
            db.executemany(
                "INSERT INTO diary_sources VALUES (?, ?)",
                [(entry_id, source) for source in sorted(set(new.sources))],
            )
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
        covering: Sequence[int] | None = None,
        compressed_into: int | None = None,
    ) -> list[DiaryEntry]:
        with self._session:
            where, params = self._visible_rows(namespace, participants)
            if covering is not None:
                where.append(
                    "id IN (SELECT diary_id FROM diary_sources WHERE episode_id IN "
                    f"({placeholders(covering)}))"
                )
                params.extend(covering)
            if compressed_into is not None:
                where.append("compressed_into = ?")
                params.append(compressed_into)
            if kind is not None:
                where.append("kind = ?")
                params.append(kind)
            if uncompressed:
                where.append("compressed_into IS NULL")
            if before is not None:
                where.append('"end" < ?')
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

    def delete_diary(self, namespace: str, ids: Sequence[int]) -> None:
        if not ids:
            return
        with self._write() as db:
            db.execute(
                f"DELETE FROM diary WHERE namespace = ? AND id IN ({placeholders(ids)})",
                (namespace, *ids),
            )
            db.execute(
                "UPDATE diary SET compressed_into = NULL WHERE namespace = ? AND "
                f"compressed_into IN ({placeholders(ids)})",
                (namespace, *ids),
            )

    def stale_diary_sources(self, namespace: str) -> list[int]:
        with self._session:
            rows = self._db.execute(
                "SELECT DISTINCT s.episode_id FROM diary d "
                "JOIN diary_sources s ON s.diary_id = d.id "
                "LEFT JOIN episodes e ON e.id = s.episode_id WHERE d.namespace = ? "
                "AND (e.id IS NULL OR e.updated_at > d.created_at) ORDER BY s.episode_id",
                (namespace,),
            ).fetchall()
        return [int(row[0]) for row in rows]

    def diary_vectors(self, namespace: str, ids: Sequence[int]) -> npt.NDArray[np.float32]:
        with self._session:
            rows = dict(
                self._db.execute(
                    f"SELECT id, embedding FROM diary WHERE id IN ({placeholders(ids)}) "
                    "AND namespace = ?",
                    (*ids, namespace),
                ).fetchall()
            )
        return np.stack([np.frombuffer(rows[i], dtype=np.float32) for i in ids])
