"""Claims of the SQLite store, and what is forgotten of them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.errors import InvalidInput
from kuzya.store.base import NewClaim, StoredClaim
from kuzya.store.sql.tables import Connection, Tables, placeholders

_CLAIM_COLUMNS = (
    "id, episode_id, subject, attribute, value, value_key, negated, statement, said_at, "
    "audience_id, origin, recorded_at, emphatic"
)
Vectors = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


def bump(db: Connection, namespace: str, name: str) -> None:
    """Move a namespace's version counter on (see `claims_version`)."""
    db.execute(
        "INSERT INTO versions VALUES (?, ?, 1) ON CONFLICT (namespace, name) "
        "DO UPDATE SET value = versions.value + 1",
        (namespace, name),
    )


def forget_claims(
    db: Connection,
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


class ClaimTables(Tables):
    """The claim side of the store port."""

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
                    "INSERT INTO claims (namespace, episode_id, subject, attribute, "
                    "value, value_key, negated, statement, said_at, audience_id, origin, "
                    "recorded_at, embedding, own_embedding, emphatic) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
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
        with self._session:
            where, params = self._visible_rows(namespace, participants)
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
            with self._session:
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
        with self._session:
            where, params = self._visible_rows(namespace, participants)
            rows = self._db.execute(
                f"SELECT reason, at FROM forgotten_facts WHERE {' AND '.join(where)} "
                "AND claim_id = ? ORDER BY id",
                (*params, claim_id),
            ).fetchall()
        return [("FORGET", row[0], from_epoch(row[1])) for row in rows]

    def claims_version(self, namespace: str) -> int:
        with self._session:
            row = self._db.execute(
                "SELECT value FROM versions WHERE namespace = ? AND name = 'claims'", (namespace,)
            ).fetchone()
        return 0 if row is None else int(row[0])
