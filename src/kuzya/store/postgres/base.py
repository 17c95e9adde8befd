"""The PostgreSQL connection under the store: opening, migrations, write transactions
under an advisory lock, the vector table, and purging what was forgotten.

Writes happen in transactions that first take one advisory lock per database, as
SQLite's `BEGIN IMMEDIATE` takes the file's write lock: the read-then-write steps of
the relational code (a new entity's sense, an association's weight) see no other
writer. Readers never wait for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from pgvector.psycopg import register_vector

from kuzya.errors import StoreError
from kuzya.store.opening import shown
from kuzya.store.postgres import schema
from kuzya.store.postgres.connection import Connection, store_error
from kuzya.store.sql.tables import Tables

WRITE_LOCK = 0x4B757A77  # advisory lock key of write transactions
# Tables whose rows hold words of messages: rewritten by purge, so that the words of
# deleted rows do not stay in dead tuples on disk.
_WORDS = ("episodes", "history", "claims", "diary", "postings", "term_stats",
          "entity_aliases", "mentions", "entities", "conversations", "audience_members",
          "audiences")  # fmt: skip


class PostgresConnection(Tables):
    """One PostgreSQL database and what every part of the store shares. Thread-safe;
    one connection guarded by a lock (open one store per thread for parallel work)."""

    _db: Connection

    def __init__(self, url: str, *, timeout: float = 30.0, half_life_days: float = 30.0) -> None:
        super().__init__(half_life_days)
        self.location = shown(url)
        self.read_only = False
        try:
            self._db = Connection(url, timeout)
        except psycopg.Error as exc:
            raise store_error(exc, self.location) from None
        try:
            schema.migrate(self._db.raw)
            register_vector(self._db.raw)
        except psycopg.Error as exc:
            self._db.close()
            raise store_error(exc, self.location) from None

    def _bound(self, dim: int) -> None:
        with self._lock, self._db.raw.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(?)", (schema.MIGRATION_LOCK,))
            schema.vectors(self._db.raw, dim)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._lock:
            try:
                with self._db.raw.transaction():
                    self._db.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
                    yield self._db
            except psycopg.Error as exc:
                raise store_error(exc, self.location) from exc

    def purge(self) -> None:
        """Afterwards no table file holds text of forgotten memories: the tables with
        words are rewritten (VACUUM FULL, which waits for their readers), and a
        checkpoint lets the server recycle the WAL that held them. Copies outside this
        server (WAL archives, replicas' lag, base backups) are the operator's."""
        with self._lock:
            try:
                self._db.execute(f"VACUUM (FULL) {', '.join(_WORDS)}")
                self._db.execute("CHECKPOINT")
            except psycopg.errors.InsufficientPrivilege as exc:
                raise StoreError(
                    f"forgotten text may remain on disk in {self.location}: {exc}; a role "
                    "that owns the tables (and may CHECKPOINT) must purge"
                ) from exc

    def compact(self) -> None:
        """Purge, then refresh the planner's statistics."""
        self.purge()
        with self._lock:
            self._db.execute("ANALYZE")
