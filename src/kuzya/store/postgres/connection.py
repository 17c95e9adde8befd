"""A psycopg connection in the shape the relational tables use (`?` placeholders, as
SQLite's), and PostgreSQL's failures told as one line each."""

from __future__ import annotations

import functools
import re
from typing import Any

import psycopg

from kuzya.errors import StoreError
from kuzya.store.sql.tables import Cursor, translating_errors

_PLACEHOLDER = re.compile(r"%|\?")


@functools.lru_cache(maxsize=1024)
def _formatted(sql: str) -> str:
    """`?` placeholders as psycopg's `%s` (a literal `%` doubled). The tables' SQL has no
    `?` inside string literals."""
    return _PLACEHOLDER.sub(lambda m: "%%" if m.group(0) == "%" else "%s", sql)


class Connection:
    """One psycopg connection (autocommit outside `transaction`)."""

    def __init__(self, url: str, timeout: float) -> None:
        self.raw = psycopg.connect(
            url, autocommit=True, connect_timeout=max(1, int(timeout)), prepare_threshold=None
        )

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        return self.raw.execute(_formatted(sql), parameters or None)

    def executemany(self, sql: str, rows: Any, /) -> Cursor:
        cursor = self.raw.cursor()
        cursor.executemany(_formatted(sql), list(rows))
        return cursor

    def close(self) -> None:
        self.raw.close()


def store_error(exc: psycopg.Error, where: str) -> StoreError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreError(f"PostgreSQL store {where}: {first}")


one_line_errors = translating_errors(
    psycopg.Error, lambda store, exc: store_error(exc, store.location)
)
