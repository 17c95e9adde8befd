"""Spoken requests to forget, English and Russian: "please forget my address", "could you
erase what I said about Tom", "don't keep that", "забудь, пожалуйста, где я работаю", "не
запоминай мой номер".

How a message is read: a request opens a clause, at the start of a sentence or after a
comma, a dash or "and" ("forget my address, delete it from your memory"), with an
imperative ("forget", "удали"), a polite form of one ("could you please erase", "I'd like
you to forget", "прошу, сотри") or a wish not to be remembered ("don't keep", "I'd rather
you didn't remember", "не запоминай"). What the clause names, once fillers ("please",
"from your memory", "пожалуйста", "из памяти") are set aside, must be one of:
- everything about the speaker ("everything you know about me", "всё обо мне");
- an attribute ("my old address", "where I work", "как меня зовут");
- something they spoke of ("what I said about Tom", "всё про Машу", "my sister", "Tom");
- a fact they stated ("that I live in Lisbon"), read by the fact rules;
- a pronoun or "what I just said": their previous message (`Forget.previous`).
The clause that names a thing wins over one with a pronoun. Anything else is no request,
since a false one destroys the user's data: the object must be recognised whole ("delete the
old photos from my phone" is none), a request after a hypothetical or someone's report ("if
...", "she said, ...") is none, "forget it" alone means "never mind", and "drop", "clear",
"scratch", "убери" need a word of memory ("scratch that from memory").

`Forget.said` is the message as it may be kept: what is to be forgotten replaced by "…"
("Please forget that …", "Забудь всё про …"), here and in its other sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kuzya.facts.forget_language import EN, RU, Language
from kuzya.facts.schema import Claim, Forget
from kuzya.language.text import STOP_WORDS, stem, tokens

# Every request has one of these in its lower-cased text (a strong verb, a keeping verb
# after a negation, a word of memory): most messages are done with after this search. Each
# alternative starts with a letter, so the search skips ahead quickly.
_KEEPING = r"\s(?:\w+\s)?(?:rememb|keep|stor|sav|memori|record|writ|note)"
_HOLDING = r"\s(?:\w+\s)?(?:запомин|храни|сохран|записыв|помни)"
_MAY_ASK = re.compile(
    r"forget|delet|erase|remov|wipe|scrub|purge|unlearn|you forgot|want you to"
    rf"|n't{_KEEPING}|not{_KEEPING}|stop{_KEEPING}|need to{_KEEPING}|from (?:your |the |my )?"
    r"(?:memor|record|database|notes|profile|files|mind|brain|head|system)|out of (?:your )?"
    r"(?:memory|mind|head)|забуд|забыть|удали|стереть|сотри|стёр|стерл|чтобы ты"
    rf"|не{_HOLDING}|из (?:своей |твоей |моей )?(?:памяти|головы|базы|записей|заметок|профиля)"
    r"|с концами"
)


def may_ask(text: str) -> bool:
    """Whether `text` may ask to forget: a few microseconds for an ordinary message."""
    return _MAY_ASK.search(text.lower()) is not None


_LONGEST = 300  # characters: an object longer than this names nothing the rules know
_LONGEST_SENTENCE = 1000
_CYRILLIC = re.compile(r"[а-яё]", re.I)
_NAME = re.compile(r"(?-i:[A-ZА-ЯЁ][a-zа-яё]+(?:\s+[A-ZА-ЯЁ][a-zа-яё]+)?)")
_BETWEEN_WORDS = re.compile(r"(?<=\w)[\s,:;—–-]+(?=\S)")
_VALUE = re.compile(r"[\s,:;—–-]+(?P<value>(?=.*(?:\d|@|(?-i:[A-ZА-ЯЁ]))).+?)[\s.!]*$", re.I)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def _language(text: str) -> Language:
    return RU if _CYRILLIC.search(text) else EN


def _heads(language: Language, sentence: str) -> list[tuple[int, re.Match[str]]]:
    """The requests a sentence makes: where each clause begins, and its opening. A clause
    joined by "and" is a request only after another ("forget X and delete Y", not "it is
    easy to get lost and forget that"). A sentence longer than a request ever is makes none.
    """
    heads: list[tuple[int, re.Match[str]]] = []
    if len(sentence) > _LONGEST_SENTENCE:
        return heads
    for begin, at, joined in [
        (0, 0, False),
        *(
            (m.start(), m.end(), bool(m.group("joined")))
            for m in language.clause.finditer(sentence)
        ),
    ]:
        head = language.head.match(sentence, at)
        if head and (heads or not joined) and not _guarded(language, sentence, begin, head):
            heads.append((begin, head))
    return heads


def _guarded(language: Language, sentence: str, begin: int, head: re.Match[str]) -> bool:
    """Whether the sentence makes a request none: a question not put as a request ("forget
    my address?" but not "can you forget my address?"), or a hypothetical or a report
    before it ("if ...", "she said, ...", but not "if you don't mind, ...")."""
    if sentence.rstrip(" \"'»”)").endswith("?") and not head.group("asked"):
        return True
    return (
        bool(begin)
        and not language.filler.fullmatch(sentence, 0, begin)
        and bool(language.guard.search(sentence, 0, begin))
    )


def begins(sentence: str) -> int | None:
    """Where a request to forget begins in a sentence, if it makes one: what comes after is
    not a statement of fact ("forget that I live in Lisbon")."""
    if not may_ask(sentence):
        return None
    heads = _heads(_language(sentence), sentence)
    return heads[0][0] if heads else None


@dataclass(frozen=True)
class _Reading:
    request: Forget
    hidden: tuple[int, int] | None = None  # where the thing to forget is said


Statements = Callable[[str, str], list[Claim]]


def request(
    text: str, sentences: Sequence[str], speaker: str, statements: Statements
) -> Forget | None:
    """The request to forget that `text` (split into `sentences`) makes, or None;
    `statements` reads a fact stated in one ("forget that I live in Lisbon")."""
    readings: list[_Reading] = []
    cursor = 0
    for sentence in sentences:
        at = text.find(sentence, cursor)
        cursor = at + len(sentence)
        language = _language(sentence)
        heads = _heads(language, sentence)
        ends = [begin for begin, _ in heads[1:]] + [len(sentence)]  # each clause to the next
        for (_, head), end in zip(heads, ends, strict=False):
            if reading := _read(language, sentence, head, end, speaker, statements):
                if reading.hidden:  # where it is in the text
                    start, stop = reading.hidden
                    reading = replace(reading, hidden=(at + start, at + stop))
                readings.append(reading)
    if not readings:
        return None
    named = [r for r in readings if not r.request.previous]
    chosen = (named or readings)[0].request
    return replace(chosen, said=_hide(text, readings))


def _read(
    language: Language,
    sentence: str,
    head: re.Match[str],
    end: int,
    speaker: str,
    statements: Statements,
) -> _Reading | None:
    """What one request clause asks to forget: `sentence[head.end():end]` is its object."""
    start = head.end()
    if lead := language.filler.match(sentence, start, end):
        start = lead.end()
    window = min(end, start + _LONGEST)
    if moved_on := language.moves_on.search(sentence, start, window):  # "my address, I moved"
        end = moved_on.start()
    elif end > window:
        return None
    alone = moved_on is None
    remembered = bool(language.memory.search(sentence, head.end(), end))
    verb = (head.group("verb") or "").split()[0].lower() if head.group("verb") else ""
    if verb in language.weak and not remembered:
        return None
    if start < end and (tail := language.tail.search(sentence, start, end)):
        end = tail.start()
    what = sentence[start:end]
    if not what:
        return None
    if language.previous.fullmatch(what):
        if f"{verb} {what.lower()}" in language.idioms and not remembered:
            return None
        return _Reading(_forget(speaker, previous=True))
    if language.person.fullmatch(what):
        return None
    if language.everything.fullmatch(what):
        return _Reading(_forget(speaker))
    if attribute := _attribute(language, what):
        return _Reading(_forget(speaker, attribute))
    if named := _attribute_and_value(language, sentence, start, end, speaker):
        return named
    if match := language.about.fullmatch(sentence, start, end):
        return _about(language, match, speaker, alone)
    match = language.that.fullmatch(sentence, start, end)
    if match and (stated := statements(match.group("fact"), speaker)):
        return _Reading(_forget(speaker, stated[0].attribute, stated[0].value), match.span("fact"))
    return _thing(language, sentence, start, end, speaker, alone)


def _forget(
    speaker: str, attribute: str | None = None, about: str | None = None, previous: bool = False
) -> Forget:
    return Forget(speaker, attribute, about, previous=previous)


def _attribute(language: Language, what: str) -> str | None:
    return next((name for pattern, name in language.targets if pattern.fullmatch(what)), None)


def _attribute_and_value(
    language: Language, sentence: str, start: int, end: int, speaker: str
) -> _Reading | None:
    """'my address, 17 Zanzibar Lane', 'мой адрес ул. Квакерова 17': an attribute and its
    value (a digit, a capital or an @ in it), which the stored request must not keep."""
    for cut in reversed([m.start() for m in _BETWEEN_WORDS.finditer(sentence, start, end)]):
        rest = _VALUE.match(sentence, cut, end)
        if rest and (attribute := _attribute(language, sentence[start:cut])):
            return _Reading(_forget(speaker, attribute), (rest.start("value"), rest.end("value")))
    return None


def _about(language: Language, match: re.Match[str], speaker: str, alone: bool) -> _Reading | None:
    """'what I said about Tom', 'всё про Машу'; a bare 'forget about X' needs X to be the
    speaker's own ("about my job") or a name ("forget about Tom", not "about the meeting")."""
    thing = match.group("about")
    if language.previous.fullmatch(thing):
        return _Reading(_forget(speaker, previous=True))
    if language.person.fullmatch(thing):
        return None
    if language.everything.fullmatch(thing):
        return _Reading(_forget(speaker))
    if language.own.match(thing) and (attribute := _attribute(language, thing)):
        return _Reading(_forget(speaker, attribute))
    start, end = match.span("about")
    if match.group("ref"):
        if mine := language.mine.fullmatch(match.string, start, end):
            start, end = mine.span("name") if mine.group("name") else mine.span("rel")
        return _Reading(_forget(speaker, None, match.string[start:end]), (start, end))
    return _thing(language, match.string, start, end, speaker, alone)


def _thing(
    language: Language, sentence: str, start: int, end: int, speaker: str, alone: bool
) -> _Reading | None:
    """'my sister', 'my brother Leo' (Leo), 'Tom': someone the speaker spoke of, if the
    request says no more ("forget Tom, I never liked him" may be advice)."""
    if not alone:
        return None
    mine = language.mine.fullmatch(sentence, start, end)
    if mine and language.relation(mine.group("rel")):
        who = "name" if mine.group("name") else "rel"
        return _Reading(_forget(speaker, None, mine.group(who)), mine.span(who))
    name = sentence[start:end]
    if _NAME.fullmatch(name) and all(
        word.lower() not in language.not_names and word.lower() not in STOP_WORDS
        for word in name.split()
    ):
        return _Reading(_forget(speaker, None, name), (start, end))
    return None


def _hide(text: str, readings: Sequence[_Reading]) -> str:
    """`text` with what is to be forgotten replaced by "…": where the requests name it, and
    its words anywhere else."""
    spots = sorted({r.hidden for r in readings if r.hidden})
    said, cursor = [], 0
    for start, end in spots:
        said += [text[cursor:start], "…"]
        cursor = end
    said.append(text[cursor:])
    words = {stem(word) for r in readings for word in _words(r.request.about or "")}
    return _WORD.sub(
        lambda m: "…" if words & {stem(w) for w in tokens(m.group())} else m.group(), "".join(said)
    )


def _words(thing: str) -> list[str]:
    """The words of a thing to forget that say something: "the meeting" -> "meeting"."""
    found = tokens(thing)
    return [word for word in found if word not in STOP_WORDS] or found
