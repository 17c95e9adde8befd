"""How English and Russian ask to forget: the openings, fillers, objects and remarks
that `kuzya.facts.forget_rules` reads a request with."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kuzya.facts import rules_en, rules_ru


@dataclass(frozen=True)
class Language:
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
# A remark after the object, on why or that it is not to be kept: ", no need to keep it".
_EN_ASIDE = (
    r"\s*[,;]\s*(?=(?:no need|don't|do not|because|since|there's no|nobody|no one|not needed"
    r"|thanks|thank you|just in case|for privacy)\b)"
)

EN = Language(
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
    moves_on=re.compile(rf"{rules_en.CLAUSE_BREAK.pattern}|{_EN_ASIDE}", re.I),
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
        debt: {my}(?:debts?|loans?)(?:\s+[^\s,.!?]+){0,3}
        debt: (?:what|how\s+much)\s+I\s+owe(?:\s+[^\s,.!?]+){0,3}
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
# ", не надо его хранить", ", не хочу, чтобы это где-то хранилось", ", это личное"
_RU_ASIDE = (
    r"\s*[,;]\s*(?=(?:не\s+(?:надо|нужно|хочу|хотелось|стоит|хранить)|это\s+(?:личное|лишнее"
    r"|неважно|не\s)|чтобы\s|потому|так как|пусть\s|лучше\s|спасибо|на всякий случай)(?!\w))"
)

RU = Language(
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
    moves_on=re.compile(rf"{rules_ru.CLAUSE_BREAK.pattern}|{_RU_ASIDE}", re.I),
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
        debt: {my}(?:долг\w*|долги)(?:\s+[^\s,.!?]+){0,3}
        debt: сколько\s+я\s+(?:должен|должна)(?:\s+[^\s,.!?]+){0,3}
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
