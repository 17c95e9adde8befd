"""Claims, diary entries, job positions, the sleep clock and leases of the SQLite store."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.errors import InvalidInput
from kuzya.model import DiaryEntry
from kuzya.store.base import NewClaim, NewDiaryEntry, StoredClaim
from kuzya.store.sqlite.base import SQLiteConnection, placeholders

_CLAIM_COLUMNS = (
    "id, episode_id, subject, attribute, value, value_key, negated, statement, said_at, "
    "audience_id, origin, recorded_at, emphatic"
)
_DIARY_COLUMNS = "id, kind, key, level, text, start, end, audience_id, sources, origin, created_at"
Vectors = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


def bump(db: sqlite3.Connection, namespace: str, name: str) -> None:
    """Move a namespace's version counter on (see `claims_version`)."""
    db.execute(
        "INSERT INTO versions VALUES (?, ?, 1) ON CONFLICT (namespace, name) "
        "DO UPDATE SET value = value + 1",
        (namespace, name),
    )


def forget_claims(
    db: sqlite3.Connection,
    namespace: str,
    where: str,
    params: Sequence[Any],
    reason: str,
    actor: str | None,
) -> int:
    """Delete the namespace's claims matching `where`, each leaving a record without its
    words (also used when their episode is deleted)."""
    rows = db.execute(
        f"SELECT id, attribute, audience_id FROM claims WHERE namespace = ? AND {where}",
        (namespace, *params),
    ).fetchall()
    if not rows:
        return 0
    now = time.time()
    db.executemany(
        "INSERT INTO forgotten_facts (namespace, claim_id, attribute, audience_id, reason, at, "
        "actor) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(namespace, r[0], r[1], r[2], reason, now, actor) for r in rows],
    )
    ids = [int(r[0]) for r in rows]
    db.execute(f"DELETE FROM claims WHERE id IN ({placeholders(ids)})", ids)
    bump(db, namespace, "claims")
    return len(ids)


class FactTables(SQLiteConnection):
    """The claim, diary and job side of the store port."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._claim_vectors: dict[int, Vectors] = {}  # a claim's words never change

    def _claim(self, row: tuple[Any, ...]) -> StoredClaim:
        return StoredClaim(
            id=int(row[0]),
            episode_id=int(row[1]),
            subject=row[2],
            attribute=row[3],
            value=row[4],
            value_key=row[5],
            negated=bool(row[6]),
            statement=row[7],
            said_at=from_epoch(row[8]),
            audience=self._members_of(int(row[9])),
            origin=row[10],
            recorded_at=from_epoch(row[11]),
            emphatic=bool(row[12]),
        )

    def add_claims(self, namespace: str, claims: Sequence[NewClaim]) -> int:
        if not claims:
            return 0
        now, added = time.time(), 0
        with self._write() as db:
            for claim in claims:
                episode = db.execute(
                    "SELECT said_at, audience_id FROM episodes WHERE id = ? AND namespace = ?",
                    (claim.episode_id, namespace),
                ).fetchone()
                if episode is None:
                    raise InvalidInput(
                        f"no memory {claim.episode_id} in namespace {namespace!r} to claim from"
                    )
                added += db.execute(
                    "INSERT OR IGNORE INTO claims (namespace, episode_id, subject, attribute, "
                    "value, value_key, negated, statement, said_at, audience_id, origin, "
                    "recorded_at, embedding, own_embedding, emphatic) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        namespace,
                        claim.episode_id,
                        claim.subject,
                        claim.attribute,
                        claim.value,
                        claim.value_key,
                        int(claim.negated),
                        claim.statement,
                        episode[0],
                        episode[1],
                        claim.origin,
                        now if claim.recorded_at is None else to_epoch(claim.recorded_at),
                        claim.vector.astype(np.float32).tobytes(),
                        claim.own_vector.astype(np.float32).tobytes(),
                        int(claim.emphatic),
                    ),
                ).rowcount
            if added:
                bump(db, namespace, "claims")
        return added

    def claims(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None,
        subject: str | None = None,
        episodes: Sequence[int] | None = None,
    ) -> list[StoredClaim]:
        where: list[str] = ["namespace = ?"]
        params: list[Any] = [namespace]
        with self._lock:
            if participants is not None:
                condition, values = self._audience_filter(namespace, participants)
                where.append(condition)
                params.extend(values)
            if subject is not None:
                where.append("subject = ?")
                params.append(subject)
            if episodes is not None:
                where.append(f"episode_id IN ({placeholders(episodes)})")
                params.extend(episodes)
            rows = self._db.execute(
                f"SELECT {_CLAIM_COLUMNS} FROM claims WHERE {' AND '.join(where)} "
                "ORDER BY said_at, episode_id, id",
                params,
            ).fetchall()
            return [self._claim(row) for row in rows]

    def claim_vectors(self, namespace: str, ids: Sequence[int]) -> dict[int, Vectors]:
        missing = [i for i in ids if i not in self._claim_vectors]
        if missing:
            with self._lock:
                rows = self._db.execute(
                    "SELECT id, embedding, own_embedding FROM claims WHERE namespace = ? AND "
                    f"id IN ({placeholders(missing)})",
                    (namespace, *missing),
                ).fetchall()
            for claim_id, vector, own in rows:
                self._claim_vectors[int(claim_id)] = (
                    np.frombuffer(vector, dtype=np.float32),
                    np.frombuffer(own, dtype=np.float32),
                )
        return {i: self._claim_vectors[i] for i in ids if i in self._claim_vectors}

    def forget_claims(
        self, namespace: str, ids: Sequence[int], reason: str, actor: str | None
    ) -> int:
        if not ids:
            return 0
        with self._write() as db:
            done = forget_claims(db, namespace, f"id IN ({placeholders(ids)})", ids, reason, actor)
        for claim_id in ids:
            self._claim_vectors.pop(claim_id, None)
        return done

    def forgotten(
        self, namespace: str, claim_id: int, participants: Sequence[str] | None
    ) -> list[tuple[str, str, datetime]]:
        where, params = "namespace = ? AND claim_id = ?", [namespace, claim_id]
        with self._lock:
            if participants is not None:
                condition, values = self._audience_filter(namespace, participants)
                where += f" AND {condition}"
                params.extend(values)
            rows = self._db.execute(
                f"SELECT reason, at FROM forgotten_facts WHERE {where} ORDER BY id", params
            ).fetchall()
        return [("FORGET", row[0], from_epoch(row[1])) for row in rows]

    def claims_version(self, namespace: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM versions WHERE namespace = ? AND name = 'claims'", (namespace,)
            ).fetchone()
        return 0 if row is None else int(row[0])

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
                    time.time() if new.created_at is None else to_epoch(new.created_at),
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
        covering: Sequence[int] | None = None,
        compressed_into: int | None = None,
    ) -> list[DiaryEntry]:
        where = ["namespace = ?"]
        params: list[Any] = [namespace]
        with self._lock:
            if covering is not None:
                where.append(
                    "EXISTS (SELECT 1 FROM json_each(sources) WHERE value IN "
                    f"({placeholders(covering)}))"
                )
                params.extend(covering)
            if compressed_into is not None:
                where.append("compressed_into = ?")
                params.append(compressed_into)
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
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT s.value FROM diary d, json_each(d.sources) s "
                "LEFT JOIN episodes e ON e.id = s.value WHERE d.namespace = ? "
                "AND (e.id IS NULL OR e.updated_at > d.created_at) ORDER BY s.value",
                (namespace,),
            ).fetchall()
        return [int(row[0]) for row in rows]

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

    def sleep_clock(self, namespace: str) -> datetime | None:
        with self._lock:
            row = self._db.execute(
                "SELECT now FROM sleep_clock WHERE namespace = ?", (namespace,)
            ).fetchone()
        return None if row is None else from_epoch(row[0])

    def set_sleep_clock(self, namespace: str, now: datetime) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO sleep_clock VALUES (?, ?) ON CONFLICT (namespace) "
                "DO UPDATE SET now = max(now, excluded.now)",
                (namespace, to_epoch(now)),
            )

    def take_lease(self, namespace: str, name: str, holder: str, seconds: float) -> str | None:
        now = time.time()
        with self._write() as db:
            row = db.execute(
                "SELECT holder, host, pid, expires_at FROM leases WHERE namespace = ? AND name = ?",
                (namespace, name),
            ).fetchone()
            if row is not None and row[0] != holder and row[3] > now and _alive(row[1], row[2]):
                return f"pid {row[2]} on {row[1]}"
            db.execute(
                "INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?, ?)",
                (namespace, name, holder, socket.gethostname(), os.getpid(), now + seconds),
            )
        return None

    def release_lease(self, namespace: str, name: str, holder: str) -> None:
        with self._write() as db:
            db.execute(
                "DELETE FROM leases WHERE namespace = ? AND name = ? AND holder = ?",
                (namespace, name, holder),
            )


def _alive(host: str, pid: int) -> bool:
    """Whether the process may still run: on another host it cannot be told."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
