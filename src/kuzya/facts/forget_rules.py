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

from kuzya.facts import rules_en, rules_ru
from kuzya.facts.schema import Claim, Forget
from kuzya.text import STOP_WORDS, stem, tokens

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


@dataclass(frozen=True)
class _Language:
    """How one language asks to forget, and how it names what is to be forgotten."""

    clause: re.Pattern[str]  # where a later request may begin: ", "; group `joined`: " and "
    head: re.Pattern[str]  # the opening; groups `verb` (an imperative), `asked` ("can you")
    weak: frozenset[str]  # verbs that need a word of memory: "drop", "убери"
    idioms: frozenset[str]  # "forget it": never mind, unless memory is named
    filler: re.Pattern[str]  # "please", "from your memory", before the object
    tail: re.Pattern[str]  # the same after it
    memory: re.Pattern[str]  # a word of memory among the fillers
    guard: re.Pattern[str]  # before a later request: a hypothetical or a report
    moves_on: re.Pattern[str]  # where the object ends: "my address, I moved"
    previous: re.Pattern[str]  # "that", "what I just said"
    person: re.Pattern[str]  # "him", "её": someone unnamed, not a message
    everything: re.Pattern[str]
    targets: tuple[tuple[re.Pattern[str], str], ...]  # "where I live" -> lives_in
    about: re.Pattern[str]  # group `about`; group `ref` when memory is named
    own: re.Pattern[str]  # a thing named as the speaker's: "my ...", "where I ..."
    that: re.Pattern[str]  # group `fact`: a stated fact
    mine: re.Pattern[str]  # groups `rel` and `name`: "my sister", "my brother Leo"
    relation: Callable[[str], tuple[str, str, bool] | None]
    not_names: frozenset[str]


def _targets(spec: str, my: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    lines = (line.split(":", 1) for line in spec.strip().splitlines())
    return tuple(
        (re.compile(pattern.strip().replace("{my}", my), re.I), name.strip())
        for name, pattern in lines
    )


def _clauses(joining: str) -> re.Pattern[str]:
    # a run of spaces is entered at its start only: one try per run, not one per space
    return re.compile(
        rf"[,;]\s*|(?<!\s)\s+[-–—]\s+|(?P<joined>(?<!\s)\s+(?=(?:{joining})\s))", re.I
    )


def _fillers(words: str, memory: str, end: str = "") -> re.Pattern[str]:
    # one character at a time: a run of spaces has one way to match, not exponentially many
    return re.compile(rf"(?:[\s,:;.!?…]|(?<!\w)(?:{words}|{memory})(?!\w))+{end}", re.I)


_EN_FILLERS = (
    r"please|pls|plz|kindly|just|for me|permanently|forever|for good|completely|entirely"
    r"|altogether|right now|right away|now|immediately|asap|thanks|thank you|thx|too|as well"
    r"|also|already|ok|okay|kuzya|if you can|if possible|if you do not mind|if you don't mind"
)
_EN_MEMORY = (
    r"from (?:your |the |my )?(?:memory|memories|records?|database|notes|profile|files|mind"
    r"|brain|head|system)|out of (?:your )?(?:memory|mind|head)"
)
_EN_KEEP = (
    r"(?:remember(?:ing)?|keep(?:ing)?|stor(?:e|ing)|sav(?:e|ing)|memori[sz](?:e|ing)|record(?:ing)?"
    r"|writ(?:e|ing)\s+down|not(?:e|ing)\s+down)"
)
_EN_MY = r"(?:(?:my|the)\s+(?:(?:old|previous|former|current|new|home|work|personal)\s+)?)"

_EN = _Language(
    clause=_clauses("and|but|then|also"),
    head=re.compile(
        r"(?:(?:hey|hi|ok|okay|so|and|but|also|now|then|oh|ah|well|actually|seriously|please"
        r"|pls|plz|kindly|just|kuzya|yeah|yes|no|sorry|btw|wait|hmm|um)[\s,]+)*(?:(?P<asked>can"
        r"|could|would|will)\s+you\s+|i\s+(?:want|need|ask|beg)\s+you\s+to\s+|i(?:'d|\s+would)\s+"
        r"(?:like|love|want)\s+you\s+to\s+|i(?:'m|\s+am)\s+asking\s+you\s+to\s+|i(?:'d|\s+would)?"
        r"\s+appreciate\s+(?:it\s+)?if\s+you\s+(?:would\s+|could\s+|can\s+)?)?(?:(?:please|pls"
        r"|plz|kindly|just)\s+)*(?:(?P<verb>forget|delete|erase|remove|wipe(?:\s+out)?|scrub"
        rf"|purge|unlearn|drop|clear|scratch|strike|discard|get\s+rid\s+of|throw\s+(?:away|out))"
        r"|(?:do\s+not|don'?t|stop|no\s+need\s+to|there(?:'s|\s+is)\s+no\s+need\s+to|you\s+"
        rf"(?:do\s+not|don'?t)\s+need\s+to)\s+{_EN_KEEP}|i(?:'d|\s+would)\s+(?:rather|prefer"
        r"(?:\s+(?:it\s+)?if)?)\s+you\s+(?:(?:did\s+not|didn'?t|do\s+not|don'?t|not)\s+"
        rf"{_EN_KEEP}|forgot)|i\s+(?:do\s+not|don'?t)\s+want\s+you\s+to\s+(?:{_EN_KEEP}|know))"
        r"\b(?:\s+about\b)?",
        re.I,
    ),
    weak=frozenset("drop clear scratch strike discard get throw".split()),
    idioms=frozenset({"forget it"}),
    filler=_fillers(_EN_FILLERS, _EN_MEMORY),
    tail=_fillers(_EN_FILLERS, _EN_MEMORY, "$"),
    memory=re.compile(_EN_MEMORY, re.I),
    guard=rules_en.GUARD,
    moves_on=rules_en.CLAUSE_BREAK,
    previous=re.compile(
        r"(?:all\s+(?:of\s+)?)?(?:it|this|that|these|those)(?:\s+(?:one|part|bit|message|info"
        r"(?:rmation)?|detail|last\s+(?:part|bit|message|one)))?|(?:my\s+)?(?:last|previous)"
        r"\s+message|the\s+last\s+thing\s+i\s+(?:said|told\s+you|wrote)|(?:what|everything|all)"
        r"\s+i(?:'ve|\s+have)?\s+just\s+(?:said|told\s+you|written|wrote|mentioned)|what\s+i\s+"
        r"(?:said|told\s+you|wrote|mentioned)(?:\s+(?:just\s+now|a\s+moment\s+ago))?|(?:that\s+)?i"
        r"\s+(?:ever\s+)?(?:said|mentioned|told\s+you)\s+(?:that|this|it|anything)",
        re.I,
    ),
    person=re.compile(r"(?:about\s+)?(?:him|her|them)", re.I),
    everything=re.compile(
        r"(?:absolutely\s+)?everything(?:\s+(?:about\s+me|(?:that\s+)?you\s+(?:know|have"
        r"|remember|stored|saved|learned|collected)(?:\s+(?:about|on)\s+me)?|(?:that\s+)?i(?:\s+"
        r"have|'ve)?\s+(?:ever\s+)?(?:told\s+you|said(?:\s+to\s+you)?|shared(?:\s+with\s+you)?"
        r"|mentioned)))?|(?:all\s+(?:of\s+)?)?(?:my\s+(?:personal\s+)?(?:data|info(?:rmation)?"
        r"|details|profile|memories|facts)|about\s+me)",
        re.I,
    ),
    targets=_targets(
        r"""
        address: {my}?(?:(?:street|postal|mailing)\s+)?address
        lives_in: where\s+i(?:'m|\s+am)?\s+(?:live|living|moved(?:\s+to)?|stay|staying)(?:\s+now)?
        lives_in: {my}(?:city|location|town|neighbou?rhood)
        from: where\s+i(?:'m|\s+am)\s+from|where\s+i\s+come\s+from
        from: {my}(?:hometown|home\s+town|origin)
        works_at: where\s+i(?:'m|\s+am)?\s+work(?:ing)?
        works_at: {my}(?:employer|company|workplace|office|place\s+of\s+work)
        job: what\s+i\s+do(?:\s+for\s+(?:a\s+living|work))?
        job: {my}(?:job|occupation|profession|work|position|job\s+title)
        name: {my}?(?:real\s+|full\s+|first\s+|last\s+)?name|what\s+my\s+name\s+is
        age: {my}age|how\s+old\s+i\s+am
        birthday: {my}(?:birthday|birth\s*date|date\s+of\s+birth)|when\s+i\s+was\s+born
        phone: {my}(?:(?:phone|mobile|cell|telephone)(?:\s+number)?|number)
        email: {my}e-?mail(?:\s+address)?
        allergy: {my}allerg(?:y|ies)|what\s+i(?:'m|\s+am)\s+allergic\s+to
        diet: {my}diet
        condition: {my}(?:health|medical)\s+\w+|{my}(?:diagnosis|diagnoses|conditions?|illness)
        pet: {my}pets?
        family: {my}family
        plan: {my}plans?|what\s+i(?:'m|\s+am)\s+planning
        likes: what\s+i\s+(?:like|love)|{my}(?:likes|preferences|hobbies|interests)
        dislikes: what\s+i\s+(?:hate|dislike)|{my}dislikes
        speaks: (?:the\s+|what\s+)?languages?\s+i\s+speak
        studies: what\s+i\s+study|{my}(?:studies|major|degree)|where\s+i\s+study
        """,
        _EN_MY,
    ),
    about=re.compile(
        r"(?:(?P<ref>(?:everything|anything|all|what|the\s+things?|the\s+stuff|stuff|whatever"
        r"|the\s+(?:part|bit))(?:\s+(?:that\s+)?i(?:\s+have|'ve)?\s+(?:just\s+|ever\s+)?(?:told"
        r"\s+you|said|mentioned|shared|wrote|talked|spoke)(?:\s+to\s+you)?)?\s+(?:about|regarding"
        r"|concerning|related\s+to|to\s+do\s+with)|(?:that\s+)?i(?:\s+have|'ve)?\s+(?:just\s+"
        r"|ever\s+)?(?:told\s+you|said|mentioned|shared|wrote)(?:\s+to\s+you)?\s+about|(?:any|all"
        r"|every)\s+mentions?\s+of)|about)\s+(?P<about>.+)",
        re.I,
    ),
    own=re.compile(r"(?:my|where|what|how|when)\b", re.I),
    that=re.compile(r"(?:that\s+)?(?P<fact>(?:i|i'm|i've|my)\b.+)", re.I),
    mine=re.compile(
        r"(?:my|our)\s+(?P<rel>[\w-]+(?:\s+[\w-]+)??)(?:\s+(?P<name>(?-i:[A-Z][a-z]+)))?", re.I
    ),
    relation=rules_en.relation,
    not_names=rules_en.NOT_NAMES,
)

_RU_FILLERS = (
    r"пожалуйста|плиз|просто|насовсем|навсегда|полностью|совсем|окончательно|тоже|также|уже"
    r"|сейчас же|сейчас|немедленно|сразу|спасибо|ладно|хорошо|ок|окей|кузя|ну|тогда|если"
    r" можно|если можешь|если не сложно"
)
_RU_MEMORY = r"из (?:своей |твоей |моей )?(?:памяти|головы|базы|записей|заметок|профиля)|с концами"
_RU_MY = r"(?:мо\w+\s+)?(?:(?:стар|прежн|нов|нынешн|текущ|домашн|рабоч|личн|мобильн)\w*\s+)?"

_RU = _Language(
    clause=_clauses("и|а|но|потом|тогда|также"),
    head=re.compile(
        r"(?:(?:пожалуйста|слушай|слушайте|кузя|и|а|но|ну|теперь|так|ладно|короче|просто|тогда"
        r"|также|ещё|еще|кстати|да|нет|ой|знаешь)[\s,]+)*(?:(?:(?P<asked>(?:ты\s+)?(?:можешь"
        r"|можете|сможешь)(?:\s+ли)?|(?:не\s+)?(?:мог|могла|могли)\s+бы(?:\s+ты|\s+вы)?)|(?:я\s+)?прошу"
        r"(?:\s+тебя|\s+вас)?)[\s,]+)?(?:(?:пожалуйста|просто)[\s,]+)*(?:(?P<verb>забудь|забудьте"
        r"|забыть|удали|удалите|удалить|сотри|сотрите|стереть|вычеркни|вычеркните|убери|уберите"
        r"|убрать|выкинь|выкиньте|выбрось|выбросьте)|(?:больше\s+|никогда\s+)?(?:не\s+(?:надо|нужно"
        r"|стоит)\s+|можешь\s+не\s+|можете\s+не\s+|не\s+)(?:запоминай|запоминайте|запоминать"
        r"|храни|храните|хранить|сохраняй|сохраняйте|сохранять|записывай|записывайте|записывать"
        r"|помни|помнить)|я\s+(?:хочу|хотел\s+бы|хотела\s+бы|бы\s+хотел|бы\s+хотела),?\s+чтобы\s+"
        r"ты\s+(?:забыл|забыла|удалил|удалила|стёр|стер|стёрла|стерла)|я\s+(?:не\s+хочу|не\s+"
        r"хотел\s+бы|не\s+хотела\s+бы|бы\s+не\s+хотел|бы\s+не\s+хотела),?\s+чтобы\s+ты\s+(?:это\s+)?"
        r"(?:помнил|помнила|запоминал|запоминала|хранил|хранила|знал|знала))(?!\w)",
        re.I,
    ),
    weak=frozenset(
        "вычеркни вычеркните убери уберите убрать выкинь выкиньте выбрось выбросьте".split()
    ),
    idioms=frozenset(),  # "забудь об этом" is a request
    filler=_fillers(_RU_FILLERS, _RU_MEMORY),
    tail=_fillers(_RU_FILLERS, _RU_MEMORY, "$"),
    memory=re.compile(_RU_MEMORY, re.I),
    guard=rules_ru.GUARD,
    moves_on=rules_ru.CLAUSE_BREAK,
    previous=re.compile(
        r"(?:(?:о|об|про)\s+)?(?:всё\s+|все\s+)?(?:это|этом|этого)(?:\s+сообщение)?|(?:моё\s+"
        r"|мое\s+)?последнее(?:\s+сообщение)?|сказанное|(?:то,?\s+)?что\s+я\s+(?:только\s+что\s+"
        r"|сейчас\s+)?(?:сказал|сказала|написал|написала)(?:\s+(?:только\s+что|сейчас))?",
        re.I,
    ),
    person=re.compile(r"(?:(?:о|об|про)\s+)?(?:его|её|ее|их|него|неё|нее|них|ней|нём|нем)", re.I),
    everything=re.compile(
        r"(?:вообще\s+|абсолютно\s+)?(?:всё|все)(?:,?\s+(?:обо\s+мне|про\s+меня|что\s+ты\s+"
        r"(?:обо\s+мне\s+|про\s+меня\s+)?(?:знаешь|помнишь|запомнил|запомнила)(?:\s+обо\s+мне|\s+"
        r"про\s+меня)?|что\s+я\s+(?:тебе\s+)?(?:когда-либо\s+)?(?:говорил|говорила|рассказывал"
        r"|рассказывала|сказал|сказала)))?|(?:всю\s+)?(?:информацию|инфу|данные)\s+(?:обо\s+мне"
        r"|про\s+меня)|мои\s+данные|обо\s+мне|про\s+меня",
        re.I,
    ),
    targets=_targets(
        r"""
        address: {my}адрес\w*
        lives_in: где\s+я\s+(?:сейчас\s+)?(?:живу|проживаю)|куда\s+я\s+переехал\w*|{my}город
        from: откуда\s+я(?:\s+родом)?|(?:мо\w+\s+)?родно\w*\s+город\w*
        works_at: где\s+я\s+(?:сейчас\s+)?работаю|{my}мест\w*\s+работы|{my}компани\w*
        job: кем\s+я\s+работаю|{my}(?:работ[уае]|професси\w*|должност\w*)
        name: {my}(?:имя|имени)|как\s+меня\s+зовут
        age: {my}возраст\w*|сколько\s+мне\s+лет
        birthday: {my}(?:день|дне|дату|дате)\s+рождения|когда\s+я\s+родил(?:ся|ась)
        phone: {my}(?:номер\w*(?:\s+телефона)?|телефон\w*)
        email: {my}(?:почт\w*|e-?mail|имейл\w*|электронн\w+\s+почт\w*)
        allergy: {my}аллерги\w*|на\s+что\s+у\s+меня\s+аллергия
        diet: {my}диет\w*
        condition: {my}(?:диагноз\w*|болезн\w*|заболевани\w*)
        pet: {my}(?:питомц\w*|животн\w*)
        family: {my}семь\w*
        plan: {my}план\w*
        likes: что\s+я\s+люблю|что\s+мне\s+нравится
        speaks: (?:на\s+)?как\w*\s+языках?\s+я\s+говорю|какие\s+языки\s+я\s+знаю
        studies: где\s+я\s+учусь|что\s+я\s+изучаю
        """,
        _RU_MY,
    ),
    about=re.compile(
        r"(?:(?P<ref>(?:(?:всё|все|всю\s+информацию|информацию|то|всё\s+то|что-либо|что-нибудь"
        r"|любые\s+упоминания|упоминания)(?:,?\s+что)?|что)(?:\s+я)?(?:\s+тебе)?(?:\s+когда-либо)?"
        r"(?:\s+(?:говорил|говорила|рассказывал|рассказывала|рассказал|рассказала|писал|писала"
        r"|сказал|сказала|упоминал|упоминала))?(?:\s+тебе)?)\s+)?(?:про|о|об|обо)\s+(?P<about>.+)",
        re.I,
    ),
    own=re.compile(r"(?:мо\w+|где|что|как|когда|откуда|кем|сколько|на\s+что)(?!\w)", re.I),
    that=re.compile(r"(?:то,?\s+)?что\s+(?P<fact>.+)", re.I),
    mine=re.compile(
        r"(?:мо\w+|нашу|нашего|нашей)\s+(?P<rel>[\w-]+)(?:\s+(?P<name>(?-i:[А-ЯЁ][а-яё]+)))?", re.I
    ),
    relation=rules_ru.relation,
    not_names=rules_ru.NOT_NAMES,
)

_LONGEST = 300  # characters: an object longer than this names nothing the rules know
_LONGEST_SENTENCE = 1000
_CYRILLIC = re.compile(r"[а-яё]", re.I)
_NAME = re.compile(r"(?-i:[A-ZА-ЯЁ][a-zа-яё]+(?:\s+[A-ZА-ЯЁ][a-zа-яё]+)?)")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def _language(text: str) -> _Language:
    return _RU if _CYRILLIC.search(text) else _EN


def _heads(language: _Language, sentence: str) -> list[tuple[int, re.Match[str]]]:
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


def _guarded(language: _Language, sentence: str, begin: int, head: re.Match[str]) -> bool:
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
    language: _Language,
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


def _attribute(language: _Language, what: str) -> str | None:
    return next((name for pattern, name in language.targets if pattern.fullmatch(what)), None)


def _about(language: _Language, match: re.Match[str], speaker: str, alone: bool) -> _Reading | None:
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
    language: _Language, sentence: str, start: int, end: int, speaker: str, alone: bool
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
