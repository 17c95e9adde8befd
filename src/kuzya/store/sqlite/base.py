"""The SQLite connection under the store: opening, migrations, write transactions,
audiences and the vector index kept in step with the change log.

Writes happen in `BEGIN IMMEDIATE` transactions, so several processes can write one
file; a batch is acknowledged only after its COMMIT returns.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.errors import InvalidInput, StoreError
from kuzya.store.sqlite.files import access, check_ours, store_error
from kuzya.store.sqlite.schema import migrate, stale
from kuzya.store.sqlite.vectors import VectorIndex

VISIBLE_KEPT = 4096  # sets of participants whose visible audiences are kept


def audience_key(members: Sequence[str]) -> str:
    return json.dumps(sorted(set(members)), ensure_ascii=False)


def placeholders(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


PER_AUDIENCE = 16  # up to this many visible audiences, the newest rows are read per audience


def newest_per_audience(
    db: sqlite3.Connection,
    sql: str,
    head: tuple[Any, ...],
    visible: Sequence[int],
    limit: int,
    key: Callable[[Any], Any],
) -> list[Any]:
    """The `limit` newest rows (by `key`) over the audiences, each audience's read by
    `sql` (parameters: *head, its id, limit) from an index that starts with it."""
    rows = [row for audience in visible for row in db.execute(sql, (*head, audience, limit))]
    return sorted(rows, key=key, reverse=True)[:limit]


def visible_audiences(
    db: sqlite3.Connection, namespace: str, participants: Sequence[str]
) -> list[int]:
    """Audiences that include every present participant (the privacy rule)."""
    present = sorted(set(participants))
    if not present:
        raise InvalidInput("recall needs the participants present (at least one)")
    rows = db.execute(
        "SELECT m.audience_id FROM audience_members m "
        "JOIN audiences a ON a.id = m.audience_id "
        f"WHERE a.namespace = ? AND m.participant IN ({placeholders(present)}) "
        "GROUP BY m.audience_id HAVING COUNT(*) = ?",
        (namespace, *present, len(present)),
    )
    return [int(row[0]) for row in rows]


def _retry_while_busy(action: Callable[[], None], timeout: float) -> None:
    """Run `action`, retrying while another process holds the file (while a new file is
    still in rollback-journal mode SQLite reports BUSY at once instead of waiting)."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            action()
            return
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.25)


class SQLiteConnection:
    """One SQLite file and what every part of the store shares. Thread-safe; one
    connection guarded by a lock."""

    def __init__(
        self,
        path: str | Path,
        *,
        durable: bool = True,
        timeout: float = 30.0,
        half_life_days: float = 30.0,
        create: bool = True,
        read_only: bool | None = None,
    ) -> None:
        """Open the store at `path` (":memory:" for one in memory). A missing file is
        created when `create` (its folder must exist); `read_only=None` opens read-only
        what cannot be written. Another application's file, or a newer Kuzya's store, is
        refused unchanged (`kuzya.store.sqlite.files`)."""
        self.path = Path(path)
        self.half_life = half_life_days * 86400.0  # of association weights, in seconds
        self.timeout = timeout
        if str(path) == ":memory:":
            uri, self.read_only = ":memory:", False
        else:
            opening = access(self.path, create=create, read_only=read_only)
            uri, self.read_only = opening.uri, opening.read_only
        try:
            self._db = sqlite3.connect(
                uri, isolation_level=None, check_same_thread=False, timeout=timeout, uri=True
            )
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from None
        try:
            check_ours(self._db, self.path)
            _retry_while_busy(lambda: self._prepare(durable), timeout)
        except sqlite3.Error as exc:
            self._db.close()
            raise store_error(exc, self.path) from None
        except StoreError:
            self._db.close()
            raise
        self._lock = threading.RLock()
        self._members: dict[int, frozenset[str]] = {}
        self._visible_for: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self._newest_audience: int | None = None
        self._vectors: VectorIndex | None = None

    def _prepare(self, durable: bool) -> None:
        self._db.execute("PRAGMA foreign_keys = ON")
        if self.read_only:
            self._db.execute("PRAGMA query_only = ON")
            if stale(self._db):
                raise StoreError(
                    f"store {self.path} needs an upgrade to this Kuzya's schema, which a "
                    "read-only open cannot make; open it once with write access"
                )
            return
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA secure_delete = ON")  # deleted text is overwritten
        migrate(self._db)

    # -- lifecycle and metadata -------------------------------------------------------

    @property
    def embedder_name(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return None if row is None else str(row[0])

    def bind_embedder(self, name: str, dim: int) -> None:
        """Tie the store to the embedder its vectors come from (recorded on first use; a
        read-only open only checks)."""
        rows = dict(
            self._db.execute("SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')")
        )
        if rows and (rows.get("embedder") != name or rows.get("dim") != str(dim)):
            raise InvalidInput(
                f"store {self.path} was built with embedder {rows.get('embedder')!r} "
                f"({rows.get('dim')}-d); open it with that embedder, or use a new store "
                f"for {name!r}"
            )
        if not rows and not self.read_only:
            with self._write() as db:
                db.execute(
                    "INSERT INTO meta VALUES ('embedder', ?), ('dim', ?) ON CONFLICT DO NOTHING",
                    (name, str(dim)),
                )
            self.bind_embedder(name, dim)  # another process may have bound it first
            return
        self._vectors = VectorIndex(dim)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back (nothing
        changed) when it raises."""
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; nothing was written")
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise store_error(exc, self.path) from exc
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:  # SQLite ends some failed ones by itself
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise store_error(exc, self.path) from exc
                raise

    # -- audiences ----------------------------------------------------------------------

    def _audience_id(self, db: sqlite3.Connection, namespace: str, members: Sequence[str]) -> int:
        key = audience_key(members)
        row = db.execute(
            "SELECT id FROM audiences WHERE namespace = ? AND key = ?", (namespace, key)
        ).fetchone()
        if row is not None:
            return int(row[0])
        audience_id = db.execute(
            "INSERT INTO audiences (namespace, key) VALUES (?, ?) RETURNING id", (namespace, key)
        ).fetchone()[0]
        db.executemany(
            "INSERT INTO audience_members VALUES (?, ?)",
            [(audience_id, member) for member in sorted(set(members))],
        )
        return int(audience_id)

    def _members_of(self, audience_id: int) -> frozenset[str]:
        members = self._members.get(audience_id)
        if members is None:
            members = frozenset(
                row[0]
                for row in self._db.execute(
                    "SELECT participant FROM audience_members WHERE audience_id = ?",
                    (audience_id,),
                )
            )
            self._members[audience_id] = members
        return members

    def _visible_audiences(self, namespace: str, participants: Sequence[str]) -> list[int]:
        """Audiences that include every present participant (the privacy rule), kept for
        the next call: an audience's members never change and audiences are never
        deleted, so the answers stay right until a new audience appears (its id is then
        the highest), and none is kept from inside a write transaction, whose new
        audiences may roll back."""
        with self._lock:
            newest = self._db.execute("SELECT MAX(id) FROM audiences").fetchone()[0]
            if newest != self._newest_audience:
                self._visible_for.clear()
                self._newest_audience = newest
            key = (namespace, tuple(sorted(set(participants))))
            found = self._visible_for.get(key)
            if found is None:
                found = visible_audiences(self._db, namespace, participants)
                if not self._db.in_transaction:
                    if len(self._visible_for) >= VISIBLE_KEPT:
                        self._visible_for.clear()
                    self._visible_for[key] = found
            return list(found)

    def _audience_filter(
        self, namespace: str, participants: Sequence[str], column: str = "audience_id"
    ) -> tuple[str, list[Any]]:
        """The privacy rule as a WHERE condition on `column`, with its parameters."""
        visible = self._visible_audiences(namespace, participants)
        return f"{column} IN ({placeholders(visible)})", list(visible)

    # -- vector index -------------------------------------------------------------------

    def _index(self) -> VectorIndex:
        if self._vectors is None:
            raise StoreError("bind_embedder must be called before storing or searching")
        return self._vectors

    def _sync(self) -> VectorIndex:
        """Apply the change log to the vector index (writes of any process)."""
        index = self._index()
        with self._lock:
            changes = self._db.execute(
                "SELECT l.seq, l.namespace, l.episode_id, l.op, e.audience_id, e.embedding "
                "FROM vector_log l LEFT JOIN episodes e ON e.id = l.episode_id "
                "WHERE l.seq > ? ORDER BY l.seq",
                (index.last_seq,),
            ).fetchall()
        index.apply(changes)
        return index

    def vector_of(self, namespace: str, ids: Sequence[int]) -> dict[int, npt.NDArray[np.float32]]:
        return self._sync().vectors(namespace, ids)

    def purge(self) -> None:
        """Afterwards no file of the store holds text of forgotten memories.

        The full-text index only marks deleted rows (the words stay in its old segments,
        and the marks repeat them) until its segments are merged into one; the WAL keeps
        old page images until it is checkpointed and truncated. A reader holding an older
        snapshot may still need those pages: the checkpoint waits for it within the busy
        timeout, and fails with StoreError if it cannot finish.
        """
        try:
            with self._write() as db:
                db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')")
        except StoreError as exc:
            raise self._not_purged(str(exc)) from exc
        self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it to zero bytes."""
        with self._lock:
            try:
                busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.OperationalError as exc:
                raise self._not_purged(str(exc)) from exc
        if busy:
            raise self._not_purged(
                "another connection kept reading an older snapshot, or writing, past the busy "
                "timeout"
            )

    def _not_purged(self, reason: str) -> StoreError:
        return StoreError(
            f"forgotten text may remain in the files of {self.path}: {reason}; compact() or "
            "the next forgetting purges it once that connection is done"
        )

    def compact(self) -> None:
        """Purge, then rewrite the whole file to reclaim the space of deleted rows."""
        self.purge()
        with self._lock:
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rewritten pages
