"""Dates at the edges of the calendar: an expression whose days would fall outside it is
not a date, the message is still stored and recalled, and a time outside the supported
range is refused with one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kuzya import InvalidInput
from kuzya.clock import EARLIEST, LATEST, from_epoch, to_epoch, to_utc
from kuzya.language.dates import find
from kuzya.memory import Memory

RELATIVE = ["next week", "yesterday", "в прошлый четверг", "на следующей неделе", "tomorrow"]
EDGES = [LATEST, datetime(9999, 12, 31, tzinfo=UTC), EARLIEST]

# every kind of expression the rules know, and some that name no real day
PHRASES = [
    "yesterday", "tomorrow", "today", "the day before yesterday", "the day after tomorrow",
    "last night", "this morning", "next week", "last week", "this month", "next month",
    "last year", "next year", "next weekend", "three days ago", "999 years ago",
    "a couple of months ago", "12 weeks ago", "at the start of the year",
    "at the end of next year", "in the beginning of last month", "last Friday",
    "next Monday", "on Sunday", "2023-05-08", "9999-12-31", "0001-01-01", "2023-02-30",
    "31 December", "29 February", "1st of January 2099", "December 31, 2023", "in June",
    "in March 2026", "since 1999", "during 2020", "вчера", "завтра", "позавчера",
    "послезавтра", "сегодня", "на прошлой неделе", "на следующей неделе", "в прошлом году",
    "в следующем месяце", "в следующие выходные", "в прошлые выходные", "в прошлый четверг",
    "в следующую пятницу", "в субботу", "пять лет назад", "пару дней назад",
    "в конце следующего года", "в начале прошлого месяца", "31 декабря", "30 февраля 2024",
    "в июне", "в мае 2023", "в 2023 году",
]  # fmt: skip
FILLERS = ["I went there", "we will go", "было весело", "поеду", "and", ".", "!", "\n", ","]

offsets = st.timedeltas(
    min_value=-timedelta(hours=23, minutes=59), max_value=timedelta(hours=23, minutes=59)
).map(timezone)
anchors = st.datetimes(timezones=st.none() | st.just(UTC) | offsets)  # the whole range
texts = st.lists(st.sampled_from(PHRASES + FILLERS), min_size=1, max_size=8).map(" ".join)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(anchor=anchors, text=texts)
def test_find_never_raises_and_every_span_is_in_the_calendar(anchor, text):
    for span in find(text, anchor):
        start, end = to_utc(span.start), to_utc(span.end)  # would raise out of the calendar
        assert start < end
        for moment in (start, end):  # stored as epoch seconds (a double: to 0.1 ms)
            assert abs(from_epoch(to_epoch(moment)) - moment) < timedelta(milliseconds=1)


def test_a_date_outside_the_calendar_is_not_a_date():
    assert [s.label() for s in find("yesterday, and next week", LATEST)] == ["30 December 9999"]
    assert [s.label() for s in find("tomorrow, and last year", datetime.min)] == ["2 January 1"]
    assert find("в прошлый четверг", datetime(1, 1, 1, 9)) == []
    assert find("next Friday we will", datetime(9999, 12, 31, tzinfo=UTC)) == []


@pytest.mark.parametrize("edge", EDGES, ids=lambda t: t.isoformat())
@pytest.mark.parametrize("phrase", RELATIVE)
def test_remember_and_recall_at_the_edges(memory: Memory, edge: datetime, phrase: str) -> None:
    text = f"I saw the comet {phrase}"
    one = memory.remember(text, speaker="ana", time=edge)
    many = memory.remember_many(
        [{"text": f"{text}, again", "speaker": "ana", "time": edge.isoformat()}]
    )
    assert one.said_at == edge == many[0].said_at
    assert one.events == many[0].events
    found = memory.recall(f"when did I see the comet {phrase}?", participants=["ana"], now=edge)
    assert {one.id, many[0].id} <= {s for item in found.items for s in item.sources}


@pytest.mark.parametrize(
    "moment",
    [
        datetime.max,
        datetime.min,
        "0001-01-01",
        "0001-12-31T23:59:59",
        datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-3))),  # 10000 in UTC
        datetime(2, 1, 1, tzinfo=timezone(timedelta(hours=1))),  # year 1 in UTC
    ],
    ids=str,
)
def test_a_time_outside_the_range_is_refused_and_nothing_is_written(hash_memory, moment):
    with pytest.raises(InvalidInput, match="outside the supported range, 0002-01-01 to 9999"):
        hash_memory.remember("I saw the comet yesterday", speaker="ana", time=moment)
    with pytest.raises(InvalidInput, match=r"message 0: time .* outside the supported range"):
        hash_memory.remember_many([{"text": "next week", "speaker": "ana", "time": moment}])
    with pytest.raises(InvalidInput, match=r"now .* outside the supported range"):
        hash_memory.recall("what did I see yesterday?", participants=["ana"], now=moment)
    assert hash_memory.stats()["episodes"] == 0
