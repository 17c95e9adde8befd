"""Entity mentions on the hot path, English and Russian, without a model.

Three rules find mentions in microseconds: names the store already knows (its
gazetteer, matched on stems so that "Маша", "Маше" and "Машей" meet), relations that
introduce a name ("my brother Leo", "моя сестра Маша", "a dog named Rex"), and capitalised
words that do not start a sentence ("we flew to Oslo").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kuzya.text import STOP_WORDS, stem

_RELATIONS_EN = (
    "sister brother mom mum mother dad father wife husband son daughter friend boss partner "
    "girlfriend boyfriend cousin aunt uncle niece nephew grandma grandpa grandmother "
    "grandfather colleague roommate neighbor neighbour teacher coach dog cat puppy kitten "
    "horse parrot hamster rabbit"
).split()
_RELATIONS_RU = {
    "сестра": "sister", "брат": "brother", "мама": "mom", "папа": "dad", "жена": "wife",
    "муж": "husband", "сын": "son", "дочь": "daughter", "друг": "friend", "подруга": "friend",
    "начальник": "boss", "начальница": "boss", "коллега": "colleague", "соседка": "neighbour",
    "сосед": "neighbour", "собака": "dog", "пёс": "dog", "пес": "dog", "кот": "cat",
    "кошка": "cat", "бабушка": "grandma", "дедушка": "grandpa", "тётя": "aunt", "тетя": "aunt",
    "дядя": "uncle", "племянник": "nephew", "племянница": "niece",
}  # fmt: skip
_PETS = {"dog", "cat", "puppy", "kitten", "horse", "parrot", "hamster", "rabbit"}
_NAME = r"([A-ZА-ЯЁ][\w'’-]*(?: [A-ZА-ЯЁ][\w'’-]*)?)"
_RELATION_RULES = [
    re.compile(
        rf"\b(?i:my ({'|'.join(_RELATIONS_EN)})(?:'s name is| is called| named|,)?) {_NAME}"
    ),
    re.compile(
        rf"(?<!\w)(?i:(?:мо[яйеё]|у меня) ({'|'.join(_RELATIONS_RU)})"
        rf"(?: по имени| по кличке| зовут)?) {_NAME}"
    ),
    re.compile(rf"\b(?i:(?:a|an|the|our|my) (\w+) (?:named|called)) {_NAME}"),
]
_CAPITALISED = re.compile(
    r"(?<![\w'’])([A-ZА-ЯЁ][\w'’-]+(?: (?:[A-ZА-ЯЁ][\w'’-]+|de|da|van|von))*)"
)
_SENTENCE_START = re.compile(r"(^|[.!?…:;\"«(]\s*|\n\s*)$")
# Capitalised but not names: greetings, weekdays, months, pronouns and the like.
_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll ok okay hey hi hello thanks thank wow yes yeah no oh omg lol
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december today tomorrow yesterday mr mrs ms
    dr sir madam привет спасибо да нет ну ой ага понедельник вторник среда четверг пятница
    суббота воскресенье январь февраль март апрель май июнь июль август сентябрь октябрь
    ноябрь декабрь сегодня вчера завтра""".split()
)


def key(name: str) -> str:
    """What mentions of one entity share: the stems of its words ("Маше" ~ "Маша")."""
    words = re.findall(r"[^\W_]+", re.sub(r"['’]s\b", "", name.lower()).replace("ё", "е"))
    return " ".join(stem(w) if re.search("[а-я]", w) else w for w in words)


@dataclass(frozen=True)
class Mention:
    """A name in a message: as written, its key, and what the text says it is."""

    name: str
    key: str
    relation: str | None = None  # "brother", "dog", ... from "my brother Leo"

    @property
    def kind(self) -> str:
        if self.relation in _PETS:
            return "pet"
        return "person" if self.relation else "name"


def _known(text: str, gazetteer: Mapping[str, str]) -> list[Mention]:
    """Known names, matched on the keys of one to three consecutive words."""
    words = re.findall(r"[^\W_]+(?:['’][^\W_]+)?", text)
    keys = [key(w) for w in words]
    found = []
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            joined = " ".join(keys[start : start + size])
            if joined in gazetteer:
                found.append(Mention(" ".join(words[start : start + size]), gazetteer[joined]))
    return found


def _relations(text: str) -> list[Mention]:
    found = []
    for rule in _RELATION_RULES:
        for match in rule.finditer(text):
            relation, name = match.group(1).lower(), match.group(2)
            relation = _RELATIONS_RU.get(relation, relation)
            found.append(Mention(name, key(name), relation))
    return found


def _is_name(word: str) -> bool:
    lowered = re.sub(r"['’]s?$", "", word.lower())
    return lowered not in _NOT_NAMES and lowered not in STOP_WORDS


def _capitalised(text: str) -> list[Mention]:
    found = []
    for match in _CAPITALISED.finditer(text):
        words = match.group(1).split()
        if _SENTENCE_START.search(text[: match.start()]):
            words = words[1:]  # a capital that starts a sentence says nothing
        while words and not _is_name(words[0]):
            words = words[1:]
        if words:
            name = re.sub(r"['’]s$", "", " ".join(words))
            found.append(Mention(name, key(name)))
    return found


def mentions(text: str, gazetteer: Mapping[str, str] | None = None) -> list[Mention]:
    """Entity mentions in a message, one per key, the most informative rule winning."""
    by_key: dict[str, Mention] = {}
    introduced = _relations(text)
    # A phrase that introduces someone ("my colleague Ruby") is not also an alias of
    # whoever was "my colleague" before: known names are looked for in the rest.
    rest = text
    for rule in _RELATION_RULES:
        rest = rule.sub(lambda match: " " * len(match.group(0)), rest)
    candidates: Iterable[Mention] = [
        *introduced,
        *_known(rest, gazetteer or {}),
        *_capitalised(text),
    ]
    for mention in candidates:
        canonical = (gazetteer or {}).get(mention.key, mention.key)  # a known alias
        if canonical and canonical not in by_key:
            by_key[canonical] = Mention(mention.name, canonical, mention.relation)
    return list(by_key.values())
