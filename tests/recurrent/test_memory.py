"""The recurrent memory: the sketch's three tests (slots fill, top-k, persistence), its
input checks, and that the shipped encoder finds the session that answers a question,
with the real embedder, on held-out sessions and on phrasings of its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from kuzya.embed import Embedder
from kuzya.errors import InvalidInput, StoreError
from kuzya.recurrent.corpus import examples
from kuzya.recurrent.memory import RecurrentMemory
from kuzya.recurrent.train import Sentences, accuracy


def _session(rng: np.random.Generator, steps: int = 4, dim: int = 512) -> np.ndarray:
    vectors = rng.normal(size=(steps, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_update_slots_fills_every_slot_after_twelve_updates() -> None:
    memory, rng = RecurrentMemory(num_slots=10), np.random.default_rng(0)
    slots = [memory.update(_session(rng), f"session {n}") for n in range(12)]
    assert memory.filled == 10
    assert slots[:10] == list(range(10)) and slots[10:] == [0, 1]  # the oldest went first
    assert set(memory.texts) == {f"session {n}" for n in range(2, 12)}


def test_retrieve_returns_top_k_best_first() -> None:
    memory, rng = RecurrentMemory(num_slots=10), np.random.default_rng(1)
    sessions = [_session(rng) for _ in range(5)]
    for n, session in enumerate(sessions):
        memory.update(session, f"s{n}")
    found = memory.retrieve(sessions[3], k=3)
    assert len(found) == 3 and found[0].text == "s3"  # a session is nearest to itself
    assert [f.score for f in found] == sorted((f.score for f in found), reverse=True)
    assert len(memory.retrieve(sessions[0], k=8)) == 5  # no more than are filled
    assert RecurrentMemory().retrieve(sessions[0]) == []
    with pytest.raises(InvalidInput):
        memory.retrieve(sessions[0], k=0)
    with pytest.raises(InvalidInput):
        memory.update(np.zeros((3, 17), dtype=np.float32), "wrong width")


def test_memory_persists_across_a_restart(tmp_path: Path) -> None:
    memory, rng = RecurrentMemory.pretrained(num_slots=4), np.random.default_rng(2)
    sessions = [_session(rng) for _ in range(6)]
    for n, session in enumerate(sessions):
        memory.update(session, f"сессия {n}")
    memory.save(tmp_path / "memory")
    again = RecurrentMemory.load(tmp_path / "memory")
    assert again.texts == memory.texts and again.filled == 4
    assert torch.equal(again.slots, memory.slots) and torch.equal(again.written, memory.written)
    assert [r.text for r in again.retrieve(sessions[5], k=2)] == [
        r.text for r in memory.retrieve(sessions[5], k=2)
    ]
    (tmp_path / "memory.json").write_text("{not json")
    with pytest.raises(StoreError, match="cannot load"):
        RecurrentMemory.load(tmp_path / "memory")


def test_the_shipped_encoder_finds_the_answering_session(use_embedder: Embedder) -> None:
    memory, sentences = RecurrentMemory.pretrained(), Sentences(use_embedder)
    held_out = examples(300, held_out=True, seed=11)
    trained = accuracy(memory, held_out, sentences)
    torch.manual_seed(0)
    untrained = accuracy(RecurrentMemory(input_dim=use_embedder.dim), held_out, sentences)
    assert trained["at_1"] >= 0.8 and trained["at_3"] >= 0.95, trained
    assert trained["at_1"] > untrained["at_1"] + 0.2, (trained, untrained)
    # sessions and a question in words the corpus never uses
    told = [
        ["Morning! Long week.", "My daughter Zoe just started school."],
        ["I finally fixed the bike.", "Погода отличная."],
        ["Я переехала в Новосибирск в марте.", "Там холодно."],
    ]
    for lines in told:
        memory.update(use_embedder.embed(lines), " ".join(lines))
    (best,) = memory.retrieve(use_embedder.embed(["В каком городе я теперь живу?"]), k=1)
    assert "Новосибирск" in best.text


def test_training_with_one_seed_writes_the_same_weights(
    use_embedder: Embedder, tmp_path: Path
) -> None:
    from kuzya.recurrent.train import train

    first = train(use_embedder, tmp_path / "a.safetensors", steps=15, batch_size=16, seed=3)
    train(use_embedder, tmp_path / "b.safetensors", steps=15, batch_size=16, seed=3)
    other = train(use_embedder, tmp_path / "c.safetensors", steps=15, batch_size=16, seed=4)
    assert (tmp_path / "a.safetensors").read_bytes() == (tmp_path / "b.safetensors").read_bytes()
    assert (tmp_path / "a.safetensors").read_bytes() != (tmp_path / "c.safetensors").read_bytes()
    assert first["parameters"] == other["parameters"] == 1_575_936
