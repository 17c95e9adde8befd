"""Time expressions in English and Russian, resolved against the time a message was said.

"yesterday", "last Saturday", "two weeks ago", "in June", "8 May 2023", "вчера",
"в прошлую субботу", "на прошлой неделе", "три дня назад", "в июне" become a span of
days [start, end). Rules only, no model: it runs on the hot path in microseconds.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from kuzya.clock import to_utc
from kuzya.language import normal_form
from kuzya.model import Span

_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple of": 2, "a couple of": 2, "few": 3, "a few": 3, "several": 3,
}  # fmt: skip
_RU_NUMBERS = {
    "один": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6,
    "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "пару": 2, "несколько": 3,
}  # fmt: skip
_EN_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_RU_WEEKDAYS = ["понедельник", "вторник", "сред", "четверг", "пятниц", "суббот", "воскресень"]
_EN_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
              "september", "october", "november", "december"]  # fmt: skip
_RU_MONTHS = ["январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август", "сентябр",
              "октябр", "ноябр", "декабр"]  # fmt: skip
_UNITS = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "year": "year", "years": "year",
    "день": "day", "дня": "day", "дней": "day", "неделю": "week", "недели": "week",
    "недель": "week", "месяц": "month", "месяца": "month", "месяцев": "month", "год": "year",
    "года": "year", "лет": "year",
}  # fmt: skip


_WORD = re.compile(r"\w+")


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_start(year: int, month: int, tz: object) -> datetime:
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=tz)  # type: ignore[arg-type]


def _shift(unit: str, anchor: datetime, amount: int) -> Span:
    """The unit (day, week, month, year) `amount` units from the one holding `anchor`."""
    day = _day(anchor)
    if unit == "day":
        start = day + timedelta(days=amount)
        return Span("", start, start + timedelta(days=1))
    if unit == "week":
        start = day - timedelta(days=day.weekday()) + timedelta(weeks=amount)
        return Span("", start, start + timedelta(weeks=1))
    if unit == "month":
        start = _month_start(day.year, day.month + amount, day.tzinfo)
        return Span("", start, _month_start(start.year, start.month + 1, day.tzinfo))
    start = datetime(day.year + amount, 1, 1, tzinfo=day.tzinfo)
    return Span("", start, datetime(start.year + 1, 1, 1, tzinfo=day.tzinfo))


def _ago(unit: str, anchor: datetime, amount: int) -> Span:
    """A point `amount` units before the anchor, as the day it falls on."""
    day = _day(anchor)
    if unit in ("day", "week"):
        start = day - timedelta(days=amount * (7 if unit == "week" else 1))
    else:
        months = amount * (12 if unit == "year" else 1)
        first = _month_start(day.year, day.month - months, day.tzinfo)
        start = first.replace(day=min(day.day, 28))
    return Span("", start, start + timedelta(days=1))


def _weekday(anchor: datetime, weekday: int, which: str) -> Span:
    day = _day(anchor)
    if which == "next":
        delta = (weekday - day.weekday()) % 7 or 7
    elif which == "this":
        delta = weekday - day.weekday()
    else:  # last, or plain "on Saturday": the most recent one before the anchor day
        delta = -((day.weekday() - weekday) % 7 or 7)
    start = day + timedelta(days=delta)
    return Span("", start, start + timedelta(days=1))


def _number(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _EN_NUMBERS.get(word) or _RU_NUMBERS.get(word)


_NUMBER = r"(\d{1,3}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|" \
    r"seven|eight|nine|ten|eleven|twelve|пару|несколько|один|одну|два|две|три|четыре|пять|" \
    r"шесть|семь|восемь|девять|десять)"  # fmt: skip
_EN_WEEKDAY = "(" + "|".join(_EN_WEEKDAYS) + ")"
_RU_WEEKDAY = r"(понедельник|вторник|среду|четверг|пятницу|субботу|воскресенье)"
_EN_MONTH = "(" + "|".join(_EN_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
# a day of the month in words: "первого сентября", "двадцать пятое мая", "тридцать первого"
_RU_ORDINAL_STEMS = (
    "перв втор трет четв[её]рт пят шест седьм восьм девят десят одиннадцат двенадцат "
    "тринадцат четырнадцат пятнадцат шестнадцат семнадцат восемнадцат девятнадцат двадцат "
    "тридцат"
).split()
_RU_ORDINAL_END = "(?:ого|ое|ье|ьего)"
_RU_ORDINAL = (
    r"((?:(?:двадцать|тридцать)\s+)?(?:" + "|".join(_RU_ORDINAL_STEMS) + f"){_RU_ORDINAL_END})"
)
_RU_MONTH = r"(январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?|" \
    r"сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])"  # fmt: skip
_YEAR = r"((?:19|20)\d\d)"

_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), kind)
    for p, kind in [
        (r"\bthe day before yesterday\b|\bпозавчера\b", "shift-2"),
        (r"\bthe day after tomorrow\b|\bпослезавтра\b", "shift+2"),
        (r"\byesterday\b|\blast night\b|\bвчера\b", "shift-1"),
        (r"\btomorrow\b|\bзавтра\b", "shift+1"),
        (r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b|\bсегодня\b", "shift+0"),
        (rf"\b{_NUMBER} (days?|weeks?|months?|years?) ago\b", "ago"),
        (
            rf"(?<!\w){_NUMBER} (день|дня|дней|неделю|недели|недель|месяц|месяца|месяцев|год|"
            r"года|лет) назад\b",
            "ago",
        ),
        (
            r"\b(?:at|in) the (start|beginning|end) of (?:(the|this|last|next) )?(year|month)\b",
            "part",
        ),
        (
            r"(?<!\w)в (начале|конце) (?:(этого|прошлого|следующего) )?(года|месяца)(?!\w)",
            "ru-part",
        ),
        (r"\b(last|this|next) (week|month|year|weekend)\b", "unit"),
        (r"(?<!\w)на (прошлой|этой|следующей) неделе\b", "ru-week"),
        (r"(?<!\w)в (прошлом|этом|следующем) (месяце|году)\b", "ru-unit"),
        (r"(?<!\w)в (прошлые|эти|следующие) выходные\b", "ru-weekend"),
        (rf"\b(last|this|next|on) {_EN_WEEKDAY}\b", "weekday"),
        (
            rf"(?<!\w)в (?:(прошлую|прошлый|прошлое|эту|этот|это|следующую|следующий|следующее) )?"
            rf"{_RU_WEEKDAY}(?!\w)",
            "ru-weekday",
        ),
        (r"\b(\d{4})-(\d\d)-(\d\d)\b", "iso"),
        (rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_EN_MONTH}\b(?:,? {_YEAR})?", "day-month"),
        (rf"\b{_EN_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?(?:,? {_YEAR})?\b", "month-day"),
        (rf"(?<!\w)(\d{{1,2}}) {_RU_MONTH}(?: {_YEAR})?", "ru-day-month"),
        (rf"(?<!\w){_RU_ORDINAL} {_RU_MONTH}(?: {_YEAR})?", "ru-day-month"),
        (rf"\b(?:in|since|during) {_EN_MONTH}(?:,? {_YEAR})?\b", "month"),
        (rf"\b{_EN_MONTH},? {_YEAR}\b", "month"),
        (rf"(?<!\w)в {_RU_MONTH}(?: {_YEAR})?", "ru-month"),
        (rf"\b(?:in|since|during) {_YEAR}\b|(?<!\w)в {_YEAR} году", "year"),
    ]
]


def _month_index(word: str) -> int:
    word = word.lower()
    for index, name in enumerate(_EN_MONTHS):
        if name.startswith(word) and len(word) >= 3:
            return index + 1
    for index, stem in enumerate(_RU_MONTHS):
        if word.startswith(stem) and (stem != "ма" or word[2:] in ("й", "я", "е")):
            return index + 1
    raise ValueError(word)


def _year_of(anchor: datetime, month: int, day: int, future: bool) -> int:
    """A month (and day) named without a year: the most recent one not after the anchor,
    or the next one not before it when the sentence speaks of the future."""
    if future:
        return anchor.year if (month, day) >= (anchor.month, anchor.day) else anchor.year + 1
    return anchor.year if (month, day) <= (anchor.month, anchor.day) else anchor.year - 1


_FUTURE = re.compile(
    r"(?<!\w)(will|going to|gonna|plan|plans|planning|next|upcoming|soon)(?!\w)|'ll(?!\w)|"
    r"(?<!\w)(буду|будет|будем|собираюсь|планирую|планируем|поеду|пойду)(?!\w)",
    re.IGNORECASE,
)


# A sentence in the past tense; a day or month named alone in a sentence that is not
# ("concert on Friday!", "в пятницу концерт", "a trip to Portugal in September") is the
# coming one.
_PAST_TENSE = re.compile(
    r"(?<!\w)(was|were|had|did|went|saw|got|came|made|took|met|ate|said|told|left|swam|ran|"
    r"drove|flew|bought|brought|caught|felt|found|gave|heard|kept|lost|paid|sat|sent|"
    r"slept|spent|spoke|stood|thought|won|wrote|woke|sang|began|became|fell|forgot|knew|"
    r"rode|sold|taught|threw|wore|\w{3,}ed)(?!\w)",
    re.IGNORECASE,
)
# a Russian word shaped like a past-tense verb, confirmed by the morphology ("лол" is not)
_RU_PAST = re.compile(r"(?<!\w)\w{2,}(?:л|ла|ло|ли|лся|лась|лось|лись)(?!\w)", re.IGNORECASE)


def _ru_ordinal(words: str) -> int:
    """The number of a Russian ordinal day: "первого" 1, "двадцать пятое" 25."""
    *tens, unit = words.split()
    base = {"двадцать": 20, "тридцать": 30}.get(tens[0], 0) if tens else 0
    index = next(
        i for i, stem in enumerate(_RU_ORDINAL_STEMS) if re.fullmatch(stem + _RU_ORDINAL_END, unit)
    )
    return base + (index + 1 if index < 19 else (index - 17) * 10)


_RU_WHICH = {"прошл": "last", "эт": "this", "след": "next"}


def _ru_which(word: str | None) -> str:
    for stem, which in _RU_WHICH.items():
        if word and word.startswith(stem):
            return which
    return "last"


def _resolve(
    kind: str, groups: tuple[str | None, ...], anchor: datetime, future: bool
) -> Span | None:
    tz = anchor.tzinfo
    g = [x.lower() if x else None for x in groups]
    if kind.startswith("shift"):
        return _shift("day", anchor, int(kind[5:]))
    if kind == "ago":
        amount = _number(g[0] or "")
        return None if amount is None else _ago(_UNITS[g[1] or ""].rstrip("s"), anchor, amount)
    if kind in ("unit", "ru-week", "ru-unit"):
        which = g[0] if kind == "unit" else _ru_which(g[0])
        unit = g[1] if kind != "ru-week" else "week"
        unit = {"месяце": "month", "году": "year"}.get(unit or "", unit)
        amount = {"last": -1, "this": 0, "next": 1}[which or "this"]
        if unit == "weekend":
            return _weekend(anchor, amount)
        return _shift(unit or "week", anchor, amount)
    if kind in ("part", "ru-part"):
        return _part(g[0] or "", g[1], g[2] or "", anchor)
    if kind == "ru-weekend":
        return _weekend(anchor, {"прошлые": -1, "эти": 0}.get(g[0] or "", 1))
    if kind == "weekday":
        which = g[0] if g[0] != "on" else ("next" if future else "last")
        return _weekday(anchor, _EN_WEEKDAYS.index(g[1] or ""), which or "last")
    if kind == "ru-weekday":
        index = next(i for i, stem in enumerate(_RU_WEEKDAYS) if (g[1] or "").startswith(stem))
        which = _ru_which(g[0]) if g[0] else ("next" if future else "last")
        return _weekday(anchor, index, which)
    if kind == "iso":
        start = datetime(int(g[0] or 0), int(g[1] or 0), int(g[2] or 0), tzinfo=tz)
        return Span("", start, start + timedelta(days=1))
    if kind in ("day-month", "ru-day-month", "month-day"):
        day, month_word = (g[1], g[0]) if kind == "month-day" else (g[0], g[1])
        day = day if (day or "").isdigit() else str(_ru_ordinal(day or ""))
        month = _month_index(month_word or "")
        year = int(g[2]) if g[2] else _year_of(anchor, month, int(day or 0), future)
        start = datetime(year, month, int(day or 0), tzinfo=tz)
        return Span("", start, start + timedelta(days=1))
    if kind in ("month", "ru-month"):
        month = _month_index(g[0] or "")
        year = int(g[1]) if g[1] else _year_of(anchor, month, 31 if future else 1, future)
        start = datetime(year, month, 1, tzinfo=tz)
        return Span("", start, _month_start(year, month + 1, tz))
    if kind == "year":
        year = int(g[0] or g[1] or 0)
        return Span("", datetime(year, 1, 1, tzinfo=tz), datetime(year + 1, 1, 1, tzinfo=tz))
    return None


_WHICH_AMOUNT = {"last": -1, "next": 1, "прошлого": -1, "следующего": 1}


def _part(part: str, which: str | None, unit: str, anchor: datetime) -> Span:
    """The start or the end of a year (its first or last three months) or of a month (its
    first or last ten days): "at the start of the year", "в конце прошлого месяца"."""
    whole = _shift("year" if unit in ("year", "года") else "month", anchor,
                   _WHICH_AMOUNT.get(which or "", 0))  # fmt: skip
    if unit in ("year", "года"):
        year, tz = whole.start.year, whole.start.tzinfo
        if part in ("start", "beginning", "начале"):
            return Span("", whole.start, _month_start(year, 4, tz))
        return Span("", _month_start(year, 10, tz), whole.end)
    if part in ("start", "beginning", "начале"):
        return Span("", whole.start, whole.start + timedelta(days=10))
    return Span("", whole.start.replace(day=21), whole.end)


def _weekend(anchor: datetime, amount: int) -> Span:
    day = _day(anchor)
    saturday = day - timedelta(days=day.weekday()) + timedelta(days=5, weeks=amount)
    return Span("", saturday, saturday + timedelta(days=2))


def _sentence_at(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence of `text` that holds text[start:end]."""
    first = max(text.rfind(mark, 0, start) for mark in ".!?…\n") + 1
    ends = [i for i in (text.find(mark, end) for mark in ".!?…\n") if i >= 0]
    return first, min(ends, default=len(text))


_CLAUSE_END = re.compile(r"[,;:—–]|\s(?:but|and then|но|а)\s", re.IGNORECASE)


def _clause_at(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the clause of `text` (within its sentence) that holds text[start:end]."""
    first, last = _sentence_at(text, start, end)
    before = [m.end() for m in _CLAUSE_END.finditer(text, first, start)]
    after = _CLAUSE_END.search(text, end, last)
    return (before[-1] if before else first), (after.start() if after else last)


def _tense(words: str) -> bool | None:
    """True for words that speak of the future, False for the past, None for neither."""
    if _FUTURE.search(words) is not None:
        return True
    if _PAST_TENSE.search(words) is not None or any(
        normal_form.past_verb(m.group(0)) for m in _RU_PAST.finditer(words)
    ):
        return False
    return None


def _future(text: str, match: re.Match[str]) -> bool:
    """Whether a day or month named alone is the coming one. Its own clause decides when it
    has a verb with a tense ("second round on Thursday" after "the interview went well" is
    the coming Thursday); a clause that is the time alone is read with its sentence ("On
    Saturday, we went hiking"); any other clause speaks of what is coming ("в пятницу еду
    к сестре, уже купила билеты")."""
    start, end = _clause_at(text, match.start(), match.end())
    tense = _tense(text[start:end])
    if tense is not None:
        return tense
    if text[start : match.start()].strip() or text[match.end() : end].strip():
        return True
    start, end = _sentence_at(text, match.start(), match.end())
    return _tense(text[start:end]) is not False


def _storable(span: Span) -> bool:
    """Both ends can be told in UTC, as they are stored (near year 1 or 9999 a time zone
    can push a day out of the calendar)."""
    try:
        to_utc(span.start), to_utc(span.end)
    except OverflowError:
        return False
    return True


# a title in quotes ('Tomorrow, and Tomorrow, and Tomorrow', «Завтра была война») names
# no time; a quote that starts in lower case may ("she said 'see you on Friday'")
_QUOTED = re.compile(r"«[^»\n]{1,80}»|“[^”\n]{1,80}”|\"[^\"\n]{1,80}\"|(?<!\w)'[^'\n]{1,80}'(?!\w)")


def _titles_blanked(text: str) -> str:
    return _QUOTED.sub(
        lambda m: " " * len(m.group(0)) if m.group(0)[1].isupper() else m.group(0), text
    )


# a day of the month right after a weekday: "on Saturday, the 19th", "в субботу, 19 сентября"
_DAY_NUMBER = re.compile(r",?\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?(?!\d)", re.IGNORECASE)


# Words that every rule above needs one of (or a digit): most messages name no time, and
# one look at their words tells so before thirty rules are tried.
_TIME_WORDS = frozenset(
    (
        *_EN_WEEKDAYS,
        *_EN_MONTHS,
        *"jan feb mar apr jun jul aug sep sept oct nov dec".split(),
        *"""ago yesterday tomorrow today tonight night morning afternoon evening week weeks
    weekend month months year years назад вчера завтра сегодня позавчера послезавтра неделе
    неделю недели недель неделя месяц месяца месяцев месяце году года выходные понедельник
    вторник среду четверг пятницу субботу воскресенье январь января январе февраль февраля
    феврале март марта марте апрель апреля апреле май мая мае июнь июня июне июль июля июле
    август августа августе сентябрь сентября сентябре октябрь октября октябре ноябрь ноября
    ноябре декабрь декабря декабре""".split(),
    )
)
_DIGIT = re.compile(r"\d")


def _may_name_time(text: str) -> bool:
    return _DIGIT.search(text) is not None or not _TIME_WORDS.isdisjoint(
        _WORD.findall(text.lower())
    )


def find(text: str, anchor: datetime) -> list[Span]:
    """Time expressions in `text`, resolved against `anchor` (the time it was said). An
    expression whose days would fall outside the calendar (years 1 to 9999), such as "next
    week" said on 31 December 9999, is not a date."""
    if not _may_name_time(text):
        return []
    found: list[tuple[int, Span]] = []
    taken: list[tuple[int, int]] = []
    weeks: list[tuple[tuple[int, int], Span]] = []  # a week named, with its sentence
    days: list[int] = []  # weekdays that do not say which week ("on Friday", "в пятницу")
    text = _titles_blanked(text)
    for pattern, kind in _RULES:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            if kind.endswith("weekday") and _DAY_NUMBER.match(text, match.end()):
                continue  # "on Saturday the 19th of September": the date says which
            future = _future(text, match)
            try:
                span = _resolve(kind, match.groups(), anchor, future)
            except (ValueError, OverflowError):  # no such day, or outside years 1 to 9999
                continue
            if span is not None and _storable(span):
                taken.append((match.start(), match.end()))
                found.append((match.start(), Span(match.group(0).strip(), span.start, span.end)))
                if kind in ("unit", "ru-week") and (span.end - span.start).days == 7:
                    weeks.append((_sentence_at(text, match.start(), match.end()), span))
                elif kind.endswith("weekday") and (match.group(1) or "on").lower() == "on":
                    days.append(len(found) - 1)
    for index in days:  # "next week I fly out, on Friday": that week's Friday
        start, day = found[index]
        for (first, last), week in weeks:
            if first <= start < last:
                moved = week.start + timedelta(days=day.start.weekday())
                found[index] = (start, Span(day.phrase, moved, moved + timedelta(days=1)))
    return [span for _, span in sorted(found, key=lambda pair: pair[0])]
