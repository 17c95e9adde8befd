"""Query and packing details: names of those present, and turns cut to what they state."""

from __future__ import annotations

from datetime import UTC, datetime

from kuzya.memory import Memory
from kuzya.recall.passages import low_content, trimmed
from kuzya.recall.query import without_names
from tests.recall.items import recalled

T0 = datetime(2024, 2, 1, 9, tzinfo=UTC)


def test_names_of_those_present_leave_the_query() -> None:
    assert (
        without_names("What recipes has Joanna made?", ["Joanna", "Nate"])
        == "What recipes has made?"
    )
    assert without_names("Where is Nate's dog?", ["joanna", "nate"]) == "Where is dog?"
    assert without_names("Does Natelie know?", ["Nate"]) == "Does Natelie know?"
    assert without_names("Nate?", ["Nate"]) == "Nate?"  # nothing else to ask with


def test_a_turn_keeps_what_it_states() -> None:
    item = recalled(
        "Wow! I made a dairy-free chocolate tart yesterday. How about you? "
        "[shared image: a photo of a tart]",
    )
    cut = trimmed(item, 2)
    assert cut.text == (
        "… I made a dairy-free chocolate tart yesterday. … [shared image: a photo of a tart]"
    )
    assert cut.sources == item.sources


def test_a_turn_with_nothing_to_cut_stays_whole() -> None:
    for text in ("Wow! See you soon?", "I moved to Lisbon in May. The flat is small."):
        assert trimmed(recalled(text), 2).text == text
    assert trimmed(recalled("Wow! Cool."), 0).text == "Wow! Cool."


def test_small_talk_ranks_below_content(memory: Memory) -> None:
    said = [
        "Wow!",
        "lol",
        "👍",
        "How about you?",
        "Ха-ха, класс!",
        "Thanks, Jun!",
        "My landlord is raising the rent in May.",
        "Мой арендодатель поднимает аренду с мая.",
    ]
    for number, text in enumerate(said):
        memory.remember(text, speaker="ana", conversation="c", time=T0.replace(day=number + 1))
    for question in ("What did I say about my landlord?", "Что там с арендой?"):
        found = memory.recall(question, participants=["ana"], speaker="ana", limit=3)
        assert "rent" in found.items[0].text or "аренд" in found.items[0].text
        assert all(not low_content(item.text) for item in found.items[:2])


def test_low_content_turns() -> None:
    for text in ("Wow!", "lol", "👍", "How about you?", "Thanks, Jun!", "Спасибо!", "А ты?",
                 "Where did Mika move in May?", "Куда переехала Мика? В Тверь?"):  # fmt: skip
        assert low_content(text), text
    for text in ("I moved to Lisbon in May.", "Did you know? Mika moved to Tver.",
                 "Я переехал в Тверь."):  # fmt: skip
        assert not low_content(text), text
