"""The embedder port: texts in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. `name` identifies the model in a store's metadata."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Encode a batch; returns shape (len(texts), dim), rows of unit length."""
        ...


def normalise(vectors: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = matrix / norms
    return unit
