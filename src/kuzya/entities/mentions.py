"""Entity mentions on the hot path, English and Russian, without a model.

Three rules find mentions in microseconds: names the store already knows, anywhere in a
sentence (its gazetteer, matched on stems so that "Маша", "Маше" and "Машей" meet),
relations that introduce a name ("my brother Leo", "моя сестра Маша", "a dog named Rex"),
and capitalised words ("we flew to Oslo"). A capitalised word that starts a sentence is a
name only when it is no everyday word of its language and the word after it reads as what
follows a name ("Melanie started pottery", "Google offered me a job", "Оля переехала").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from kuzya.language.common_words import zipf
from kuzya.language.text import STOP_WORDS, stem
from kuzya.model import Mention

_RELATIONS_EN = (
    "sister brother mom mum mother dad father wife husband son daughter friend boss partner "
    "girlfriend boyfriend cousin aunt uncle niece nephew grandma grandpa grandmother "
    "grandfather colleague roommate neighbor neighbour teacher coach dog cat puppy kitten "
    "horse parrot hamster rabbit"
).split()
# Stems of Russian relation words (any case: "сестра", "сестрой", "сестру") -> relation.
_RELATIONS_RU = {
    "сестр": "sister", "брат": "brother", "мам": "mom", "пап": "dad", "жен": "wife",
    "муж": "husband", "сын": "son", "доч": "daughter", "подруг": "friend", "друг": "friend",
    "начальни": "boss", "коллег": "colleague", "сосед": "neighbour", "собак": "dog",
    "пс": "dog", "пёс": "dog", "пес": "dog", "кошк": "cat", "кот": "cat", "бабушк": "grandma",
    "дедушк": "grandpa", "тёт": "aunt", "тет": "aunt", "дяд": "uncle", "племянниц": "niece",
    "племянник": "nephew",
}  # fmt: skip
# Names kept per message, the first ones in the text: what a message links and
# associates stays bounded (a pasted list of thousands of names is not thousands of people
# talked about together).
MAX_NAMES = 32
_NAME = r"([A-ZА-ЯЁ][\w'’-]*(?: [A-ZА-ЯЁ][\w'’-]*)?)"
_RELATION_RULES = [
    re.compile(
        rf"\b(?i:my ({'|'.join(_RELATIONS_EN)})"
        r"(?:'s name is| is called| is named| named| is|,)?) " + _NAME
    ),
    re.compile(rf"{_NAME}, (?i:my ({'|'.join(_RELATIONS_EN)}))\b"),
    re.compile(
        r"(?<!\w)(?i:(?:мо[а-яё]{1,3}|у меня(?: есть)?|с|со) "
        rf"((?:{'|'.join(_RELATIONS_RU)})[а-яё]*)"
        r"(?: по имени| по кличке| зовут)?) " + _NAME
    ),
    re.compile(rf"\b(?i:(?:a|an|the|our|my) (\w+) (?:is )?(?:named|called)) {_NAME}"),
]
_NAME_FIRST = {1}  # rules whose first group is the name, the second the relation
# "моя сестра", "с моей сестрой": a Russian relation phrase, looked up as "my sister".
_MY_RELATION_RU = re.compile(
    rf"(?<!\w)(?i:мо[а-яё]{{1,3}} ((?:{'|'.join(_RELATIONS_RU)})[а-яё]*))(?!\w)"
)
_NOT_RELATIONS = ("котор", "мужчин", "женщин", "другой", "другая", "других", "другим")
_CAPITALISED = re.compile(
    r"(?<![\w'’])([A-ZА-ЯЁ][\w'’-]+(?: (?:[A-ZА-ЯЁ][\w'’-]+|(?:de|da|van|von)(?= [A-Z])))*)"
)
_SENTENCE_START = re.compile(r"(^|[.!?…:;\"«(]\s*|\n\s*)$")
_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Prof)\.\s*$")
# Capitalised but not names: greetings, weekdays, months, pronouns and the like.
_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll ok okay hey hi hello thanks thank wow yes yeah no oh omg lol
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays january february march april may
    june july august september october november december today tomorrow yesterday mr mrs ms
    dr sir madam привет спасибо да нет ну ой ага понедельник вторник среда четверг пятница
    суббота воскресенье январь февраль март апрель май июнь июль август сентябрь октябрь
    ноябрь декабрь сегодня вчера завтра""".split()
)

# A word that starts a sentence: this common (Zipf) and it is no name however it is used;
# below RARE, a verb after it is evidence enough, above only a telling one.
COMMON = 5.0
RARE = 4.0
# Shapes of words that are no names: English adverbs, participles and abstract nouns;
# Russian infinitives, reflexive verbs, adjectives, adverbs and abstract nouns.
_NOT_NAME_SHAPE = re.compile(
    r"\w{3,}(?:ly|ing|ed|ness|ity|tion|sion|ment|ship|ism)|"
    r"[а-яё]{2,}(?:ть|ться|ся|сь|ешь|ишь|ый|ая|яя|ое|ее|ые|ие|ого|его|ому|ему|ом|ем|ью|"
    r"но|ро|ко|мо|ние|ость|ство|ция|тие)"
)
# What may follow a name that starts a sentence. Telling: a verb of saying, a past tense, a
# verb in the third person ("Leo lives", "Яндекс позвал", "Оля переехала"), an apposition
# ("Кирилл, мой сосед"), "and I" ("Sarah and I"). Weak: a copula ("Oslo is", "Pottery is").
_TELLING = re.compile(
    r"(?:,? (?:said|says|told|asked|wants|lives|works|loves|likes|looks|sounds|thinks|knows|"
    r"gets|got|makes|made|went|came|took|gave|left|won|bought|seems|plays|[a-z]{2,}ed)\b|"
    r" and (?:I|me)\b|"
    r",? [а-яё]+(?:ал|ял|ил|ел|ёл|ыл|ол|ул|ла|ло|ли|лся|лась|лось|лись|ет|ёт|ит|ут|ют|ат|ят)"
    r"(?![а-яё])|, (?:my|our|мой|моя|мои|наш|наша)(?!\w)|"
    r" и (?:я|мы)(?![а-яё]))"
)
_WEAK = re.compile(r" (?:is|was|has|had|был|была|было)\b")


@lru_cache(maxsize=1 << 16)  # every word of every message is keyed: most words repeat
def key(name: str) -> str:
    """What mentions of one entity share: the stems of its words ("Маше" ~ "Маша")."""
    words = re.findall(r"[^\W_]+", re.sub(r"['’]s\b", "", name.lower()).replace("ё", "е"))
    return " ".join(stem(w) if re.search("[а-я]", w) else w for w in words)


Found = list[tuple[int, Mention]]  # mentions with where they start in the text


def _known(text: str, gazetteer: Mapping[str, str]) -> Found:
    """Known names, matched on the keys of one to three consecutive words."""
    matches = list(re.finditer(r"[^\W_]+(?:['’][^\W_]+)?", text))
    words = [m.group(0) for m in matches]
    keys = [key(w) for w in words]
    found = []
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            joined = " ".join(keys[start : start + size])
            if joined in gazetteer:
                name = " ".join(words[start : start + size])
                found.append((matches[start].start(), Mention(name, gazetteer[joined])))
    return found


def _relation(word: str) -> str:
    """An English relation word as is; a Russian one in any case, by its stem."""
    word = word.lower()
    for stem_, relation in _RELATIONS_RU.items():
        if word.startswith(stem_):
            return relation
    return word


def _relations(text: str) -> Found:
    found = []
    for number, rule in enumerate(_RELATION_RULES):
        for match in rule.finditer(text):
            relation, name = match.group(1), match.group(2)
            if number in _NAME_FIRST:
                relation, name = name, relation
                words = name.split()
                while len(words) > 1 and not _is_name(words[0]):
                    words = words[1:]  # "Yesterday Omar, my cousin": Omar
                name = " ".join(words)
            if relation.lower().startswith(_NOT_RELATIONS):
                continue  # "с которым", "с другой": not a relation
            found.append((match.start(), Mention(name, key(name), _relation(relation))))
    return found


def _is_name(word: str) -> bool:
    lowered = re.sub(r"['’]s?$", "", word.lower())
    return lowered not in _NOT_NAMES and lowered not in STOP_WORDS


def is_name(word: str) -> bool:
    """Whether a capitalised word may be a name: not a greeting, a weekday, a pronoun..."""
    return _is_name(word)


def _my_relations(text: str, gazetteer: Mapping[str, str]) -> Found:
    """Russian relation phrases that stand for someone already introduced."""
    found = []
    for match in _MY_RELATION_RU.finditer(text):
        word = match.group(1)
        if word.lower().startswith(_NOT_RELATIONS):
            continue
        alias = f"my {_relation(word)}"
        if alias in gazetteer:
            found.append((match.start(), Mention(match.group(0), gazetteer[alias])))
    return found


def _opens_name(word: str, after: str, text: str) -> bool:
    """Whether a capitalised word that starts a sentence is a name, by what it is and by
    the words after it: no stop word, relation or everyday word, not shaped like a verb or
    an adverb, not written in lower case elsewhere in the text, and followed by what
    follows a name. The cheap tests come first: most such words are everyday ones."""
    lowered = re.sub(r"['’]s$", "", word.lower())
    if not _is_name(lowered):
        return False
    frequency = zipf(lowered)
    if frequency >= COMMON:
        return False
    if not _TELLING.match(after):
        weak = word.endswith(("'s", "’s")) or _WEAK.match(after)  # "Nature's", "Pottery is"
        if frequency >= RARE or not weak:
            return False
    return not (
        lowered in _RELATIONS_EN
        or _relation(lowered) != lowered
        or _NOT_NAME_SHAPE.fullmatch(lowered)
        or (lowered.endswith("s") and zipf(lowered[:-1]) >= RARE)  # "Pets", "Lots"
        or lowered in re.findall(r"(?<![\w'’-])[a-zа-яё][\w'’-]*", text)
    )


def _capitalised(text: str) -> Found:
    found = []
    for match in _CAPITALISED.finditer(text):
        words = match.group(1).split()
        before = text[max(0, match.start() - 32) : match.start()]  # what the start depends on
        starts = _SENTENCE_START.search(before) and not _TITLE.search(before)
        if starts and not _opens_name(words[0], text[match.end() : match.end() + 32], text):
            words = words[1:]
        while words and not _is_name(words[0]):
            words = words[1:]
        if words:
            name = re.sub(r"['’]s$", "", " ".join(words))
            found.append((match.start(), Mention(name, key(name))))
    return found


def mentions(text: str, gazetteer: Mapping[str, str] | None = None) -> list[Mention]:
    """Entity mentions in a message, one per key, the most informative rule winning, in
    the order they first appear; at most MAX_NAMES (a list of names is not a story)."""
    by_key: dict[str, Mention] = {}
    introduced = _relations(text)
    # A phrase that introduces someone ("my colleague Ruby") is not also an alias of
    # whoever was "my colleague" before: known names are looked for in the rest.
    rest = text
    for rule in _RELATION_RULES:
        rest = rule.sub(lambda match: " " * len(match.group(0)), rest)
    candidates: Iterable[tuple[int, Mention]] = [
        *introduced,
        *_known(rest, gazetteer or {}),
        *_my_relations(rest, gazetteer or {}),
        *_capitalised(text),
    ]
    first: dict[str, int] = {}
    for at, mention in candidates:
        canonical = (gazetteer or {}).get(mention.key, mention.key)  # a known alias
        if canonical and canonical not in by_key:
            by_key[canonical] = Mention(mention.name, canonical, mention.relation)
        first[canonical] = min(at, first.get(canonical, at))
    return sorted(by_key.values(), key=lambda m: first[m.key])[:MAX_NAMES]
