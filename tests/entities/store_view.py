"""Test helpers that look at the entity graph from outside the engine."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from kuzya import Memory


def query(memory: Memory, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Read the store's tables directly (the same tables and SQL on SQLite and
    PostgreSQL), rows as tuples."""
    store: Any = memory.store
    with store._session:
        return [tuple(row) for row in store._db.execute(sql, params).fetchall()]


def by_key(memory: Memory) -> dict[str, Any]:
    return {e.key: e for e in memory.entities()}


def walked(
    memory: Memory, keys: Sequence[str], participants: Sequence[str], now: datetime
) -> dict[int, float]:
    """Episodes spreading activation reaches from these entity keys (no seed episodes)."""
    return dict(
        memory.store.graph_search(
            memory.store.scope(memory.namespace, participants), keys, {}, now, 50
        )
    )
