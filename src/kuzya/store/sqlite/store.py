"""The embedded store: one SQLite file (WAL), FTS5 full text, exact vector search.

Writes happen in `BEGIN IMMEDIATE` transactions, so several processes can write one
file; a batch is acknowledged only after its COMMIT returns.
"""

from __future__ import annotations

from typing import Any

from kuzya.store.sql.claims import ClaimTables
from kuzya.store.sql.diary import DiaryTables
from kuzya.store.sql.entities import EntityTables
from kuzya.store.sql.jobs import JobTables
from kuzya.store.sql.keys import KeyTables
from kuzya.store.sql.transfer import TransferTables
from kuzya.store.sqlite.files import one_line_errors, store_files
from kuzya.store.sqlite.operations import Operations
from kuzya.store.sqlite.search import SearchTables


@one_line_errors
class SQLiteStore(
    SearchTables,
    Operations,
    TransferTables,
    EntityTables,
    ClaimTables,
    DiaryTables,
    JobTables,
    KeyTables,
):
    """Store port over one SQLite file. Thread-safe; one connection guarded by a lock.
    Every SQLite failure leaves its methods as a one-line `StoreError`."""

    def stats(self, namespace: str) -> dict[str, Any]:
        return {
            **super().stats(namespace),
            "path": str(self.path),
            "bytes": sum(p.stat().st_size for p in store_files(self.path) if p.exists()),
        }
