"""Opening a file as a Kuzya store without harming what it is, and SQLite's failures
told as one line each.

A Kuzya store says so in its header: SQLite's `application_id` is `APPLICATION_ID` and
its `user_version` the number of migrations applied. A file is read before anything is
written to it, and refused, unchanged, when it is not SQLite, when it is another
application's database, or when a newer Kuzya wrote it. Stores from before the mark
(application id 0, Kuzya's `migrations` table) are ours and get the mark on their next
write.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from kuzya.errors import StoreError
from kuzya.store.sql.tables import translating_errors
from kuzya.store.sqlite.migrations import MIGRATIONS
from kuzya.store.sqlite.schema import APPLICATION_ID, SCHEMA_VERSION

_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Access:
    """How to open the file: SQLite's URI, and whether it is opened read-only."""

    uri: str
    read_only: bool


def access(path: Path, *, create: bool, read_only: bool | None) -> Access:
    """How `path` can be opened, or a StoreError saying why not; nothing is created here.

    A missing file is created later only when `create`; its folder must exist. With
    `read_only=None` a file that cannot be written, or whose folder cannot be (SQLite's
    WAL needs files beside it), is opened read-only.
    """
    if "\x00" in str(path):
        raise StoreError(f"store path {str(path)!r} contains a NUL character")
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a store file")
    folder = path.parent
    if not path.exists():
        if read_only:
            raise StoreError(f"no store at {path}, and a read-only open creates none")
        if not create:
            raise StoreError(
                f"no store at {path} (nothing was created; kuzya remember or kuzya import "
                "creates one)"
            )
        if not folder.is_dir():
            raise StoreError(f"folder {folder} does not exist (--create makes it)")
        if not os.access(folder, os.W_OK):
            raise StoreError(f"cannot create a store in {folder}: the folder is not writable")
        return Access(_uri(path, "rwc"), read_only=False)
    _check_header(path)
    writable = os.access(path, os.W_OK) and os.access(folder, os.W_OK)
    if read_only is None:
        read_only = not writable
    elif not read_only and not writable:
        raise StoreError(f"store {path} is not writable (open it read-only to read it)")
    if not read_only:
        return Access(_uri(path, "rw"), read_only=False)
    wal = store_files(path)[1]
    # SQLite reads a WAL store only by writing its -shm file beside it; with no WAL to
    # read and a folder it cannot write, it reads the file as it is.
    immutable = not os.access(folder, os.W_OK) and not wal.exists()
    return Access(_uri(path, "ro") + ("&immutable=1" if immutable else ""), read_only=True)


def store_files(path: Path) -> tuple[Path, Path]:
    """The store file and its write-ahead log, which holds the newest pages until a
    checkpoint: together, the store's bytes on disk."""
    return path, path.with_name(path.name + "-wal")


def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path.absolute()))}?mode={mode}"


def _check_header(path: Path) -> None:
    """Refuse a file that is not a SQLite database, before SQLite touches it."""
    try:
        with path.open("rb") as file:
            header = file.read(len(_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if header and header != _HEADER:
        raise StoreError(f"{path} is not a Kuzya store (not a SQLite file); it was not changed")


def check_ours(db: sqlite3.Connection, path: Path) -> None:
    """Refuse another application's database, or a store a newer Kuzya wrote, before
    anything is written to it."""
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application_id not in (0, APPLICATION_ID) or (
        application_id == 0 and tables and "migrations" not in tables
    ):
        raise StoreError(
            f"{path} is not a Kuzya store (another application's database); it was not changed"
        )
    known = {migration.__name__ for migration in MIGRATIONS}
    applied = (
        {row[0] for row in db.execute("SELECT name FROM migrations")}
        if "migrations" in tables
        else set()
    )
    if version > SCHEMA_VERSION or not applied <= known:
        raise StoreError(
            f"store {path} was written by a newer Kuzya (schema {max(version, len(applied))}, "
            f"this one knows {SCHEMA_VERSION}): upgrade kuzya to open it; it was not changed"
        )


_CAUSES = (
    (("malformed", "not a database", "corrupt", "vtable constructor"), "is damaged "
     "({detail}); kuzya check tells what is wrong, a backup restores it"),
    (("disk is full", "database or disk is full"), "cannot grow: the disk is full"),
    (("locked", "busy"), "stayed locked by another process past the timeout ({detail}); try "
     "again"),
    (("readonly", "read-only"), "is read-only here ({detail})"),
    (("disk i/o error",), "could not be read or written: disk I/O error"),
    (("unable to open",), "cannot be opened ({detail})"),
    (("closed database",), "is closed"),
)  # fmt: skip


def store_error(exc: sqlite3.Error, path: Path) -> StoreError:
    """SQLite's failure as one line that names the store and the cause."""
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    lowered = detail.lower()
    for needles, told in _CAUSES:
        if any(needle in lowered for needle in needles):
            return StoreError(f"store {path} {told.format(detail=detail)}")
    return StoreError(f"store {path}: {detail}")


one_line_errors = translating_errors(sqlite3.Error, lambda store, exc: store_error(exc, store.path))
