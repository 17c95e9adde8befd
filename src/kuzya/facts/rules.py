"""Personal facts found by rules, without a model, in English and Russian.

`claims` reads a message and returns what the speaker says about themselves ("I live in
Lisbon") or about a relative they name ("my sister Priya is a nurse"); `forget_request`
reads a request to forget ("forget my address", "забудь, где я живу").

How a message is read: sentences, each in its language; questions dropped; a sentence cut
where a hypothetical or someone else's report begins ("if", "I wish", "she said", "если
бы"); clauses split where a new subject starts ("..., and I play the cello"); a relative
introduced by name ("my sister Priya") gives a family claim, and what follows is read as
said by that person; then anchored rules match each clause, their named groups holding
the values (`<attribute or kind>[__end][digits]`: `__end` marks a fact that ended, as in
"I quit Google"). A negation before the verb ("I don't", "I no longer", "больше не") is
lifted first, so one rule serves both: "I don't like X" is a dislike, "I don't like X
anymore" ends a like, "I no longer live in X" ends lives_in. The grammars are in
`rules_en` and `rules_ru`.

Value conventions:
- places, organisations, names and free text as said, trimmed of trailing time and filler
  phrases ("I moved to Austin last month" -> "Austin"; Russian keeps its case: "Казани");
- likes: the thing ("pizza"); "my favourite food is pizza" -> "pizza"; "I play the cello"
  -> "playing the cello" ("играю на гитаре" -> "играть на гитаре"); a list said with
  commas gives one claim per item;
- pet: "<kind> <name>" or "<kind>" ("dog Rex", "golden retriever Max", "собака Рекс");
  family: "<relation> <name>" ("sister Priya", "older brother Leo", "сестра Маша"), or the
  relation alone ("two kids", "сестра"); friends and colleagues count as family; spouse
  (any partner): the name;
- plan: a verb phrase completing "plans to ...", time phrase kept ("fly to Oslo next week",
  "поехать в Париж летом");
- studies: the complement of "studies" ("physics", "at MIT", "в МГУ");
- Russian words the lexicons know come in the dictionary form ("работаю врачом" -> "врач").

`Forget` with both an attribute and `about` ("forget that I live in Lisbon") means that
one fact; with neither ("forget everything about me"), everything about the speaker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from kuzya.facts import rules_en, rules_ru
from kuzya.facts.schema import Claim, Forget
from kuzya.text import STOP_WORDS


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


_CYRILLIC = re.compile(r"[а-яё]", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'»”)]*\s+|\s*\n+\s*")
_ABBREVIATION = re.compile(
    r"\b(?:mr|mrs|ms|dr|st|prof|jr|sr|vs|etc|e\.g|i\.e|tel|г|ул|д|кв|стр|корп|пр|пос)\.$", re.I
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
_BARE_NAME = re.compile(r"(?-i:[A-ZА-ЯЁ][a-zа-яё]+(?:\s+[A-ZА-ЯЁ][a-zа-яё]+)?)")


def _grammar(text: str) -> _Grammar:
    return rules_ru if _CYRILLIC.search(text) else rules_en


def _sentences(text: str) -> list[str]:
    found, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if "\n" not in match.group(0) and _ABBREVIATION.search(text[start : match.start()]):
            continue  # "Dr. Smith", "St. Petersburg"
        found.append(text[start : match.start()])
        start = match.end()
    found.append(text[start:])
    return [sentence.strip() for sentence in found if sentence.strip()]


def _statement(grammar: _Grammar, sentence: str) -> str:
    """The part of a sentence that states something: "" for a question or a request to
    forget; cut where a hypothetical or someone else's report begins."""
    sentence = _TAG_QUESTION.sub("", sentence)  # "I live in Lisbon, and you?"
    if sentence.endswith("?") or grammar.QUESTION.search(sentence):
        return ""
    if _forgetting(sentence).request.match(sentence):
        return ""
    guard = grammar.GUARD.search(sentence)
    return sentence[: guard.start()] if guard else sentence


def claims(text: str, speaker: str) -> list[Claim]:
    """The personal facts a message states, first-person ones about `speaker`."""
    found: list[Claim] = []
    for sentence in _sentences(text):
        grammar = _grammar(sentence)
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
    for pattern in grammar.INTROS:
        for match in pattern.finditer(clause):
            relation = grammar.relation(match.group("rel"))
            name = match.group("name")
            if relation is None or not _is_name(name, grammar):
                continue
            attribute, kind, ended = relation
            rest = match.group("rest").lstrip(" ,—–-")
            ended = ended or bool(grammar.GONE.match(rest))
            value = name if attribute == "spouse" else f"{kind} {name}"
            found.append(Claim(speaker, attribute, value, ended))
            if match.start() == start and rest and not ended and attribute != "pet":
                found += _said(grammar, grammar.first_person(rest), name)
    return found


def _said(grammar: _Grammar, clause: str, subject: str) -> list[Claim]:
    """Claims the rules find in one clause said by (or of) `subject`."""
    text, negated, ended = grammar.negation(clause)
    found = []
    for rule in grammar.RULES:
        for match in rule.finditer(text):
            for group, raw in match.groupdict().items():
                if raw is None:
                    continue
                kind = group.rstrip("0123456789")
                stopped, kind = kind.endswith("__end"), kind.removesuffix("__end")
                for said in _values(grammar, kind, raw):
                    for attribute, value in grammar.clean(kind, said):
                        found.append(_claim(subject, attribute, value, negated, ended or stopped))
    return found


_STRIP = " .!?…\"'«»“”—–-"
_WHOLE = frozenset({"lives_in", "from", "address", "birthday"})  # "Austin, Texas"
_UNTIMED = frozenset({"plan", "plan_go", *_WHOLE})  # "fly to Oslo next week"
_LISTS = {"likes": False, "dislikes": False, "allergy": True, "condition": True, "speaks": True}


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


def _trim(grammar: _Grammar, kind: str, value: str) -> str:
    if kind not in _WHOLE:
        value = re.split(r"\s*[,:]", value, maxsplit=1)[0]
    value = value.strip(_STRIP)
    while kind not in _UNTIMED and (match := grammar.TRAIL.search(value)):
        value = value[: match.start()].strip(_STRIP)
    return value


def _claim(subject: str, attribute: str, value: str, negated: bool, ended: bool) -> Claim:
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


# -- forgetting ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Forgetting:
    """How one language asks to forget, and how it names what is to be forgotten."""

    request: re.Pattern[str]  # the imperative; group `what`
    tail: re.Pattern[str]  # "please", "from your memory"
    everything: re.Pattern[str]
    targets: tuple[tuple[re.Pattern[str], str], ...]  # "where I live" -> lives_in
    about: re.Pattern[str]  # group `about`
    that: re.Pattern[str]  # group `fact`: a stated fact, read by `claims`
    mine: re.Pattern[str]  # group `rel`: "my sister"
    pronouns: frozenset[str]


def _targets(spec: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    lines = (line.split(":", 1) for line in spec.strip().splitlines())
    return tuple((re.compile(pattern.strip(), re.I), name.strip()) for name, pattern in lines)


_FORGET_EN = _Forgetting(
    request=re.compile(
        r"^(?:(?:hey|ok|okay|so|and|also|now|please|pls|kindly|kuzya)[\s,]+)*(?:(?:can|could"
        r"|would|will) you (?:please )?|i (?:want|need) you to |i would like you to )?(?:please )?"
        r"(?:forget|delete|erase|remove|wipe|scrub|drop|clear)\b(?:\s+about\b)?[\s,:]*"
        r"(?P<what>.*?)[\s.!?]*$",
        re.I,
    ),
    tail=re.compile(
        r"[\s,]*(?:please|pls|for me|from (?:your |the )?memory|permanently|forever|completely"
        r"|entirely|right now|now|thanks|thank you)[\s.!?]*$",
        re.I,
    ),
    everything=re.compile(
        r"(?:everything|all|all of it)(?: (?:about me|you know(?: about me)?|i (?:have )?(?:told"
        r"|said to) you|i said))?|(?:all )?(?:my data|my info(?:rmation)?|about me|me)",
        re.I,
    ),
    targets=_targets(
        r"""
        address: (?:my |the )?(?:home |current )?address
        lives_in: where i (?:live|am living|moved(?: to)?|stay)|my (?:city|location|current city)
        from: where i am from|where i come from|my (?:hometown|home town|origin)
        works_at: where i work|my (?:employer|company|workplace)
        job: what i do(?: for (?:a living|work))?|my (?:job|occupation|profession|work)
        name: my (?:real |full |first )?name|what my name is
        age: my age|how old i am
        birthday: my (?:birthday|birth date|date of birth)|when i was born
        phone: my (?:phone|mobile|cell)(?: number)?|my number
        email: my e-?mail(?: address)?
        allergy: my allerg(?:y|ies)|what i am allergic to
        diet: my diet
        condition: my (?:health|medical) \w+|my (?:diagnosis|diagnoses|conditions?)
        pet: my pets?
        family: my family
        plan: my plans?|what i am planning
        likes: what i (?:like|love)|my (?:likes|preferences|hobbies|interests)
        dislikes: what i (?:hate|dislike)|my dislikes
        speaks: (?:the |what )?languages? i speak
        studies: what i study|my (?:studies|major|degree)|where i study
        """
    ),
    about=re.compile(
        r"(?:(?:everything|anything|all|what|the things?|the stuff|stuff|whatever)\s+)?(?:(?:that"
        r"\s+)?i\s+(?:have\s+)?(?:told you|said|mentioned|shared|wrote)(?:\s+to you)?\s+)?about"
        r"\s+(?:my\s+)?(?P<about>.+)",
        re.I,
    ),
    that=re.compile(r"that\s+(?P<fact>.+)", re.I),
    mine=re.compile(r"(?:my|our)\s+(?P<rel>[\w-]+)", re.I),
    pronouns=frozenset("it this that him her them those these me".split()),
)
_FORGET_RU = _Forgetting(
    request=re.compile(
        r"^(?:(?:пожалуйста|слушай|кузя|и|а|ну|теперь|прошу|так)[\s,]+)*(?:(?:ты )?(?:можешь"
        r"|можете|не мог бы ты|не могла бы ты)\s+)?(?:забудь|забудьте|удали|удалите|сотри|сотрите"
        r"|убери|уберите|забыть|удалить|стереть)(?!\w)[\s,:]*(?:пожалуйста[\s,]*)?(?P<what>.*?)"
        r"[\s.!?,]*$",
        re.I,
    ),
    tail=re.compile(
        r"[\s,]*(?:пожалуйста|из (?:своей )?памяти|насовсем|навсегда|полностью|совсем)[\s.!]*$",
        re.I,
    ),
    everything=re.compile(
        r"(?:вообще )?(?:всё|все)(?: (?:обо мне|что ты (?:обо мне )?знаешь|что я (?:тебе )?"
        r"(?:говорил|говорила|рассказывал|рассказывала)))?|обо мне",
        re.I,
    ),
    targets=_targets(
        r"""
        address: (?:мой |мою )?(?:домашний )?адрес
        lives_in: где я (?:сейчас )?живу|мой город
        from: откуда я(?: родом)?|мой родной город
        works_at: где я работаю|(?:моё |мое )?место работы|мою компанию
        job: кем я работаю|мою (?:работу|профессию|должность)
        name: (?:моё |мое )?имя|как меня зовут
        age: (?:мой )?возраст|сколько мне лет
        birthday: (?:мой )?день рождения|когда я родил(?:ся|ась)
        phone: (?:мой )?(?:номер(?: телефона)?|телефон)
        email: (?:мою |мой )?(?:почту|e-?mail|имейл|электронную почту)
        allergy: (?:мои |мою |про )?аллерги\w*|на что у меня аллергия
        diet: (?:мою )?диету
        condition: (?:мои |мой |мою )?(?:диагноз\w*|болезн\w*|заболевани\w*)
        pet: (?:моих )?(?:питомцев|животных)
        family: (?:мою )?семью
        plan: (?:мои )?планы
        likes: что я люблю|что мне нравится
        speaks: (?:на )?как\w* языках? я говорю|какие языки я знаю
        studies: где я учусь|что я изучаю
        """
    ),
    about=re.compile(
        r"(?:(?:всё|все|всю информацию|то,? что|что)\s+)?(?:(?:я\s+)?(?:тебе\s+)?(?:говорил"
        r"|говорила|рассказывал|рассказывала|рассказал|рассказала|писал|писала)\s+(?:тебе\s+)?)?"
        r"(?:про|о|об|обо)\s+(?:мо\w+\s+)?(?P<about>.+)",
        re.I,
    ),
    that=re.compile(r"что\s+(?P<fact>.+)", re.I),
    mine=re.compile(r"(?:мо\w+|нашу|нашего)\s+(?P<rel>[\w-]+)", re.I),
    pronouns=frozenset("это этом этого этой нём нем ней них него неё нее тебе тебя".split()),
)


def _forgetting(text: str) -> _Forgetting:
    return _FORGET_RU if _CYRILLIC.search(text) else _FORGET_EN


def forget_request(text: str, speaker: str) -> Forget | None:
    """A request to forget something about the speaker, or None if the text is not one."""
    for sentence in _sentences(text):
        grammar = _grammar(sentence)
        sentence = grammar.normalise(sentence)
        match = _forgetting(sentence).request.match(sentence)
        if match and (found := _forget(grammar, match.group("what"), speaker)):
            return found
    return None


def _forget(grammar: _Grammar, what: str, speaker: str) -> Forget | None:
    phrases = _forgetting(what)
    while (tail := phrases.tail.search(what)) and tail.start() > 0:
        what = what[: tail.start()]
    what = what.strip(" ,.!?")
    if not what or what.lower() in phrases.pronouns:
        return None
    if phrases.everything.fullmatch(what):
        return Forget(speaker, None, None)
    for pattern, attribute in phrases.targets:
        if pattern.fullmatch(what):
            return Forget(speaker, attribute, None)
    if match := phrases.about.fullmatch(what):
        about = match.group("about").strip(" ,.!?")
        return None if about.lower() in phrases.pronouns else Forget(speaker, None, about)
    if match := phrases.that.fullmatch(what):
        stated = claims(match.group("fact"), speaker)
        return Forget(speaker, stated[0].attribute, stated[0].value) if stated else None
    if (match := phrases.mine.fullmatch(what)) and grammar.relation(match.group("rel")):
        return Forget(speaker, None, match.group("rel"))
    if _BARE_NAME.fullmatch(what) and _is_name(what, grammar):
        return Forget(speaker, None, what)
    return None
