"""What an operator runs on a store file: `check` (is it whole, do its indexes and
derived rows agree with the messages they come from) and `backup` (a consistent copy
while writers go on)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from kuzya.errors import InvalidInput
from kuzya.store.sqlite.base import SQLiteConnection


@dataclass(frozen=True)
class Finding:
    """One check: how many rows (or pages) are wrong, and the first problem seen."""

    check: str
    problems: int
    detail: str = ""


# (check, SQL counting the rows that break it): derived rows must point at live sources
_ORPHANS = (
    ("messages without a full-text row",
     "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes_fts f WHERE f.rowid = e.id)"),
    ("full-text rows without a message",
     "SELECT COUNT(*) FROM episodes_fts f WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = f.rowid)"),
    ("messages never logged for the vector index",
     "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
     "(SELECT 1 FROM vector_log l WHERE l.episode_id = e.id AND l.op = 'put')"),
    ("rows whose audience is missing",
     "SELECT (SELECT COUNT(*) FROM episodes WHERE audience_id NOT IN (SELECT id FROM audiences))"
     " + (SELECT COUNT(*) FROM claims WHERE audience_id NOT IN (SELECT id FROM audiences))"
     " + (SELECT COUNT(*) FROM diary WHERE audience_id NOT IN (SELECT id FROM audiences))"),
    ("audiences without members",
     "SELECT COUNT(*) FROM audiences a WHERE NOT EXISTS "
     "(SELECT 1 FROM audience_members m WHERE m.audience_id = a.id)"),
    ("claims of deleted messages",
     "SELECT COUNT(*) FROM claims c WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = c.episode_id)"),
    ("mentions in deleted messages",
     "SELECT COUNT(*) FROM mentions m WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = m.episode_id)"),
    ("aliases taught by deleted messages",
     "SELECT COUNT(*) FROM entity_aliases a WHERE a.episode_id != 0 AND NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = a.episode_id)"),
    ("replies derived from deleted messages",
     "SELECT COUNT(*) FROM derivations d WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = d.source_id) OR NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = d.episode_id)"),
    ("diary entries citing deleted messages",
     "SELECT COUNT(DISTINCT s.diary_id) FROM diary_sources s WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = s.episode_id)"),
)  # fmt: skip


class Operations(SQLiteConnection):
    """Checks and backups of the whole file (every namespace)."""

    def check(self) -> list[Finding]:
        """Every check with the number of problems it found (0: fine); a check that
        cannot read what it checks counts as one problem, with SQLite's words."""
        checks: list[tuple[str, Callable[[], tuple[int, str]]]] = [
            ("file integrity (pages, b-trees, indexes)", self._integrity),
            *((name, partial(self._count, sql)) for name, sql in _ORPHANS),
            ("vectors of the store's dimension", self._vector_sizes),
        ]
        if not self.read_only:  # FTS5's check runs as an INSERT, though it writes nothing
            checks.append(("full-text index against its rows", self._full_text))
        findings = []
        with self._session:
            for name, run in checks:
                try:
                    findings.append(Finding(name, *run()))
                except sqlite3.DatabaseError as exc:
                    findings.append(Finding(name, 1, str(exc)))
        return findings

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

    def _count(self, sql: str) -> tuple[int, str]:
        return int(self._db.execute(sql).fetchone()[0]), ""

    def _vector_sizes(self) -> tuple[int, str]:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()
        if row is None:
            return 0, ""
        size = 4 * int(row[0])
        wrong = sum(
            int(self._db.execute(f"SELECT COUNT(*) FROM {table} WHERE length({column}) != ?",
                                 (size,)).fetchone()[0])
            for table, column in (("episodes", "embedding"), ("claims", "embedding"),
                                  ("claims", "own_embedding"), ("diary", "embedding"))
        )  # fmt: skip
        return wrong, ""

    def _full_text(self) -> tuple[int, str]:
        self._db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('integrity-check')")
        return 0, ""
