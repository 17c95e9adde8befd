"""Where a benchmark's stores live: a SQLite file each in the run's folder, or a
PostgreSQL database each — on an embedded server started for the run, or on the server
`--db` names (its role needs CREATEDB)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kuzya.errors import InvalidInput
from kuzya.store.opening import is_url

BACKENDS = ("sqlite", "postgres")
Place = Callable[[str], str | Path]  # a store's label -> its location


@contextmanager
def places(backend: str, workdir: Path, db: str | None = None) -> Iterator[Place]:
    if backend not in BACKENDS:
        raise InvalidInput(f"unknown --backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if backend == "sqlite":
        if db is not None:
            raise InvalidInput("--db names a PostgreSQL server for --backend postgres only")
        yield lambda label: workdir / f"{label}.db"
        return
    from kuzya.store.postgres.embedded import database, embedded

    def name(label: str) -> str:
        return "kuzya_" + re.sub(r"[^a-z0-9_]", "_", label.lower())[:50]

    if db is not None:
        if not is_url(db):
            raise InvalidInput(f"--db {db!r} is not a postgresql:// URL")
        yield lambda label: database(db, name(label))
        return
    with embedded(workdir / "postgres") as server:
        yield lambda label: server.database(name(label))
