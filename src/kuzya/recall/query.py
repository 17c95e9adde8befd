"""What a recall query asks: its terms and vector (names of those present left out), the
entities it names, the period it is about, and whether it asks when, for the latest, about
the past or for an overview."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from kuzya.embed.base import Embedder, normalise
from kuzya.entities import mentions
from kuzya.language import dates
from kuzya.language.text import ANAPHORA, tokens
from kuzya.language.text import terms as index_terms
from kuzya.model import Episode, Span


@dataclass(frozen=True)
class Query:
    text: str
    terms: tuple[str, ...]
    vector: np.ndarray
    named: bool  # names of those present were left out of `vector` (facts keep them)
    names: frozenset[str]  # lower-cased words that may name a speaker
    entity_keys: tuple[str, ...]  # entities the query names, or its context refers to
    window: Span | None  # the time the query is about ("last week", "в июне")
    asks_when: bool  # the query asks for a time ("when did ...?", "когда ...?")
    latest: bool  # the query asks for the newest ("when was Mika last here?")
    period_only: bool  # the period is all it asks about ("what did I do last week?")
    about_past: bool  # how things were ("where did I live before?"): the replaced stay
    overview: bool  # "what did we talk about?": answered from the diary too


_WHEN = re.compile(
    r"^\s*(when|what (date|day|year|month|time)|how long ago|since when)\b|"
    r"^\s*(когда|в каком (году|месяце)|какого числа|как давно)(?!\w)",
    re.IGNORECASE,
)


# Questions about the newest of many (a named period such as "last week" aside).
_LATEST = re.compile(
    r"\b(latest|most recent\w*|newest|recently|lately|last)\b|"
    r"(?<!\w)(последн\w*|недавн\w*|в прошлый раз)(?!\w)",
    re.IGNORECASE,
)


# Questions about what holds now ("what do I do for work now?", "где я сейчас живу?")
_NOW = re.compile(
    r"\b(now|currently|these days|nowadays|at the moment)\b|"
    r"(?<!\w)(сейчас|теперь|нынче|в последнее время|на данный момент)(?!\w)",
    re.IGNORECASE,
)


def asks_now(text: str) -> bool:
    """Whether a question asks what holds now ("these days", "сейчас"): what was said
    last about it answers it, so its notes are read in the order they were said."""
    return _NOW.search(text) is not None


# Questions about how things were: superseded facts and their messages are kept for them.
_PAST = re.compile(
    r"\b(before|used to|previous(ly)?|former(ly)?|originally|at first|in the past|"
    r"earlier|anymore|any more|change[ds]?)\b|(?<!\w)(раньше|прежде|до этого|"
    r"бывш\w*|прежн\w*|изначально|сначала|больше не|\w+л[аи]?\s+до)(?!\w)",  # "жил до Томска"
    re.IGNORECASE,
)
# Overview questions, answered from the diary.
_OVERVIEW = re.compile(
    r"\b(what did (we|i|you) (talk|chat|discuss)\w*|summar(y|i[sz]e)|recap|catch me up|"
    r"what happened)\b|(?<!\w)(о ч[её]м мы (говорили|разговаривали|болтали)|"
    r"что (было|произошло)|кратко|подытож\w*|резюм\w*)(?!\w)",
    re.IGNORECASE,
)


def _window(spans: Sequence[Span]) -> Span | None:
    if not spans:
        return None
    return Span(
        " ".join(s.phrase for s in spans),
        min(s.start for s in spans),
        max(s.end for s in spans),
    )


def _without(text: str, spans: Sequence[Span]) -> str:
    for span in spans:
        text = text.replace(span.phrase, " ")
    return text


def _asks_latest(text: str, spans: Sequence[Span]) -> bool:
    return _LATEST.search(_without(text, spans)) is not None


def without_names(text: str, present: Sequence[str]) -> str:
    """The text without the names of those present (and their "'s")."""
    if not present:
        return text
    names = "|".join(re.escape(name) for name in sorted(present, key=len, reverse=True))
    left = re.sub(rf"(?<!\w)({names})(['’]s)?(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(left.split()) if re.search(r"\w", left) else text


def analyse(
    text: str,
    embedder: Embedder,
    working: Sequence[Episode],
    now: datetime,
    known: Mapping[str, str],
    present: Sequence[str] = (),
) -> Query:
    """Query terms and vector; short or pronoun-led queries borrow the working memory.
    Names in `present` stay out of the vector and the terms, but count as speaker names."""
    words = tokens(text)
    own_terms = index_terms(text)
    unnamed = without_names(text, present)
    vector = embedder.embed([unnamed])[0]
    needs_context = working and (len(own_terms) < 3 or any(w in ANAPHORA for w in words))
    all_terms = index_terms(without_names(text, present))
    keys = [m.key for m in mentions.mentions(text, known)]
    if needs_context:
        recent = working[-2:]
        context = embedder.embed([turn.content for turn in recent])
        vector = normalise((vector + 0.5 * context.mean(axis=0))[None, :])[0]
        for turn in recent:
            all_terms.extend(index_terms(without_names(turn.content, present)))
            keys.extend(m.key for m in mentions.mentions(turn.content, known))
    spans = dates.find(text, now)
    return Query(
        text,
        tuple(all_terms),
        vector,
        unnamed != text,
        frozenset(words),
        tuple(dict.fromkeys(keys)),
        _window(spans),
        _WHEN.search(text) is not None,
        _asks_latest(text, spans),
        bool(spans) and len(set(index_terms(_without(unnamed, spans)))) <= 1,
        _PAST.search(text) is not None,
        _OVERVIEW.search(text) is not None,
    )
