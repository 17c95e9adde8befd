"""The shared store: PostgreSQL with pgvector, for many processes and users.

`kuzya.open("postgresql://…")`, `--db postgresql://…` or `KUZYA_DATABASE_URL` select it;
the schema is made on first open. The relational code is the SQLite store's
(`kuzya.store.sql`); search is PostgreSQL's own (`kuzya.store.postgres.search`).
"""

from __future__ import annotations

from typing import Any

from kuzya.store.postgres.checks import PostgresChecks
from kuzya.store.postgres.connection import one_line_errors
from kuzya.store.postgres.search import PostgresSearch
from kuzya.store.sql.claims import ClaimTables
from kuzya.store.sql.diary import DiaryTables
from kuzya.store.sql.entities import EntityTables
from kuzya.store.sql.jobs import JobTables
from kuzya.store.sql.keys import KeyTables
from kuzya.store.sql.transfer import TransferTables


@one_line_errors
class PostgresStore(
    PostgresSearch,
    PostgresChecks,
    TransferTables,
    EntityTables,
    ClaimTables,
    DiaryTables,
    JobTables,
    KeyTables,
):
    """Store port over one PostgreSQL database (with the `vector` extension). Every
    PostgreSQL failure leaves its methods as a one-line `StoreError`."""

    def stats(self, namespace: str) -> dict[str, Any]:
        with self._session:
            size = self._db.execute("SELECT pg_database_size(current_database())").fetchone()
        return {**super().stats(namespace), "database": self.location, "bytes": int(size[0])}
