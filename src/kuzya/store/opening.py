"""Which store a location names: a PostgreSQL URL (`postgresql://…`) or a SQLite file."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from kuzya.store.base import Store


def is_url(location: object) -> bool:
    """Whether `location` names a PostgreSQL server rather than a file."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


def shown(location: str | Path) -> str:
    """A location as messages name it: a URL without its password."""
    parts = urlsplit(str(location))
    if not is_url(location) or parts.password is None:
        return str(location)
    return urlunsplit(
        parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
    )


def open_store(
    location: str | Path,
    *,
    durable: bool = True,
    create: bool = True,
    read_only: bool | None = None,
) -> Store:
    """The store at `location`; a PostgreSQL database is made ready on first open
    (`durable=False`: its commits do not wait for the disk)."""
    if is_url(location):
        from kuzya.store.postgres.store import PostgresStore  # psycopg only when used

        return PostgresStore(str(location), durable=durable, create=create)
    from kuzya.store.sqlite.store import SQLiteStore

    return SQLiteStore(location, durable=durable, create=create, read_only=read_only)
