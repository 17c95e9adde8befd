"""The assistant's own replies rank below what people said (they echo it, or ask), and
recalled items say which ones they are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kuzya.memory import Memory

START = datetime(2026, 3, 2, 12, tzinfo=UTC)


def test_the_answer_outranks_the_assistants_question(memory: Memory) -> None:
    turns = [
        ("mika", "Hi, I'm Mika. I'd like the spicy miso ramen, please."),
        ("waiter", "Spicy miso ramen coming up. Any allergies I should know about?"),
        ("mika", "Yes, I'm allergic to peanuts, so no peanut oil in anything."),
    ]
    memory.remember_many(
        {"text": text, "speaker": speaker, "conversation": "visit-1",
         "participants": ["mika", "waiter"], "time": START + timedelta(minutes=minute),
         "metadata": {"role": "assistant"} if speaker == "waiter" else {}}
        for minute, (speaker, text) in enumerate(turns)
    )  # fmt: skip
    items = memory.recall("Does Mika have any food allergies?", participants=["mika", "waiter"])
    assert items.items[0].text.startswith("Yes, I'm allergic to peanuts")
    assert [i.assistant for i in items] == [i.speaker == "waiter" for i in items]
    assert any(i.assistant for i in items)
    plain = memory.with_settings(assistant_weight=1.0)
    first = plain.recall("Does Mika have any food allergies?", participants=["mika", "waiter"])
    assert first.items[0].speaker == "waiter"  # what the weight corrects
