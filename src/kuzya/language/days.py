"""Days in words, in English and Russian: a span of days as a label ("3 August 2026",
"август 2026"), a day with its weekday as a prompt gives it, and the note that tells what
a time phrase meant ("yesterday = 30 November 2026")."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_RU_MONTH_NAMES = ("январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь "
                   "декабрь").split()  # fmt: skip
_RU_MONTHS_OF = ("января февраля марта апреля мая июня июля августа сентября октября ноября "
                 "декабря").split()  # fmt: skip
_RU_WEEKDAY_NAMES = "понедельник вторник среда четверг пятница суббота воскресенье".split()
_RU_WEEKDAY_SHORT = "пн вт ср чт пт сб вс".split()
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_WORD = re.compile(r"\w+")


def day_label(day: datetime, russian: bool) -> str:
    return f"{_day_month(day, russian)} {day.year}"


def _day_month(day: datetime, russian: bool) -> str:
    return f"{day.day} {_RU_MONTHS_OF[day.month - 1]}" if russian else day.strftime("%-d %B")


def day_name(day: datetime, russian: bool = False, *, short: bool = False) -> str:
    """A day with its weekday, as a prompt gives it: "Sunday, 12 July 2026" ("Sun 12 Jul
    2026" `short`), in Russian "воскресенье, 12 июля 2026" ("вс, 12 июля 2026")."""
    if russian:
        weekday = (_RU_WEEKDAY_SHORT if short else _RU_WEEKDAY_NAMES)[day.weekday()]
        return f"{weekday}, {day_label(day, True)}"
    return day.strftime("%a %d %b %Y" if short else "%A, %d %B %Y")


def span_label(start: datetime, end: datetime, russian: bool = False) -> str:
    """The days [start, end) in words: "3 August 2026", "August 2026", "2026", or a
    range said once ("7-8 November 2026", "30 November - 6 December 2026"); in Russian
    with `russian` ("3 августа 2026", "август 2026", "7-8 ноября 2026")."""
    days = (end - start).days
    if days <= 1:
        return day_label(start, russian)
    if start.day == 1 and 28 <= days <= 31:
        if russian:
            return f"{_RU_MONTH_NAMES[start.month - 1]} {start.year}"
        return start.strftime("%B %Y")
    if start.month == 1 and start.day == 1 and days >= 365:
        return start.strftime("%Y")
    last = end - timedelta(days=1)
    if start.year != last.year:
        return f"{day_label(start, russian)} - {day_label(last, russian)}"
    if start.month != last.month:
        return f"{_day_month(start, russian)} - {day_label(last, russian)}"
    return f"{start.day}-{day_label(last, russian)}"


def span_note(phrase: str, start: datetime, end: datetime) -> str | None:
    """The note "phrase = date" for a phrase that needs it, in the phrase's language;
    None for one that says its date already ("1 December 2026", "in March 2026")."""
    label = span_label(start, end, russian=_CYRILLIC.search(phrase) is not None)
    if set(_WORD.findall(label.lower())) <= set(_WORD.findall(phrase.lower())):
        return None
    return f"{phrase} = {label}"
