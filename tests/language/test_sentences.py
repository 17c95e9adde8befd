"""The one sentence splitter: abbreviations, line breaks, both languages, offsets."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kuzya.language.sentences import closed, sentences, spans, whole

CASES = [
    ("Hey! I moved to Porto. I like bacalhau.", ["Hey!", "I moved to Porto.", "I like bacalhau."]),
    ("I saw Dr. Smith today. He was kind.", ["I saw Dr. Smith today.", "He was kind."]),
    ("Живу на ул. Ленина, д. 5. Приходи!", ["Живу на ул. Ленина, д. 5.", "Приходи!"]),
    ("first line\nsecond line", ["first line", "second line"]),
    ('Wait… what? «Да.» He said "go." Ok', ["Wait…", "what?", "«Да.»", 'He said "go."', "Ok"]),
    ("  spaced out.   ", ["spaced out."]),
    ("", []),
    ("no end at all", ["no end at all"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@given(st.text(alphabet="ab .!?\n«»Dr", max_size=60))
def test_spans_are_the_stripped_text_in_order(text: str) -> None:
    found = spans(text)
    assert all(text[b:e] == text[b:e].strip() and text[b:e] for b, e in found)
    assert all(e1 <= b2 for (_, e1), (b2, _) in itertools.pairwise(found))
    assert "".join(sentences(text)).replace(" ", "") == "".join(text.split())


def test_whole_ends_at_the_last_closed_sentence() -> None:
    assert whole("It is in March. And the other one is") == "It is in March."
    assert whole("Всё готово! Осталось только") == "Всё готово!"
    assert whole("no sentence is closed") == "no sentence is closed"
    assert closed('He said "yes."') and not closed("and then")
