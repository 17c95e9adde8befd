"""The reported cases, answered end to end by the real reader (Qwen2.5-Coder-1.5B through
llama.cpp, greedy) from the real store and embedder: the evidence reaches the prompt even
when the profile holds a fact from the same message, a fact in the middle of a long
message is found, the assistant's own wrong replies do not win, and "yesterday" means
the day before the question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kuzya.assistant import Assistant
from kuzya.embed import Embedder
from kuzya.llm.llama import LlamaCpp
from kuzya.memory import Memory

pytestmark = [pytest.mark.llm, pytest.mark.qwen]

FILLER = (
    "We spent the morning walking around the old harbour and looking at the boats. "
    "The weather was grey but nobody minded much, and the coffee was excellent. "
    "My brother told a long story about his football team losing again on Sunday. "
    "Afterwards we argued for an hour about which bakery makes the best cinnamon buns. "
)


@pytest.fixture(scope="module")
def qwen() -> Iterator[LlamaCpp]:
    model = LlamaCpp("qwen-1.5b", n_ctx=4096)
    model.load()
    yield model


def _ask(memory: Memory, model: LlamaCpp, question: str, now: str) -> str:
    assistant = Assistant(memory, model)
    try:
        reply = assistant.reply(question, conversation="ask", participants=["ana"], now=now)
    finally:
        assistant.close()
    return reply.text.lower()


def test_a_fact_in_the_profile_does_not_hide_its_message(
    tmp_path: Path, use_embedder: Embedder, qwen: LlamaCpp
) -> None:
    with Memory.open(tmp_path / "m.db", embedder=use_embedder) as memory:
        memory.remember(
            "My wife Sofia is a pilot, she flies for TAP. I live in Lisbon and I always "
            "order ramen with an extra egg at Koya.",
            speaker="ana",
            conversation="s1",
            time="2026-04-01T19:00",
        )
        memory.sleep(now="2026-04-01T20:00")
        usual = _ask(memory, qwen, "What do I usually order at Koya?", "2026-04-10T12:00")
        wife = _ask(memory, qwen, "What does my wife Sofia do for a living?", "2026-04-10T12:01")
    assert "ramen" in usual and "pizza" not in usual
    assert "pilot" in wife or "flies" in wife


def test_a_fact_in_the_middle_of_a_long_message(
    tmp_path: Path, use_embedder: Embedder, qwen: LlamaCpp
) -> None:
    text = f"{FILLER * 8}My passport expires in March 2027, so I must renew it. {FILLER * 8}"
    assert len(text.split()) > 600
    with Memory.open(tmp_path / "m.db", embedder=use_embedder) as memory:
        memory.remember(text, speaker="ana", conversation="s1", time="2026-04-01T19:00")
        memory.sleep(now="2026-04-01T20:00")
        answer = _ask(memory, qwen, "When does my passport expire?", "2026-04-10T12:00")
    assert "march" in answer and "2027" in answer


def test_the_assistants_wrong_reply_does_not_win(
    tmp_path: Path, use_embedder: Embedder, qwen: LlamaCpp
) -> None:
    with Memory.open(tmp_path / "m.db", embedder=use_embedder) as memory:
        memory.remember_many([
            {"text": "Our cat Miso hates the vacuum cleaner.", "speaker": "ana",
             "conversation": "s1", "time": "2026-04-01T19:00"},
            {"text": "Your dog Miso sounds adorable!", "speaker": "assistant",
             "conversation": "s1", "participants": ["ana"], "time": "2026-04-01T19:01",
             "metadata": {"role": "assistant"}},
        ])  # fmt: skip
        memory.sleep(now="2026-04-01T20:00")
        answer = _ask(memory, qwen, "What kind of animal is Miso?", "2026-04-10T12:00")
    assert "cat" in answer and "dog" not in answer


def test_yesterday_is_the_day_before_the_question(
    tmp_path: Path, use_embedder: Embedder, qwen: LlamaCpp
) -> None:
    with Memory.open(tmp_path / "m.db", embedder=use_embedder) as memory:
        for time, text in [
            ("2026-03-03T12:00", "I went to the dentist and had a filling."),
            ("2026-03-10T19:00", "We had sushi at Kaito with the kids."),
            ("2026-04-20T19:30", "I ate pizza from the place downstairs."),
        ]:
            memory.remember(text, speaker="ana", conversation=time[:10], time=time)
        answer = _ask(memory, qwen, "What did I eat yesterday?", "2026-04-21T12:00")
    assert "pizza" in answer and "sushi" not in answer
