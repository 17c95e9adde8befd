"""Embedders behind one port, chosen by a short spec string."""

from __future__ import annotations

from kuzya.embed.base import Embedder, Vectors, normalise
from kuzya.errors import InvalidInput

DEFAULT_EMBEDDER = "use"


def load_embedder(spec: str = DEFAULT_EMBEDDER) -> Embedder:
    """`use` (default, multilingual, offline), `st:<model name or path>`, or `hash` (tests)."""
    if spec in ("use", "use-multilingual-v3"):
        from kuzya.embed.use import UniversalSentenceEncoder

        return UniversalSentenceEncoder()
    if spec.startswith("st:") and len(spec) > 3:
        from kuzya.embed.sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(spec[3:])
    if spec == "hash":
        from kuzya.testing import HashEmbedder

        return HashEmbedder()
    raise InvalidInput(
        f"unknown embedder {spec!r}: use 'use', 'st:<sentence-transformers model>' or 'hash'"
    )


__all__ = ["DEFAULT_EMBEDDER", "Embedder", "Vectors", "load_embedder", "normalise"]
