"""Russian values in their dictionary form, by pymorphy3: "в Москве" -> "Москва", "в
Нижнем Новгороде" -> "Нижний Новгород", "прорабом" -> "прораб", "пиццу с грибами" ->
"пицца с грибами".

A phrase is read as adjectives, a head noun and whatever follows it: the head goes to the
nominative (its number kept: "в Альпах" -> "Альпы"), the adjectives before it agree with it,
the rest stays as said ("улице Ленина" -> "улица Ленина"). A phrase that does not start so
(a verb, an adverb, a word the analyser does not know as a noun) is left as said. The
analyser loads once, on the first Russian value; words are cached.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pymorphy3 import MorphAnalyzer
    from pymorphy3.analyzer import Parse

_CYRILLIC = re.compile(r"[а-яё]", re.I)
_QUOTES = "\"'«»“”„"
_ADJECTIVES = frozenset({"ADJF", "PRTF"})
_NOUN = frozenset({"NOUN"})
_lock = threading.Lock()
_loaded: list[MorphAnalyzer] = []


def _analyser() -> MorphAnalyzer:
    with _lock:
        if not _loaded:
            from pymorphy3 import MorphAnalyzer

            _loaded.append(MorphAnalyzer(lang="ru"))
        return _loaded[0]


@lru_cache(maxsize=65536)
def _parses(word: str) -> tuple[Parse, ...]:
    return tuple(_analyser().parse(word))


def _first(word: str, kinds: frozenset[str]) -> Parse | None:
    return next((p for p in _parses(word) if p.tag.POS in kinds), None)


def _as_said(new: str, said: str) -> str:
    """The new form with the capitals of the word as said ("москва", "Москве" -> "Москва"),
    part by part for hyphenated names ("Ростов-на-Дону")."""
    parts, said_parts = new.split("-"), said.split("-")
    if len(parts) != len(said_parts):
        said_parts = [said] * len(parts)
    return "-".join(
        part.capitalize() if s[:1].isupper() else part
        for part, s in zip(parts, said_parts, strict=True)
    )


def _head(words: list[str]) -> int | None:
    """Where the head noun is: the first noun not read as an adjective of the next word."""
    for index, word in enumerate(words):
        noun = _first(word, _NOUN) is not None
        follows = index + 1 < len(words) and any(
            p.tag.POS in _ADJECTIVES | _NOUN for p in _parses(words[index + 1])
        )
        if _first(word, _ADJECTIVES) is None or not follows:
            return index if noun else None
    return None


def _agreements(word: str) -> set[tuple[str | None, str | None]]:
    return {(p.tag.case, p.tag.number) for p in _parses(word) if p.tag.POS in _ADJECTIVES}


def _noun(word: str, adjectives: list[Parse]) -> Parse | None:
    """The head noun's reading: one that agrees in case and number with its adjectives
    (none if nothing agrees: "острый рамен" is not "рамена"). A lowercase word must be in
    the dictionary ("латте" is not, and stays); a capitalised name may be read by its
    ending ("Тинькоффе" -> "Тинькофф")."""
    lowered = word.lower()
    if word[:1].islower() and not _analyser().word_is_known(lowered):
        return None
    nouns = [p for p in _parses(lowered) if p.tag.POS == "NOUN"]
    known = word[:1].isupper() and _analyser().word_is_known(lowered)
    names = [p for p in nouns if "Name" in p.tag] if known else []
    if names and not adjectives:  # "Марину" is Марина, not Марин; "Диму" Дима, not дим
        return max(names, key=lambda p: (round(p.score, 3), len(p.normal_form)))
    if not adjectives:  # alone, the noun must be the likeliest reading ("капучино" is not)
        return nouns[0] if nouns and _parses(lowered)[0] is nouns[0] else None
    for noun in nouns:
        agreeing = (noun.tag.case, noun.tag.number)
        if all(agreeing in _agreements(adjective.word) for adjective in adjectives):
            return noun
    return None


@lru_cache(maxsize=65536)
def nominative(phrase: str) -> str:
    """The phrase with its head noun in the nominative and its adjectives agreeing."""
    stripped = phrase.strip(_QUOTES)
    words = stripped.split()
    if not words or not _CYRILLIC.search(stripped):
        return phrase
    head = _head([w.lower() for w in words])
    if head is None or words[head].isupper():  # "МГУ": an abbreviation stays
        return phrase
    adjectives = [_first(w.lower(), _ADJECTIVES) for w in words[:head]]
    if None in adjectives:
        return phrase
    noun = _noun(words[head], [a for a in adjectives if a is not None])
    named = noun.inflect({"nomn"}) if noun else None
    if named is None:
        return phrase
    agree = {"nomn", named.tag.number or "sing"}
    if named.tag.number != "plur" and named.tag.gender:
        agree.add(named.tag.gender)
    changed = []
    for word, adjective in zip(words[:head], adjectives, strict=True):
        form = adjective.inflect(agree) if adjective else None
        if form is None:
            return phrase
        changed.append(_as_said(form.word, word))
    changed.append(_as_said(named.word, words[head]))
    return phrase.replace(stripped, " ".join([*changed, *words[head + 1 :]]))


def past_verb(word: str) -> bool:
    """Whether a Russian word can be a verb in the past tense ("был", "купила"; not "лол",
    "футбол")."""
    return any(p.tag.POS == "VERB" and p.tag.tense == "past" for p in _parses(word.lower()))


def speaker_past(word: str) -> bool:
    """Whether a Russian word is most likely a verb in the past tense, singular, as the
    speaker says it of themselves with "я" left out ("переехал", "устроилась"; not "дела",
    "было", "переехали")."""
    parses = _parses(word.lower())
    tag = parses[0].tag if parses else None
    return (
        tag is not None
        and tag.POS == "VERB"
        and tag.tense == "past"
        and tag.number == "sing"
        and tag.gender in ("masc", "femn")
    )


def place(word: str) -> bool:
    """Whether a Russian word names a place the analyser knows ("Томске"; not "Яндексе")."""
    return any("Geox" in p.tag for p in _parses(word.lower().strip('"«»')))
