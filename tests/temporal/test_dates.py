"""Relative and absolute time expressions, English and Russian, resolved against the
moment a message was said (Monday 8 May 2023, 13:56 UTC)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kuzya.language.dates import find
from kuzya.memory import Memory

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday

CASES = [
    # English
    ("I went to a support group yesterday", "yesterday", "7 May 2023"),
    ("Last night we watched a film", "Last night", "7 May 2023"),
    ("the day before yesterday it snowed", "the day before yesterday", "6 May 2023"),
    ("I have an exam tomorrow", "tomorrow", "9 May 2023"),
    ("we fly the day after tomorrow", "the day after tomorrow", "10 May 2023"),
    ("this morning I ran 5k", "this morning", "8 May 2023"),
    ("last Saturday we hiked", "last Saturday", "6 May 2023"),
    ("last Monday was rough", "last Monday", "1 May 2023"),
    ("on Friday I swam", "on Friday", "5 May 2023"),
    ("I will call her on Friday", "on Friday", "12 May 2023"),
    (
        "at the start of the year we moved",
        "at the start of the year",
        "1 January - 31 March 2023",
    ),
    ("at the end of the month I'm off", "at the end of the month", "21-31 May 2023"),
    ("Concert on Friday!", "on Friday", "12 May 2023"),  # no past tense: the coming one
    ("We're planning a trip to Portugal in September", "in September", "September 2023"),
    ("We went to Portugal in September", "in September", "September 2022"),
    ("Booked the flights! I'm visiting Leo in June.", "in June", "June 2023"),  # its sentence
    ("I'm seeing Mika on Friday", "on Friday", "12 May 2023"),
    ("we watched a film on Friday", "on Friday", "5 May 2023"),
    # the clause's own tense decides; a clause that is the time alone goes with its sentence
    ("The interview went well, second round on Thursday", "on Thursday", "11 May 2023"),
    ("On Saturday, we went hiking", "On Saturday", "6 May 2023"),
    ("The wedding is on Saturday the 19th of August", "19th of August", "19 August 2023"),
    ("next Tuesday is the party", "next Tuesday", "9 May 2023"),
    ("two weeks ago I painted a sunrise", "two weeks ago", "24 April 2023"),
    ("3 days ago my cat was sick", "3 days ago", "5 May 2023"),
    ("a few days ago I met Leo", "a few days ago", "5 May 2023"),
    ("a couple of months ago we moved", "a couple of months ago", "8 March 2023"),
    ("a year ago I started pottery", "a year ago", "8 May 2022"),
    ("last week was busy", "last week", "1-7 May 2023"),
    ("next month we travel", "next month", "June 2023"),
    ("last year I ran a marathon", "last year", "2022"),
    ("last weekend we camped", "last weekend", "6-7 May 2023"),
    ("in June we met", "in June", "June 2022"),
    ("in June I'll travel to Oslo", "in June", "June 2023"),
    ("in March I adopted a dog", "in March", "March 2023"),
    ("on 8 May, 2023 it rained", "8 May, 2023", "8 May 2023"),
    ("May 3rd was fun", "May 3rd", "3 May 2023"),
    ("May 2022 was great", "May 2022", "May 2022"),
    ("in 2021 I moved to Austin", "in 2021", "2021"),
    ("the invoice is dated 2023-04-01", "2023-04-01", "1 April 2023"),
    # Russian
    ("Я вчера был на фестивале", "вчера", "7 May 2023"),
    ("позавчера шёл дождь", "позавчера", "6 May 2023"),
    ("завтра экзамен", "завтра", "9 May 2023"),
    ("сегодня я бегал", "сегодня", "8 May 2023"),
    ("в прошлую субботу мы ходили в горы", "в прошлую субботу", "6 May 2023"),
    ("в прошлый понедельник было тяжело", "в прошлый понедельник", "1 May 2023"),
    ("в прошлое воскресенье я спал", "в прошлое воскресенье", "7 May 2023"),
    ("в субботу я ходил в кино", "в субботу", "6 May 2023"),
    ("в субботу буду дома", "в субботу", "13 May 2023"),
    ("в пятницу концерт!", "в пятницу", "12 May 2023"),
    ("в конце прошлого месяца", "в конце прошлого месяца", "21-30 April 2023"),
    ("в начале года переехали", "в начале года", "1 January - 31 March 2023"),
    ("в пятницу был концерт", "в пятницу", "5 May 2023"),
    ("Яндекс позвал меня на собеседование, в четверг иду", "в четверг", "11 May 2023"),
    ("В пятницу еду к сестре, уже купила билеты", "В пятницу", "12 May 2023"),
    ("три дня назад кот заболел", "три дня назад", "5 May 2023"),
    ("две недели назад я рисовала", "две недели назад", "24 April 2023"),
    ("пару месяцев назад мы переехали", "пару месяцев назад", "8 March 2023"),
    ("на прошлой неделе было много работы", "на прошлой неделе", "1-7 May 2023"),
    ("в прошлом месяце я купил велосипед", "в прошлом месяце", "April 2023"),
    ("в прошлом году я бегал марафон", "в прошлом году", "2022"),
    ("в июне 2022 мы познакомились", "в июне 2022", "June 2022"),
    ("в марте я завёл собаку", "в марте", "March 2023"),
    ("8 мая шёл дождь", "8 мая", "8 May 2023"),
    ("первого мая мы ходили на парад", "первого мая", "1 May 2023"),  # a day in words
    ("двадцать пятого мая у меня экзамен", "двадцать пятого мая", "25 May 2023"),
    ("шестнадцатого мая сдаю", "шестнадцатого мая", "16 May 2023"),
    ("в 2021 году я переехал", "в 2021 году", "2021"),
    ("в прошлые выходные мы были на даче", "в прошлые выходные", "6-7 May 2023"),
]


@pytest.mark.parametrize(("text", "phrase", "label"), CASES)
def test_expression_is_resolved_against_the_time_said(text: str, phrase: str, label: str) -> None:
    spans = find(text, SAID)
    assert [(s.phrase, s.label()) for s in spans] == [(phrase, label)]


@pytest.mark.parametrize(
    "text",
    [
        "may I ask you something?",
        "I like the number 2022 less",
        "Maya said hi",
        "what a week it has been",
        "маяк на берегу",
        "это было давно",
        "I loved 'Tomorrow, and Tomorrow, and Tomorrow'",  # a title in quotes
        "читаю «Завтра была война»",
    ],
)
def test_no_false_time_expressions(text: str) -> None:
    assert find(text, SAID) == []


def test_several_expressions_in_order() -> None:
    spans = find("Yesterday I called Leo, and two weeks ago I visited him", SAID)
    assert [s.label() for s in spans] == ["7 May 2023", "24 April 2023"]


def test_spans_are_half_open_day_ranges() -> None:
    [span] = find("last week", SAID)
    assert span.start == datetime(2023, 5, 1, tzinfo=UTC)
    assert span.end == datetime(2023, 5, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("I met Leo yesterday", "yesterday = 7 May 2023"),
        ("we met on 1st May", "1st May = 1 May 2023"),
        ("it was in June", "in June = June 2022"),
        ("on 8 May 2023 we met", None),
        ("on May 8, 2023 we met", None),
        ("back in March 2023", None),
        ("we met in 2021", None),
        # a Russian phrase gets its date in Russian, so a reply in Russian can copy it
        ("вчера я бегал", "вчера = 7 мая 2023"),
        ("в мае сдаю экзамен", "в мае = май 2023"),  # the month under way is the coming one
        ("на прошлой неделе", "на прошлой неделе = 1-7 мая 2023"),
        ("8 мая шёл дождь", "8 мая = 8 мая 2023"),
        ("в 2021 году", None),
    ],
)
def test_a_phrase_that_is_a_date_gets_no_note(text: str, note: str | None) -> None:
    [span] = find(text, SAID)
    assert span.note() == note


def test_recalled_text_has_each_date_note_once_and_none_it_already_holds(
    memory: Memory,
) -> None:
    said = datetime(2026, 12, 1, 10, tzinfo=UTC)
    memory.remember("I saw Leo today, yes today.", speaker="ana", time=said)
    memory.remember(
        "From memory: ana: I saw Leo today. (today = 1 December 2026) Also 1 December 2026.",
        speaker="assistant",
        participants=["ana"],
        metadata={"role": "assistant"},
        time=said,
    )
    lines = {i.speaker: i.line() for i in memory.recall("Leo", participants=["ana"], now=said)}
    assert lines["ana"] == "ana: I saw Leo today, yes today. (today = 1 December 2026)"
    assert lines["assistant"] == (
        "assistant: From memory: ana: I saw Leo today. (today = 1 December 2026) "
        "Also 1 December 2026."
    )


@pytest.mark.parametrize(
    ("text", "notes"),
    [
        ("В мае сдаю IELTS, шестнадцатого мая.", "(шестнадцатого мая = 16 мая 2026)"),
        ("In May I take the IELTS, on the 16th of May.", "(16th of May = 16 May 2026)"),
        ("Next week I fly out, on Friday.", "(on Friday = 13 March 2026)"),
        (
            "Yesterday was long, and next week too.",
            "(Yesterday = 1 March 2026; next week = 9-15 March 2026)",
        ),
    ],
)
def test_a_period_that_a_more_precise_date_inside_it_narrows_gets_no_note(
    memory: Memory, text: str, notes: str
) -> None:
    said = datetime(2026, 3, 2, 10, tzinfo=UTC)
    memory.remember(text, speaker="vika", time=said)
    [item] = memory.recall(text, participants=["vika"], now=said).items
    assert item.dated_text() == f"{text} {notes}"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Next week I fly out, on Friday.", (3, 13)),
        ("На следующей неделе, в пятницу, летим в Казань.", (3, 13)),
        ("Last week on Tuesday I saw Leo.", (2, 24)),
        ("On Friday I fly. Next week is busy.", (3, 6)),  # another sentence: the coming one
    ],
)
def test_a_weekday_in_a_sentence_that_names_its_week_is_that_weeks_day(
    text: str, day: tuple[int, int]
) -> None:
    said = datetime(2026, 3, 2, 10, tzinfo=UTC)  # a Monday
    [weekday] = [span for span in find(text, said) if (span.end - span.start).days == 1]
    assert weekday.start == datetime(2026, *day, tzinfo=UTC)
