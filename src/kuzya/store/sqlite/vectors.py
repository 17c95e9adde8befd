"""Exact in-memory vector search over the embeddings kept in the store's tables.

The tables are the truth: every write appends to a change log in the same transaction,
and the index applies the log before each search. After a crash, a restart or another
process's writes, the index therefore agrees with the tables. Measured on 2 cores at
100k x 512 float32: ~10 ms per exact search (usearch HNSW: ~2 ms per search but ~1 ms
per insert and approximate, with filtering done after the fact).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from kuzya.embed.base import Vectors


@dataclass
class _Partition:
    """Vectors of one namespace; rows are appended, deletion clears a row."""

    dim: int
    ids: npt.NDArray[np.int64] = field(init=False)
    audiences: npt.NDArray[np.int64] = field(init=False)
    matrix: Vectors = field(init=False)
    size: int = 0
    row_of: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ids = np.zeros(0, dtype=np.int64)
        self.audiences = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, self.dim), dtype=np.float32)

    def _grow(self, needed: int) -> None:
        capacity = len(self.ids)
        if needed <= capacity:
            return
        capacity = max(needed, capacity * 2, 1024)
        ids = np.full(capacity, -1, dtype=np.int64)
        audiences = np.full(capacity, -1, dtype=np.int64)
        matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        ids[: self.size] = self.ids[: self.size]
        audiences[: self.size] = self.audiences[: self.size]
        matrix[: self.size] = self.matrix[: self.size]
        self.ids, self.audiences, self.matrix = ids, audiences, matrix

    def put(self, item_id: int, audience: int, vector: npt.NDArray[np.float32]) -> None:
        row = self.row_of.get(item_id)
        if row is None:
            self._grow(self.size + 1)
            row = self.size
            self.size += 1
            self.row_of[item_id] = row
        self.ids[row] = item_id
        self.audiences[row] = audience
        self.matrix[row] = vector

    def remove(self, item_id: int) -> None:
        row = self.row_of.pop(item_id, None)
        if row is not None:
            self.ids[row] = -1
            self.audiences[row] = -1
            self.matrix[row] = 0.0

    def search(
        self, query: npt.NDArray[np.float32], allowed: npt.NDArray[np.int64], k: int
    ) -> list[tuple[int, float]]:
        if self.size == 0 or k <= 0 or len(allowed) == 0:
            return []
        rows = np.flatnonzero(np.isin(self.audiences[: self.size], allowed))
        if len(rows) == 0:
            return []
        # Scoring only the visible rows is cheaper unless most rows are visible.
        if len(rows) * 4 < self.size:
            scores = self.matrix[rows] @ query
        else:
            scores = (self.matrix[: self.size] @ query)[rows]
        k = min(k, len(rows))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.ids[rows[i]]), float(scores[i])) for i in top]

    def vectors(self, ids: Sequence[int]) -> dict[int, npt.NDArray[np.float32]]:
        return {i: self.matrix[self.row_of[i]].copy() for i in ids if i in self.row_of}


Change = tuple[int, str, int, str, int | None, bytes | None]  # seq, ns, id, op, audience, vector


class VectorIndex:
    """Per-namespace exact search, kept in step with a store's change log. Thread-safe,
    with its own lock, so a search does not hold the store's connection."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.last_seq = 0
        self._partitions: dict[str, _Partition] = {}
        self._lock = threading.Lock()

    def _partition(self, namespace: str) -> _Partition:
        part = self._partitions.get(namespace)
        if part is None:
            part = self._partitions[namespace] = _Partition(self.dim)
        return part

    def apply(self, changes: Sequence[Change]) -> None:
        """Apply log entries in order; entries already applied are skipped."""
        with self._lock:
            for seq, namespace, item_id, op, audience, vector in changes:
                if seq <= self.last_seq:
                    continue
                if op == "put" and vector is not None and audience is not None:
                    self._partition(namespace).put(
                        item_id, audience, np.frombuffer(vector, dtype=np.float32)
                    )
                else:
                    self._partition(namespace).remove(item_id)
                self.last_seq = seq

    def search(
        self, namespace: str, query: npt.NDArray[np.float32], allowed: list[int], k: int
    ) -> list[tuple[int, float]]:
        with self._lock:
            part = self._partitions.get(namespace)
            if part is None:
                return []
            return part.search(query.astype(np.float32), np.asarray(allowed, dtype=np.int64), k)

    def vectors(self, namespace: str, ids: Sequence[int]) -> dict[int, npt.NDArray[np.float32]]:
        with self._lock:
            part = self._partitions.get(namespace)
            return {} if part is None else part.vectors(ids)

    def count(self, namespace: str) -> int:
        with self._lock:
            part = self._partitions.get(namespace)
            return 0 if part is None else len(part.row_of)
