"""A question that names a period ranks what happened in it first; "last", "latest" and
"most recent" prefer the newest; "yesterday" and "last week" count from the question's now."""

from __future__ import annotations

from datetime import datetime

import pytest

from kuzya.language import dates
from kuzya.memory import Memory
from kuzya.recall.query import _asks_latest, analyse

SAID = [
    ("2026-03-03T12:00", "I went to the dentist and had a filling."),
    ("2026-03-10T19:00", "We had pizza at Luigi's with the kids."),
    ("2026-03-20T10:00", "I did a long hike up Mount Tam."),
    ("2026-04-01T18:00", "Mika came over for dinner, we made dumplings."),
    ("2026-04-14T09:00", "I went climbing at the gym with Sam."),
    ("2026-04-16T20:00", "I finished reading Piranesi."),
    ("2026-04-18T13:00", "Mika came over again and we watched a film."),
    ("2026-04-20T19:30", "I ate pizza from the place downstairs."),
    ("2026-04-21T08:00", "Coffee and a croissant this morning."),
]
NOW = "2026-04-21T12:00"


@pytest.fixture
def diary(memory: Memory) -> Memory:
    for time, text in SAID:
        memory.remember(text, speaker="ana", conversation=f"c{time[:10]}", time=time)
    return memory


def _top(memory: Memory, question: str, count: int) -> list[str]:
    found = memory.recall(question, participants=["ana"], speaker="ana", now=NOW, limit=count)
    return [item.said_at.date().isoformat() for item in found.items]


@pytest.mark.parametrize(
    ("question", "count", "days"),
    [
        ("What did I do last week?", 3, {"2026-04-14", "2026-04-16", "2026-04-18"}),
        ("What did I eat yesterday?", 1, {"2026-04-20"}),
        ("Что я ела вчера?", 1, {"2026-04-20"}),
        ("What did I do in March?", 3, {"2026-03-03", "2026-03-10", "2026-03-20"}),
        ("Что я делала в прошлый четверг?", 1, {"2026-04-16"}),
        ("When was Mika last here?", 1, {"2026-04-18"}),
        ("What was the most recent film I watched?", 1, {"2026-04-18"}),
        ("Когда Мика приходила в последний раз?", 1, {"2026-04-18"}),
    ],
)
def test_the_period_asked_about_comes_first(
    diary: Memory, question: str, count: int, days: set[str]
) -> None:
    assert set(_top(diary, question, count)) == days


def test_the_newest_wins_when_the_latest_is_asked(memory: Memory) -> None:
    for time, place in [("2026-01-05", "Porto"), ("2026-02-09", "Lyon"), ("2026-04-02", "Oslo")]:
        memory.remember(f"Mika visited me, we went to a bar in {place}.", speaker="ana", time=time)
    found = memory.recall("Where did Mika and I go most recently?", participants=["ana"], now=NOW)
    assert "Oslo" in found.items[0].text


def test_a_named_period_is_not_a_request_for_the_latest() -> None:
    now = datetime(2026, 4, 21, 12)
    for text, latest in [
        ("What did I do last week?", False),
        ("Что я делала на прошлой неделе?", False),
        ("When was Mika last here?", True),
        ("What's the latest on the move?", True),
        ("Что я ела в последний раз в кафе?", True),
        ("What did I eat last Thursday?", False),
    ]:
        assert _asks_latest(text, dates.find(text, now)) is latest, text


def test_only_a_question_about_the_period_alone_pushes_the_rest_down(use_embedder) -> None:
    now = datetime(2026, 4, 21, 12)
    for text, alone in [
        ("What did I do last week?", True),
        ("Что я делала на прошлой неделе?", True),
        ("What happened yesterday?", True),
        ("Which city am I flying to in March?", False),
        ("Where did I have dinner with Leo last week?", False),
    ]:
        assert analyse(text, use_embedder, [], now, {}, ["ana"]).period_only is alone, text


def test_the_latest_is_the_newest_of_the_best_matches_not_the_newest_of_all(
    memory: Memory,
) -> None:
    """The earlier visit matches the words better and names a time; the later one is the
    answer; the newest message of all is about something else."""
    for time, text in [
        ("2026-04-28T08:00", "Went to the gym this morning before work."),
        ("2026-05-08T19:00", "Went to the gym after work, leg day 😩"),
        ("2026-05-19T21:00", "My friend Hana lent me a novel; starting it tonight."),
    ]:
        memory.remember(text, speaker="sam", time=time)
    found = memory.recall(
        "When did I last go to the gym?", participants=["sam"], now="2026-05-21T10:00"
    )
    assert found.items[0].text.startswith("Went to the gym after work")


def test_a_plan_whose_date_has_passed_is_no_known_fact(memory: Memory) -> None:
    memory.remember(
        "My boyfriend Jake is taking me to their concert in April!",
        speaker="mia",
        time="2026-01-05T18:00",
    )
    memory.sleep(now="2026-01-05T18:01")

    def facts(now: str) -> list[str]:
        found = memory.recall("What are Jake's plans?", participants=["mia"], now=now)
        return [item.text for item in found.items if item.kind == "fact"]

    assert any("take mia to their concert" in text for text in facts("2026-03-01T12:00"))
    assert not any("concert" in text for text in facts("2026-06-20T12:00"))
    asked = memory.recall("What did Jake plan in April?", participants=["mia"], now="2026-06-20")
    assert any("concert" in item.text for item in asked.items)  # the message is still there


@pytest.mark.parametrize(
    ("moves", "question", "order"),
    [
        (
            ["I live in Denver.", "We moved to Austin last weekend!", "I now live in Seattle."],
            "Where did I live before Seattle?",
            ["Seattle", "Austin", "Denver"],
        ),
        (
            ["Я живу в Екатеринбурге.", "Переехал в Новосибирск!", "Теперь я в Томске."],
            "Где я жил до Томска?",
            ["Томск", "Новосибирск", "Екатеринбург"],
        ),
    ],
)
def test_before_a_named_value_the_values_come_newest_first(
    memory: Memory, moves: list[str], question: str, order: list[str]
) -> None:
    for month, text in enumerate(moves, start=1):
        memory.remember(text, speaker="lucas", time=f"2026-0{2 * month}-10T12:00")
    memory.sleep(now="2026-06-11T12:00")
    found = memory.recall(question, participants=["lucas"], now="2026-06-20T12:00")
    facts = [item.text for item in found.items if item.kind == "fact"]
    firsts = [next(i for i, text in enumerate(facts) if city in text) for city in order]
    assert firsts == sorted(firsts)
