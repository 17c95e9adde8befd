"""The PostgreSQL connection under the store: opening, migrations, write transactions
under an advisory lock, the vector table, and purging what was forgotten.

Writes happen in transactions that first take one advisory lock per database, as
SQLite's `BEGIN IMMEDIATE` takes the file's write lock: the read-then-write steps of
the relational code (a new entity's sense, an association's weight) see no other
writer. Readers never wait for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import PoolTimeout

from kuzya.errors import StoreError
from kuzya.store.opening import shown
from kuzya.store.postgres import schema
from kuzya.store.postgres.connection import Connection, Pooled, connect, store_error
from kuzya.store.sql.tables import Tables

WRITE_LOCK = 0x4B757A77  # advisory lock key of write transactions
POOL_SIZE = 8  # connections a store opens at most (one per thread working at once)
# Tables whose rows hold words of messages: rewritten by purge, so that the words of
# deleted rows do not stay in dead tuples on disk.
_WORDS = ("episodes", "history", "claims", "diary", "postings", "term_stats",
          "entity_aliases", "mentions", "entities", "conversations", "audience_members",
          "audiences")  # fmt: skip


def configured(durable: bool) -> Callable[[psycopg.Connection[Any]], None]:
    """How each new connection is set up: pgvector's type, and with `durable=False` a
    commit that does not wait for the WAL to reach the disk (a crash of the server may
    lose the last commits, never corrupt; bulk imports, benchmarks)."""

    def configure(connection: psycopg.Connection[Any]) -> None:
        register_vector(connection)
        if not durable:
            connection.execute("SET synchronous_commit = off")

    return configure


class PostgresConnection(Tables):
    """One PostgreSQL database and what every part of the store shares. Thread-safe:
    each thread works on its own connection from a pool of up to `pool_size`, so
    readers run in parallel and writers queue on the advisory lock."""

    _db: Pooled

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        half_life_days: float = 30.0,
        pool_size: int = POOL_SIZE,
        durable: bool = True,
        create: bool = True,
    ) -> None:
        super().__init__(half_life_days)
        self.location = shown(url)
        self.read_only = False
        try:
            with connect(url, timeout) as first:  # the schema first: the pool needs `vector`
                made = first.execute("SELECT to_regclass('migrations')").fetchone()
                if not create and (made is None or made[0] is None):
                    raise StoreError(
                        f"no store in {self.location} (nothing was created; kuzya remember "
                        "or kuzya import creates one)"
                    )
                schema.migrate(first)
            self._db = Pooled(url, size=pool_size, timeout=timeout, configure=configured(durable))
        except (psycopg.Error, PoolTimeout) as exc:
            raise store_error(exc, self.location) from None
        self._session = self._db

    def _bound(self, dim: int) -> None:
        with self._session, self._db.raw.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(?)", (schema.MIGRATION_LOCK,))
            schema.vectors(self._db.raw, dim)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._session as db:
            try:
                with db.raw.transaction():
                    db.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
                    yield db
            except psycopg.Error as exc:
                raise store_error(exc, self.location) from exc

    def purge(self) -> None:
        """Afterwards no table file holds text of forgotten memories: the tables with
        words are rewritten (VACUUM FULL, which waits for their readers), and a
        checkpoint lets the server recycle the WAL that held them. Copies outside this
        server (WAL archives, replicas' lag, base backups) are the operator's."""
        with self._session:
            try:
                self._db.execute(f"VACUUM (FULL) {', '.join(_WORDS)}")
                self._db.execute("CHECKPOINT")
            except psycopg.errors.InsufficientPrivilege as exc:
                raise StoreError(
                    f"forgotten text may remain on disk in {self.location}: {exc}; a role "
                    "that owns the tables (and may CHECKPOINT) must purge"
                ) from exc

    def compact(self) -> None:
        """Purge, rewrite the vectors (each row in one piece, in line), then refresh the
        planner's statistics."""
        self.purge()
        with self._session:
            if self._db.execute("SELECT to_regclass('vectors')").fetchone()[0] is not None:
                self._db.execute("VACUUM (FULL) vectors")
            self._db.execute("ANALYZE")
