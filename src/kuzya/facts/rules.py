"""Personal facts found by rules, without a model, in English and Russian.

`claims` reads a message and returns what the speaker says about themselves ("I live in
Lisbon") or about a relative they name ("my sister Priya is a nurse"); `forget_request`
reads a request to forget ("forget my address", "забудь, где я живу"), by the grammar in
`forget_rules`.

How a message is read: sentences, each in its language; leads that say nothing dropped
("Update:", "lol", "Короче,") and a subject the speaker left out put back ("переехал в
Томск"), by `rules_leads`; questions dropped; a sentence cut
where a hypothetical or someone else's report begins ("if", "I wish", "she said", "если
бы"); clauses split where a new subject starts ("..., and I play the cello"); a relative
introduced by name ("my sister Priya") gives a family claim, and what follows is read as
said by that person; then anchored rules match each clause, their named groups holding
the values (`<attribute or kind>[__end][digits]`: `__end` marks a fact that ended, as in
"I quit Google"). A negation before the verb ("I don't", "I no longer", "больше не") is
lifted first, so one rule serves both: "I don't like X" is a dislike, "I don't like X
anymore" ends a like, "I no longer live in X" ends lives_in. The grammars are in
`rules_en` and `rules_ru`; habits and diets in `rules_habits`, titles and trips in
`rules_roles`, a life's changes (moves, partners, likes worn off, trades, switched drinks)
in `rules_life`, both languages each. A statement that something did not end ("I didn't
quit Google", "I'm not single") ends nothing.

Value conventions:
- places, organisations, names and free text as said, trimmed of trailing time and filler
  phrases ("I moved to Austin last month" -> "Austin"); Russian noun phrases in the
  nominative ("живу в Нижнем Новгороде" -> "Нижний Новгород", by `normal_form`);
- likes: the thing ("pizza"); "my favourite food is pizza" -> "pizza"; "I play the cello"
  -> "playing the cello" ("играю на гитаре" -> "играть на гитаре"); a list said with
  commas gives one claim per item;
- pet: "<kind> <name>" or "<kind>" ("dog Rex", "golden retriever Max", "собака Рекс");
  family: "<relation> <name>" ("sister Priya", "older brother Leo", "сестра Маша"), or the
  relation alone ("two kids", "сестра"); friends and colleagues count as family; spouse
  (any partner): the name, or, for one left unnamed, the relation ("we split up" ->
  partner, ended; "я развелась с мужем" -> "муж", ended: see `schema.UNNAMED`);
- plan: a verb phrase completing "plans to ...", time phrase kept ("fly to Oslo next week",
  "поехать в Париж летом");
- studies: the complement of "studies" ("physics", "at MIT", "в МГУ");
- usual_order: the thing ("spicy miso ramen with an extra egg", "рамен с яйцом"); what the
  speaker drinks is a usual_drink, one at a time ("I drink my coffee black" -> "coffee
  black", then "I've switched to oat flat whites" replaces it);
  avoids: what the speaker does not eat or drink ("eggs", "мясо").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from kuzya.facts import (
    forget_rules,
    rules_en,
    rules_habits,
    rules_leads,
    rules_life,
    rules_roles,
    rules_ru,
)
from kuzya.facts.schema import Claim, Forget
from kuzya.language.sentences import sentences
from kuzya.language.text import STOP_WORDS


class _Grammar(Protocol):
    """What reading one language needs; the modules `rules_en` and `rules_ru` are two."""

    QUESTION: re.Pattern[str]
    GUARD: re.Pattern[str]
    CLAUSE_BREAK: re.Pattern[str]
    LEAD: re.Pattern[str]
    RULES: tuple[re.Pattern[str], ...]
    INTROS: tuple[re.Pattern[str], ...]
    GONE: re.Pattern[str]
    NOT_NAMES: frozenset[str]
    SUBORDINATE: re.Pattern[str]  # where a value ends: "pizza because ..."
    TRAIL: re.Pattern[str]  # time and filler after a value: "Austin last month"
    LIST: re.Pattern[str]  # between the items of a list
    ITEMS: re.Pattern[str]  # between the things one has: "a cat named Luna and a dog"

    def normalise(self, sentence: str) -> str: ...
    def negation(self, clause: str) -> tuple[str, bool, bool]: ...
    def first_person(self, predicate: str) -> str: ...
    def relation(self, phrase: str) -> tuple[str, str, bool] | None: ...
    def clean(self, kind: str, value: str) -> list[tuple[str, str]]: ...


# Rules and the function that turns what their groups caught into (attribute, value) pairs.
_Reader = tuple[tuple[re.Pattern[str], ...], Callable[[str, str], list[tuple[str, str]]]]
_READERS: dict[object, tuple[_Reader, ...]] = {  # by grammar module
    rules_en: (
        (rules_en.RULES, rules_en.clean),
        (rules_habits.ENGLISH, rules_habits.clean),
        (rules_roles.ENGLISH, rules_roles.clean),
        (rules_life.ENGLISH, rules_life.clean),
    ),
    rules_ru: (
        (rules_ru.RULES, rules_ru.clean),
        (rules_habits.RUSSIAN, rules_habits.clean),
        (rules_roles.RUSSIAN, rules_roles.clean),
        (rules_life.RUSSIAN, rules_life.clean),
    ),
}
_INTROS: dict[object, tuple[re.Pattern[str], ...]] = {
    rules_en: rules_en.INTROS,
    rules_ru: rules_ru.INTROS + rules_life.INTROS_RU,
}


_CYRILLIC = re.compile(r"[а-яё]", re.I)
# a statement of habit: its claims are `emphatic` ("I always order ramen")
ALWAYS = re.compile(
    r"(?<!\w)(?:always|every (?:single )?time|each time|without fail|всегда|каждый раз"
    r"|неизменно)(?!\w)",
    re.I,
)
_TAG_QUESTION = re.compile(r",\s*[^,?]{0,30}\?+[\s\"'»”]*$")
_CONTACTS = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"(?:\bmy (?:\w+ )?(?:phone|number|mobile|cell)(?: number)?|\b(?:call|text|reach|contact"
        r"|whatsapp) me (?:at|on)|(?<!\w)мой (?:\w+ )?(?:телефон|номер)(?: телефона)?|звони(?:те)?"
        r" мне (?:на|по))\s*(?:is|:|-|—|это)?\s*(?P<phone>\+?\d[\d ().-]{5,}\d)",
        r"(?:\bmy (?:\w+ )?e-?mail(?: address)?|\b(?:email|e-mail|mail|write|reach|contact) me "
        r"(?:at|on)|(?<!\w)мо[яй] (?:\w+ )?(?:почта|e-?mail|имейл|мейл)|пиши(?:те)? (?:мне )?на)"
        r"\s*(?:is|:|-|—|это)?\s*(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
    )
)


def _grammar(text: str) -> _Grammar:
    return rules_ru if _CYRILLIC.search(text) else rules_en


def _statement(grammar: _Grammar, sentence: str) -> str:
    """The part of a sentence that states something: "" for a question; cut where a
    request to forget, a hypothetical or someone else's report begins."""
    sentence = _TAG_QUESTION.sub("", sentence)  # "I live in Lisbon, and you?"
    if _asks(grammar, sentence):
        return ""
    if (request := forget_rules.begins(sentence)) is not None:
        sentence = sentence[:request]
    guard = grammar.GUARD.search(sentence)
    if guard is None:
        return sentence
    if guard.group(0).lower() in ("бы", "б"):  # "я развелась бы с ним": its whole clause
        return sentence[: max(sentence.rfind(mark, 0, guard.start()) for mark in ",;:—") + 1]
    return sentence[: guard.start()]


def _asks(grammar: _Grammar, sentence: str) -> bool:
    return sentence.endswith("?") or grammar.QUESTION.search(sentence) is not None


def is_question(text: str) -> bool:
    """Whether a message asks something: one of its sentences is a question, a tag
    question after a statement aside ("I live in Lisbon, and you?")."""
    return any(
        _asks(grammar, _TAG_QUESTION.sub("", grammar.normalise(sentence)))
        for sentence in sentences(text)
        for grammar in (_grammar(sentence),)
    )


def claims(text: str, speaker: str) -> list[Claim]:
    """The personal facts a message states, first-person ones about `speaker`."""
    found: list[Claim] = []
    for sentence in sentences(text):
        grammar = _grammar(sentence)
        sentence = rules_leads.prepare(sentence, russian=grammar is rules_ru)
        statement = _statement(grammar, grammar.normalise(sentence))
        for clause in grammar.CLAUSE_BREAK.split(statement):
            clause = clause.strip(" ,;.!…")
            if clause:
                found += _introductions(grammar, clause, speaker)
                found += _said(grammar, clause, speaker)
                found += _contacts(clause, speaker)
    return list(dict.fromkeys(found))


def _is_name(name: str, grammar: _Grammar) -> bool:
    return all(
        word.lower() not in grammar.NOT_NAMES and word.lower() not in STOP_WORDS
        for word in name.split()
    )


def _introductions(grammar: _Grammar, clause: str, speaker: str) -> list[Claim]:
    """'my sister Priya lives in Oslo': the speaker's sister, and where Priya lives."""
    found = []
    lead = grammar.LEAD.match(clause)
    start = lead.end() if lead else 0
    for pattern in _INTROS[grammar]:
        for match in pattern.finditer(clause):
            relation = grammar.relation(match.group("rel"))
            name = match.group("name")
            if relation is None or not _is_name(name, grammar):
                continue
            attribute, kind, ended = relation
            rest = rules_life.apposition(match.group("rest").lstrip(" ,—–-"))
            parted = rules_life.parted(attribute, clause[: match.start()], match.group("rest"))
            ended = ended or bool(grammar.GONE.match(rest)) or parted
            value = name if attribute == "spouse" else f"{kind} {name}"
            found.append(Claim(speaker, attribute, value, ended))
            if match.start() == start and rest and not ended and attribute != "pet":
                rest = _speaker_named(grammar, rest, speaker)
                said = _said(grammar, grammar.first_person(rest), name)
                if not said and "," in rest:  # "Марина, пилот в «Победе», летает ..."
                    said = _said(grammar, grammar.first_person(rest.partition(",")[0]), name)
                found += said
    return found


_SPEAKER_EN = re.compile(r"\b(?:me|myself)\b|\b(my)\b", re.I)


def _speaker_named(grammar: _Grammar, rest: str, speaker: str) -> str:
    """What the speaker says of someone else names the speaker where it said "me" ("is
    taking me to their concert" -> "is taking mia to ..."), or the claim about them would
    read as their own "me"."""
    if grammar is rules_ru:
        return rest
    return _SPEAKER_EN.sub(lambda m: f"{speaker}'s" if m.group(1) else speaker, rest)


def _said(grammar: _Grammar, clause: str, subject: str) -> list[Claim]:
    """Claims the rules find in one clause said by (or of) `subject`."""
    text, negated, ended = grammar.negation(clause)
    found = []
    for rules, clean in _READERS[grammar]:
        for match in (m for rule in rules for m in rule.finditer(text)):
            for group, raw in match.groupdict().items():
                if raw is None:
                    continue
                kind = group.rstrip("0123456789")
                stopped, kind = kind.endswith("__end"), kind.removesuffix("__end")
                if stopped and negated:
                    continue  # "I didn't quit Google", "I'm not single": nothing ended
                for said in _values(grammar, kind, raw):
                    for attribute, value in clean(kind, said):
                        if grammar is rules_ru:
                            value = rules_ru.dictionary_form(attribute, value)
                        found.append(_claim(subject, attribute, value, negated, ended or stopped))
    if ALWAYS.search(clause):
        found = [claim if claim.negated else replace(claim, emphatic=True) for claim in found]
    return found


_STRIP = " .!?…\"'«»“”—–-"
_WHOLE = frozenset({"lives_in", "from", "address", "birthday"})  # "Austin, Texas"
_UNTIMED = frozenset({"plan", "plan_go", "trip", *_WHOLE})  # "fly to Oslo next week"
_LISTS = {
    "likes": False,
    "dislikes": False,
    "allergy": True,
    "condition": True,
    "speaks": True,
    "eats": True,
    "drinks": False,
}


def _values(grammar: _Grammar, kind: str, raw: str) -> list[str]:
    """The values in what a rule caught: cut where the clause moves on, split if it is a
    list ("pizza, pasta and sushi"; "English and Russian"), trimmed of time and filler."""
    raw = grammar.SUBORDINATE.split(raw, maxsplit=1)[0]
    parts = [raw]
    if kind == "have":
        parts = grammar.ITEMS.split(raw)
    elif kind in _LISTS and (
        _LISTS[kind] or ("," in raw and grammar.LIST.search(raw.rpartition(",")[2]))
    ):
        parts = grammar.LIST.split(raw)
        parts = parts[:1] if any(len(part.split()) > 4 for part in parts) else parts
    return [value for part in parts if (value := _trim(grammar, kind, part))]


_PICTURES = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+")


def _trim(grammar: _Grammar, kind: str, value: str) -> str:
    value = _PICTURES.sub("", value)  # "oat flat whites ☕"
    if kind not in _WHOLE:
        value = re.split(r"\s*[,:]", value, maxsplit=1)[0]
    elif kind == "birthday":  # "3 августа, напомни друзьям" ends at the date ("March 3, 1990")
        value = re.split(r"\s*,(?!\s*\d)", value, maxsplit=1)[0]
    value = value.strip(_STRIP)
    while kind not in _UNTIMED and (match := grammar.TRAIL.search(value)):
        value = value[: match.start()].strip(_STRIP)
    return value


def _claim(subject: str, attribute: str, value: str, negated: bool, ended: bool) -> Claim:
    if attribute == "eats":  # "I don't eat X": avoids X; "I eat X again": avoids it no more
        return Claim(subject, "avoids", value, not negated)
    if attribute == "drinks":  # "I don't drink X": avoids X; "I drink X": a usual order
        return Claim(subject, "avoids", value) if negated else Claim(subject, "usual_order", value)
    if attribute == "likes" and negated and not ended:
        return Claim(subject, "dislikes", value)  # "I don't like X": a dislike, not an end
    return Claim(subject, attribute, value, negated or ended)


def _contacts(clause: str, speaker: str) -> list[Claim]:
    found = []
    for pattern in _CONTACTS:
        for match in pattern.finditer(clause):
            for attribute, value in match.groupdict().items():
                if value and (attribute != "phone" or len(re.sub(r"\D", "", value)) >= 7):
                    found.append(Claim(speaker, attribute, value.strip()))
    return found


def forget_request(text: str, speaker: str) -> Forget | None:
    """A request to forget something about the speaker, or None if the text is not one.
    Requests are read by `forget_rules`; a fact stated in one ("forget that I live in
    Lisbon") by `claims`."""
    if not forget_rules.may_ask(text):
        return None
    return forget_rules.request(text, sentences(text), speaker, claims)
