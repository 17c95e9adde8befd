"""End to end with the real embedded models through llama.cpp and the real embedder: a
chat, a restart, and the assistant still knows what it was told. The reader held to the
right answer is Qwen2.5-Coder-1.5B; SmolLM2 (135M) is too weak to be held to one, so
with it the test checks the whole turn: recall, prompt, reply, tokens, memory write."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kuzya.assistant import Assistant
from kuzya.embed import Embedder
from kuzya.llm import is_small
from kuzya.llm.llama import LlamaCpp
from kuzya.memory import Memory

pytestmark = pytest.mark.llm


@pytest.fixture(
    scope="module", params=["smollm2", pytest.param("qwen-1.5b", marks=pytest.mark.qwen)]
)
def model(request: pytest.FixtureRequest) -> Iterator[LlamaCpp]:
    loaded = LlamaCpp(request.param, n_ctx=2048)
    loaded.load()
    yield loaded


def test_memory_survives_a_restart(tmp_path: Path, use_embedder: Embedder, model: LlamaCpp) -> None:
    path = tmp_path / "chat.db"
    with Memory.open(path, namespace="chat", embedder=use_embedder) as memory:
        assistant = Assistant(memory, model, small_model=is_small(model))
        first = assistant.reply(
            "Hi! I have a dog named Rex and I live in Lisbon.",
            conversation="s1",
            participants=["user"],
            now="2026-03-01T09:00:00",
        )
        assistant.close()
        assert first.text.strip()
        memory.sleep(now="2026-03-01T09:05:00")

    calls_before = model.meter.calls
    with Memory.open(path, namespace="chat", embedder=use_embedder) as memory:  # a restart
        assert {f.attribute for f in memory.profile("user").facts} >= {"pet", "lives_in"}
        assistant = Assistant(memory, model, small_model=is_small(model))
        reply = assistant.reply(
            "What is my dog's name?",
            conversation="s2",
            participants=["user"],
            now="2026-03-05T09:00:00",
        )
        assistant.close()
        assert "Rex" in reply.recall.as_prompt()
        if model.name == "llama:qwen-1.5b":
            assert "rex" in reply.text.lower()
        assert reply.text.strip()
        assert model.meter.calls == calls_before + 1  # no prefill was asked for
        assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
        stored = memory.get_all(conversation="s2")
        assert [e.speaker for e in stored] == ["user", "assistant"]
        assert stored[1].text == reply.text
