"""Test doubles shipped with the library: a fast deterministic embedder."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from kuzya.embed.base import Vectors, normalise
from kuzya.text import terms


class HashEmbedder:
    """Feature-hashing bag of stems: same text, same vector; shared words, higher cosine.

    For unit tests that need speed and determinism, not semantic quality.
    """

    name = "hash"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in terms(text) or text.split():
                digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                matrix[row, bucket] += sign
        return normalise(matrix)
