"""The SQLite connection under the store: opening, migrations, write transactions,
audiences and the vector index kept in step with the change log.

Writes happen in `BEGIN IMMEDIATE` transactions, so several processes can write one
file; a batch is acknowledged only after its COMMIT returns.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kuzya.errors import StoreError
from kuzya.store.sql.tables import Tables
from kuzya.store.sqlite.files import access, check_ours, store_error
from kuzya.store.sqlite.schema import migrate, stale
from kuzya.store.sqlite.vectors import VectorIndex


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


class SQLiteConnection(Tables):
    """One SQLite file and what every part of the store shares. Thread-safe; one
    connection guarded by a lock."""

    _db: sqlite3.Connection

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
        super().__init__(half_life_days)
        self.path = Path(path)
        self.location = str(path)
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

    # -- lifecycle ---------------------------------------------------------------------

    def _bound(self, dim: int) -> None:
        self._vectors = VectorIndex(dim)

    def close(self) -> None:
        with self._session:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back (nothing
        changed) when it raises."""
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; nothing was written")
        with self._session:
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

    # -- vector index -------------------------------------------------------------------

    def _index(self) -> VectorIndex:
        if self._vectors is None:
            raise StoreError("bind_embedder must be called before storing or searching")
        return self._vectors

    def _sync(self) -> VectorIndex:
        """Apply the change log to the vector index (writes of any process)."""
        index = self._index()
        with self._session:
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
        with self._session:
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
        with self._session:
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rewritten pages
