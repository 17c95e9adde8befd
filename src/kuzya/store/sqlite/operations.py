"""What an operator runs on a store file: `check` (is it whole, do its indexes and
derived rows agree with the messages they come from; `kuzya.store.sql.checks`) and
`backup` (a consistent copy while writers go on)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from kuzya.errors import InvalidInput
from kuzya.store.sql.checks import Check, Checks
from kuzya.store.sqlite.base import SQLiteConnection

# (check, SQL counting the rows that break it): the full-text and vector indexes
_INDEXES = (
    ("messages without a full-text row",
     "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes_fts f WHERE f.rowid = e.id)"),
    ("full-text rows without a message",
     "SELECT COUNT(*) FROM episodes_fts f WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = f.rowid)"),
    ("messages never logged for the vector index",
     "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
     "(SELECT 1 FROM vector_log l WHERE l.episode_id = e.id AND l.op = 'put')"),
)  # fmt: skip


class Operations(Checks, SQLiteConnection):
    """Checks and backups of the whole file (every namespace)."""

    _failure = sqlite3.DatabaseError

    def _index_checks(self) -> Sequence[Check]:
        checks: list[Check] = [
            ("file integrity (pages, b-trees, indexes)", self._integrity),
            *((name, partial(self._count, sql)) for name, sql in _INDEXES),
        ]
        if not self.read_only:  # FTS5's check runs as an INSERT, though it writes nothing
            checks.append(("full-text index against its rows", self._full_text))
        return checks

    def backup(self, destination: Path) -> int:
        """Copy the store to `destination` (a new file) with SQLite's online backup: one
        consistent snapshot while other connections write; returns its size in bytes."""
        if destination.exists():
            raise InvalidInput(f"{destination} exists; a backup never overwrites a file")
        if not destination.parent.is_dir():
            raise InvalidInput(f"folder {destination.parent} does not exist")
        partial_copy = destination.with_name(f".{destination.name}.partial")
        target = sqlite3.connect(partial_copy)
        try:
            with self._session:
                self._db.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            target.close()
            partial_copy.replace(destination)
        except BaseException:
            target.close()
            partial_copy.unlink(missing_ok=True)
            raise
        return destination.stat().st_size

    def _integrity(self) -> tuple[int, str]:
        rows = [row[0] for row in self._db.execute("PRAGMA integrity_check")]
        return (0, "") if rows == ["ok"] else (len(rows), rows[0])

    def _full_text(self) -> tuple[int, str]:
        self._db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('integrity-check')")
        return 0, ""
