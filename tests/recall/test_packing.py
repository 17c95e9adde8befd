"""Query and packing details: names of those present, and turns cut to what they state."""

from __future__ import annotations

from datetime import UTC, datetime

from kuzya.model import Kind, RecallItem
from kuzya.recall import _trimmed, _unnamed

T0 = datetime(2024, 2, 1, 9, tzinfo=UTC)


def _turn(text: str) -> RecallItem:
    return RecallItem(
        id=1,
        kind=Kind.EPISODE,
        text=text,
        score=1.0,
        speaker="jun",
        conversation="c",
        said_at=T0,
        stored_at=T0,
        sources=(1,),
    )


def test_names_of_those_present_leave_the_query() -> None:
    assert _unnamed("What recipes has Joanna made?", ["Joanna", "Nate"]) == "What recipes has made?"
    assert _unnamed("Where is Nate's dog?", ["joanna", "nate"]) == "Where is dog?"
    assert _unnamed("Does Natelie know?", ["Nate"]) == "Does Natelie know?"
    assert _unnamed("Nate?", ["Nate"]) == "Nate?"  # nothing else to ask with


def test_a_turn_keeps_what_it_states() -> None:
    item = _turn(
        "Wow! I made a dairy-free chocolate tart yesterday. How about you? "
        "[shared image: a photo of a tart]"
    )
    trimmed = _trimmed(item, 2)
    assert trimmed.text == (
        "… I made a dairy-free chocolate tart yesterday. … [shared image: a photo of a tart]"
    )
    assert trimmed.sources == item.sources


def test_a_turn_with_nothing_to_cut_stays_whole() -> None:
    for text in ("Wow! See you soon?", "I moved to Lisbon in May. The flat is small."):
        assert _trimmed(_turn(text), 2).text == text
    assert _trimmed(_turn("Wow! Cool."), 0).text == "Wow! Cool."
