"""The schema of a store file: the migrations in order, the header's mark, and applying
those not yet applied."""

from __future__ import annotations

import sqlite3
import time

from kuzya.store.sqlite.migrations import MIGRATIONS

APPLICATION_ID = 0x4B757A79  # "Kuzy": SQLite's header says the file is a Kuzya store
SCHEMA_VERSION = len(MIGRATIONS)  # kept in the header's user_version


def stale(db: sqlite3.Connection) -> bool:
    """Whether the store lacks migrations or the header's mark."""
    return bool(
        db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION
        or db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID
    )


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded, each in its own transaction that also
    stamps the header (application id, user_version = migrations applied); returns the
    names applied now. A store already up to date is only read."""
    if not stale(db):
        return []
    applied = []
    for number, migration in enumerate(MIGRATIONS, start=1):
        name = migration.__name__
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS migrations "
                "(name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            # another process may have applied it meanwhile
            if not db.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                migration(db)
                db.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))
                applied.append(name)
            if db.execute("PRAGMA user_version").fetchone()[0] < number:
                db.execute(f"PRAGMA user_version = {number}")
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return applied
