"""A psycopg connection in the shape the relational tables use (`?` placeholders, as
SQLite's), and PostgreSQL's failures told as one line each."""

from __future__ import annotations

import functools
import re
import threading
from typing import Any, cast

import psycopg
from psycopg_pool import ConnectionPool

from kuzya.errors import StoreError
from kuzya.store.sql.tables import Cursor, translating_errors

_PLACEHOLDER = re.compile(r"%|\?")


@functools.lru_cache(maxsize=1024)
def _formatted(sql: str) -> str:
    """`?` placeholders as psycopg's `%s` (a literal `%` doubled). The tables' SQL has no
    `?` inside string literals."""
    return _PLACEHOLDER.sub(lambda m: "%%" if m.group(0) == "%" else "%s", sql)


class Connection:
    """A psycopg connection (autocommit outside `transaction`) with `?` placeholders."""

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        """Rows come in PostgreSQL's binary format: a vector or a bytea is copied, not
        spelled out in text and parsed back."""
        return self.raw.execute(_formatted(sql), parameters or None, binary=True)

    def executemany(self, sql: str, rows: Any, /) -> Cursor:
        cursor = self.raw.cursor()
        cursor.executemany(_formatted(sql), list(rows))
        return cursor


def connect(url: str, timeout: float) -> psycopg.Connection[Any]:
    """One autocommit connection, statements not prepared (their SQL varies)."""
    return psycopg.connect(url, **_options(timeout))


def _options(timeout: float) -> dict[str, Any]:
    return {"autocommit": True, "connect_timeout": max(1, int(timeout)), "prepare_threshold": None}


class Pooled:
    """Connections from a pool, one per thread at a time: entering (re-entrant) checks
    one out for this thread and the store's `_db` stands for it until the outermost
    block ends; then it goes back to the pool (a transaction left open is rolled back
    by the pool, a broken connection replaced)."""

    def __init__(self, url: str, *, size: int, timeout: float, configure: Any) -> None:
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=size,
            kwargs=_options(timeout),
            configure=configure,
            timeout=timeout,
            open=False,
            name="kuzya",
        )
        self._pool.open(wait=True, timeout=timeout)
        self._held = threading.local()

    def __enter__(self) -> Connection:
        held = self._held
        if getattr(held, "depth", 0) == 0:
            held.connection = Connection(self._pool.getconn())
            held.depth = 0
        held.depth += 1
        return cast(Connection, held.connection)

    def __exit__(self, *exc: object) -> None:
        held = self._held
        held.depth -= 1
        if held.depth == 0:
            connection, held.connection = held.connection, None
            self._pool.putconn(connection.raw)

    @property
    def current(self) -> Connection:
        connection = getattr(self._held, "connection", None)
        if connection is None:
            raise StoreError("the PostgreSQL store was used outside a session")
        return cast(Connection, connection)

    # The Connection shape, for the thread's connection.

    @property
    def raw(self) -> psycopg.Connection[Any]:
        return self.current.raw

    @property
    def in_transaction(self) -> bool:
        return self.current.in_transaction

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        return self.current.execute(sql, parameters)

    def executemany(self, sql: str, rows: Any, /) -> Cursor:
        return self.current.executemany(sql, rows)

    def close(self) -> None:
        self._pool.close()


def store_error(exc: psycopg.Error, where: str) -> StoreError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreError(f"PostgreSQL store {where}: {first}")


one_line_errors = translating_errors(
    psycopg.Error, lambda store, exc: store_error(exc, store.location)
)
