"""Embedders: the default multilingual model and the sentence-transformers adapter, offline."""

from __future__ import annotations

import numpy as np
import pytest

from kuzya.embed import load_embedder
from kuzya.errors import EmbedderError, InvalidInput
from kuzya.memory import Memory


def test_default_embedder_is_multilingual_and_normalised() -> None:
    model = load_embedder("use")
    vectors = model.embed(["My dog is called Rex", "Мою собаку зовут Рекс", "Tax forms are due"])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_unknown_embedder_spec_is_refused() -> None:
    with pytest.raises(InvalidInput):
        load_embedder("word2vec")


def test_sentence_transformers_minilm_offline(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = load_embedder("st:all-MiniLM-L6-v2")
    assert model.dim == 384
    vectors = model.embed(["I live in Lisbon", "My home is in Lisbon", "Quarterly tax forms"])
    assert vectors.shape == (3, 384)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    with Memory.open(tmp_path / "st.db", embedder=model) as memory:
        memory.remember("I live in Lisbon", speaker="ana")
        memory.remember("Quarterly tax forms are due", speaker="ana")
        top = memory.recall("where is Ana's home?", participants=["ana"], limit=1)
        assert top.items[0].text == "I live in Lisbon"


def test_store_refuses_a_different_embedder(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Memory.open(tmp_path / "k.db", embedder="use") as memory:
        memory.remember("hello", speaker="ana")
    with pytest.raises(InvalidInput, match="built with embedder"):
        Memory.open(tmp_path / "k.db", embedder="hash")


def test_missing_model_name_is_an_embedder_error(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderError, match="cannot load"):
        load_embedder("st:/nonexistent/model-dir").embed(["x"])
