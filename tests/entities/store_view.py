"""Test helpers that look at the entity graph from outside the engine."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from datetime import datetime
from typing import Any

from kuzya import Memory


def query(memory: Memory, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Read the store file directly, through a connection of our own."""
    with closing(sqlite3.connect(memory.store.path)) as db:  # type: ignore[attr-defined]
        return db.execute(sql, params).fetchall()


def by_key(memory: Memory) -> dict[str, Any]:
    return {e.key: e for e in memory.entities()}


def walked(
    memory: Memory, keys: Sequence[str], participants: Sequence[str], now: datetime
) -> dict[int, float]:
    """Episodes spreading activation reaches from these entity keys (no seed episodes)."""
    return dict(memory.store.graph_search(memory.namespace, keys, {}, participants, now, 50))
