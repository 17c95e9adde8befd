"""The Russian grammar of `kuzya.facts.rules`: patterns, lexicons and the small functions
that put Russian words into their dictionary form.

Noun phrases go into the nominative by `normal_form` ("живу в Казани" -> "Казань",
"работаю прорабом" -> "прораб"); kin, pets and things by the lexicons ("у меня нет
собаки" -> "собака"); verb phrases (plans, hobbies) stay as said. Present-tense
first-person verbs need no pronoun ("живу в Казани"); past-tense ones do ("я переехала в
Москву").
"""

from __future__ import annotations

import re

from kuzya.facts import occupations
from kuzya.language.normal_form import nominative
from kuzya.language.text import STOP_WORDS, stem

_TIME = (
    r"(?:в прошл\w+ (?:году|месяце)|на прошлой неделе|в этом (?:году|месяце)|на этой неделе"
    r"|(?:\d+|два|две|три|пять|пару|несколько|много)\s+(?:лет|года?|месяц\w*|недел\w*|дн\w*)"
    r"(?:\s+назад)?|(?:год|месяц|неделю) назад|в \d{4} году|с \d{4} года|вчера|сегодня"
    r"|недавно|давно|летом|зимой|весной|осенью|с детства|всю жизнь|завтра|послезавтра|скоро"
    r"|на следующей неделе|в следующ\w+ (?:месяце|году)|на выходных)"
)
_ADVERBS = (
    r"(?:(?:сейчас|теперь|уже|ещё|еще|тоже|также|давно|недавно|наконец|всё ещё|все еще"
    r"|по-прежнему|пока|вообще|очень|реально|правда|действительно|просто|вот|безумно|ужасно"
    r"|страшно|жутко|прямо|так|официально|временно|постоянно|сама|сам|до сих пор|всегда"
    rf"|сильно|искренне|здесь|тут|{_TIME})\s+)*"
)
_LEAD = (
    r"^(?:(?:и|а|но|да|ну|кстати|вообще|вообще-то|короче|слушай|привет|здравствуйте|так|вот"
    r"|ещё|еще|также|тоже|сейчас|теперь|наконец|потому что|так как|поэтому|кроме того"
    rf"|в общем|{_TIME})[\s,:;!.—–-]+)*"
)
_CAP = r"(?-i:[А-ЯЁA-Z][\w'.&+-]*)"
_NAME = r"(?-i:[А-ЯЁA-Z][а-яёa-z]+(?:-[А-ЯЁA-Z][а-яёa-z]+)?)"
_GENERIC = r"(?:компании|фирме|корпорации|организации|банке|агентстве|студии|стартапе)"
_TOKENS = {
    "{L}": _LEAD,
    "{A}": _ADVERBS,
    "{I}": r"я\s+",
    "{I?}": r"(?:я\s+)?",
    "{WE}": r"(?:я|мы(?:\s+с\s+\w+)?)\s+",
    "{WE?}": r"(?:(?:я|мы(?:\s+с\s+\w+)?)\s+)?",
    "{PLACE}": rf"{_CAP}(?:\s+{_CAP})*",
    "{ORGCAP}": rf"[\"«]?{_CAP}(?:\s+{_CAP})*[\"»]?",
    "{ORG}": (
        rf"(?:{_GENERIC}\s+|(?-i:[а-яё]+)\s+(?=[\"«]))?"
        rf"[\"«]?{_CAP}(?:\s+{_CAP})*[\"»]?|(?:(?-i:[а-яё][\w-]*(?:ой|ом|ей|ем|ых|их))\s+)?"
        r"(?-i:[а-яёa-z][\w-]*)"
    ),
    "{NAMES}": rf"{_NAME}(?:\s+{_NAME})?",
    "{ANYNAME}": rf"(?:{_NAME}(?:\s+{_NAME})?|[^\W\d_][\w-]*)",
    "{INSTR}": r"(?:[\w-]+(?:ым|им|ой)\s+)?[\w-]+(?:ом|ем|ём|ой|ей|ёй)",
    "{FUTURE}": (
        r"(?:завтра|послезавтра|на следующей неделе|в следующ\w+ (?:месяце|году)|через \w+"
        r"|скоро|этим летом|этой зимой|на выходных|в (?:понедельник|вторник|среду|четверг"
        r"|пятницу|субботу|воскресенье)|летом|зимой|осенью|весной)(?!\w)"
    ),
}


def compile_rule(pattern: str) -> re.Pattern[str]:
    """A rule with this grammar's tokens ({L}, {A}, {I}, ...) filled in."""
    for token, part in _TOKENS.items():
        pattern = pattern.replace(token, part)
    return re.compile(pattern, re.IGNORECASE)


RULES = tuple(
    compile_rule(p)
    for p in (
        r"{L}{A}меня {A}(?:зовут|звать) (?P<name>{ANYNAME})",
        r"{L}мо[её] (?:полное |настоящее )?имя\s*(?:[-—–:]\s*|\s+)(?:теперь\s+)?"
        r"(?P<name>{ANYNAME})",
        r"{L}(?:зовите|называйте|зови|называй) меня (?P<name>{ANYNAME})",
        r"{L}{I}{A}(?:сменил|сменила|поменял|поменяла) (?:своё |свое )?имя на (?P<name>{ANYNAME})",
        r"{L}{I}{A}(?:[-—–]\s*)?(?:по профессии\s+)?(?P<self>(?:[\w-]+(?:ый|ий|ой|ая|яя)\s+)?"
        r"[\w-]+(?:\s+(?:в|во|на)\s+(?:{ORG}))?)(?:\s+(?:в|во|на)\s+{PLACE})?"
        r"(?:\s+(?:уже|тоже|сейчас|теперь|давно)\b.*)?$",
        r"{L}{I}{A}(?:стал|стала) (?P<self>{INSTR})\s*$",
        r"{L}{A}мне {A}(?:уже |исполнилось )?(?P<age>\d{1,3})(?:\s*(?:год|года|лет))?"
        r"(?=\s*$|\s+(?:и|а|но)\s)",
        r"{L}(?:мой |у меня )?день рождения\s*(?:[-—–:]\s*)?(?P<birthday>\d.+)",
        r"{L}{I}{A}(?:родом |сам |сама )?из (?P<from>{PLACE})",
        r"{L}{I}{A}(?:родился|родилась|вырос|выросла)(?: и (?:вырос|выросла))? (?:в|во|на) "
        r"(?P<from>{PLACE})",
        r"{L}{WE?}{A}(?:живу|живём|живем|проживаю|проживаем) {A}(?:в|во|на) (?P<lives_in>{PLACE})",
        r"{L}{WE}{A}(?:переехал|переехала|переехали|перебрался|перебралась|перебрались"
        r"|переселился|переселилась|переселились)(?: жить)?(?: {A}из (?P<lives_in__end>{PLACE}))?"
        r" {A}(?:в|во|на) (?P<lives_in>{PLACE})",
        r"{L}{WE}{A}(?:уехал|уехала|уехали|съехал|съехала|съехали|переехал|переехала|переехали) "
        r"из (?P<lives_in__end>{PLACE})\s*$",
        r"{L}мой {A}(?:домашний |новый )?адрес\s*(?:[-—–:]\s*|\s+)(?:это\s+)?(?P<address>.+)",
        r"{L}{I?}{A}живу по адресу\s*:?\s*(?P<address>.+)",
        r"{L}{I?}{A}работаю {A}(?:{INSTR} )?(?:в|во|на) (?P<works_at>{ORG})",
        r"{L}{I?}{A}работаю {A}(?:(?:в|во|на) (?:{ORG}) )?(?P<job>{INSTR})(?!\w)",
        r"{L}{I}{A}(?:устроился|устроилась|начал работать|начала работать)(?: на работу)? "
        r"(?:в|во|на) (?P<works_at>{ORG})",
        r"{L}{I}{A}(?:перешёл|перешел|перешла) (?:работать )?(?:в|во|на) (?P<works_at>{ORGCAP})",
        r"{L}{I}{A}(?:уволился|уволилась)(?: с работы)? (?:из|с|со) (?P<works_at__end>{ORG})",
        r"{L}{I}{A}(?:ушёл|ушел|ушла)(?: с работы)? (?:из|с|со) (?P<works_at__end>{ORGCAP})",
        r"{L}{A}меня {A}уволили (?:из|с|со) (?P<works_at__end>{ORG})",
        r"{L}{I?}{A}(?:учусь|обучаюсь|изучаю|учу) (?P<studies>.+)",
        r"{L}{I}{A}(?:студент|студентка|аспирант|аспирантка) (?P<studies>.+)",
        r"{L}{WE?}{A}(?:люблю|обожаю|любим|обожаем|увлекаюсь|фанатею от|без ума от) (?P<likes>.+)",
        r"{L}{A}мне {A}(?:нравится|нравятся|нравились|нравилось) (?P<likes>.+)",
        r"{L}{I}{A}(?:фанат|фанатка|поклонник|поклонница) (?P<likes>.+)",
        r"{L}{I?}{A}играю (?P<likes_play>(?:на|в) .+)",
        r"{L}{I?}{A}занимаюсь (?P<likes_do>.+)",
        r"{L}(?:мой|моя|моё|мое|мои) (?:самый |самая |самое |самые )?любим\w+ [^—–:-]+?\s*[—–:-]\s*"
        r"(?:это\s+)?(?P<likes>.+)",
        r"{L}(?:мой|моя|моё|мое|мои) (?:самый |самая |самое |самые )?любим\w+ [\w-]+"
        r"(?:\s+это)? (?!.*[—–:])(?P<likes>.+)",
        r"{L}{WE?}{A}(?:ненавижу|ненавидим|презираю) (?P<dislikes>.+)",
        r"{L}{A}у (?:меня|нас) {A}(?:есть )?(?:\w+ )?аллерги\w* на (?P<allergy>.+)",
        r"{L}{I}{A}(?:аллергик|аллергичка) на (?P<allergy>.+)",
        r"{L}{A}у меня {A}(?:диагностировали|нашли|обнаружили) (?P<condition>.+)",
        r"{L}{A}мне {A}поставили диагноз\s*:?\s*(?P<condition>.+)",
        r"{L}{I?}{A}(?:болею|страдаю) (?:от )?(?P<condition>.+)",
        r"{L}{A}у (?:меня|нас) {A}(?:есть )?{A}(?P<have>[^,;]+)",
        r"{L}{WE}{A}(?:завёл|завел|завела|завели|взял|взяла|взяли|купил|купила|купили|приобрёл"
        r"|приобрел|приобрела|приобрели|подобрал|подобрала|подобрали) (?P<have>[^,;]+)",
        r"{L}{WE}{A}(?:продал|продала|продали|отдал|отдала|отдали) (?P<have__end>[^,;]+)",
        r"{L}{I}{A}(?:замужем за|женат на|вышла замуж за|женился на|обручена с|обручён с|обручен с"
        r"|помолвлена с|помолвлен с) (?P<spouse>{NAMES})",
        r"{L}{I}{A}(?:развёлся|развелся|развелась|рассталась|расстался) с (?P<spouse__end>{NAMES})",
        r"{L}{WE?}{A}(?:собираюсь|собираемся|планирую|планируем|намереваюсь|намерен|намерена) "
        r"(?P<plan>.+)",
        r"{L}{WE}{A}(?:решил|решила|решили) (?P<plan>.+)",
        r"{L}{WE?}{A}(?P<plan_go>(?:поеду|поедем|полечу|полетим|перееду|переедем|съезжу|съездим"
        r"|слетаю|слетаем|уеду|уедем|улечу|улетим)(?!\w).*)",
        r"^(?=.*{FUTURE}){L}{WE?}{A}(?P<plan_go>(?:лечу|летим|еду|едем|переезжаю|переезжаем"
        r"|уезжаю|уезжаем|улетаю|улетаем)(?!\w).*)",
        r"{L}{I?}{A}(?:свободно |немного |хорошо |плохо |неплохо |отлично |бегло )?(?:говорю"
        r"|разговариваю|общаюсь) {A}(?P<speaks>(?:по-|на ).+)",
        r"{L}{I}{A}(?:свободно )?владею (?P<speaks>.+)",
        r"{L}мой родной язык\s*(?:[-—–:]\s*|\s+)(?P<speaks>.+)",
        r"{L}{I?}{A}знаю (?P<speaks>\w+ск\w+(?:(?:,\s*|\s+и\s+)\w+ск\w+)*)\s*$",
    )
)

INTROS = tuple(
    compile_rule(p)
    for p in (
        r"(?<!\w)(?:мой|моя|моё|мое|мои|наш|наша|наше|наши)\s+(?P<rel>(?:(?:старш|младш|родн"
        r"|двоюродн|лучш|любим)\w+\s+)?[\w-]+)\s*(?:,|[-—–])?\s+(?P<name>{NAMES})(?=(?P<rest>.*))",
        r"(?<!\w)у (?:меня|нас) (?:есть |тоже |ещё |еще )*(?P<rel>(?:(?:старш|младш|родн"
        r"|двоюродн|лучш)\w+\s+)?[\w-]+)\s+(?:по (?:имени|кличке)\s+|[-—–]\s*)?(?P<name>{NAMES})"
        r"(?=(?P<rest>.*))",
        r"(?<!\w)(?:мою|моего|моих|нашу|нашего|наших)\s+(?P<rel>(?:\w+\s+)?[\w-]+)\s+"
        r"(?:зовут|звать)\s+(?P<name>{NAMES})(?=(?P<rest>.*))",
        r"(?P<name>{NAMES}),\s+(?:мой|моя|моё|мое|наш|наша)\s+(?P<rel>[\w-]+)\s*,(?=(?P<rest>.*))",
    )
)
GONE = re.compile(r"\s*(?:умер|умерла|погиб|погибла|сбежал|сбежала|пропал|пропала)\b", re.I)

_SUBJECT = (  # "..., а сейчас живу ...", not "Маша, моя сестра, ..."
    r"(?:(?:сейчас|теперь|ещё|еще|также|тоже)\s+)?(?:(?:я|мы|мне|меня|у меня|у нас|живу|работаю"
    r"|люблю|обожаю|учусь|говорю|занимаюсь|играю|ненавижу|изучаю|планирую|собираюсь)(?!\w)"
    r"|(?:мой|моя|моё|мое|мои|мою|моего|моей|наш|наша|наши)(?!\w)(?!\s+[\w-]+\s*,))"
)
CLAUSE_BREAK = re.compile(
    rf"\s*[,;:]\s*(?:(?:и|а|но|да и|потому что|так как|хотя|зато|а ещё|а еще|и ещё|и еще|ещё|еще"
    rf"|также|плюс)\s+)?(?={_SUBJECT})|\s+(?:и|а|но|потому что|так как|хотя|зато)\s+(?={_SUBJECT})"
    r"|\s+[-–—]\s+(?=(?:я|мы|мне|у меня)(?!\w))",
    re.I,
)
_AND_VERB = re.compile(
    r"\s+и\s+(?=(?:ещё |еще |также |тоже )?(?:живу|работаю|люблю|учусь|говорю|обожаю|играю"
    r"|занимаюсь|ненавижу|изучаю|планирую|собираюсь)(?!\w))",
    re.I,
)
_IDIOMS = re.compile(r"терпеть не могу|не выношу|не переношу|не перевариваю", re.I)
QUESTION = re.compile(
    r"(?<!\w)ли(?!\w)|^\W*(?:где|куда|откуда|почему|зачем|сколько|разве|неужели|какой|какая"
    r"|какое|какие|чей|чья|чьё|кто)(?!\w)"
    # a request to be told: "напомни, что я просил купить", "подскажи мне, где …"
    r"|^\W*(?:напомни|напомните|подскажи|подскажите|скажи|скажите)\W+(?:мне\W+|нам\W+)?"
    r"(?:что|кто|где|куда|когда|как|какой|какая|какое|какие|сколько|чей|о|об|про)(?!\w)",
    re.I,
)
GUARD = re.compile(
    r"(?<!\w)(?:если|бы|б|будто|словно|якобы|мечта\w*|мечтаю|хочу|хотел\w*|хотелось|хочется"
    r"|может|возможно|наверное|наверно|представ\w*|допустим|пусть|когда-нибудь|сказал|сказала"
    r"|сказали|говорит(?!\s+(?:по-|на\s))|говорят|говорил|говорила|говорили|рассказал\w*"
    r"|рассказывает|пишет|написал|написала|думает|думают|считает|считают|утверждает|уверяет"
    r"|слышал|слышала|спросил|спросила|по словам)(?!\w)",
    re.I,
)
LEAD = re.compile(_LEAD, re.I)


def normalise(sentence: str) -> str:
    sentence = _IDIOMS.sub("ненавижу", sentence.replace("’", "'"))
    return _AND_VERB.sub(" и я ", sentence)


# -- negation --------------------------------------------------------------------------------

_NOT = compile_rule(
    r"^(?P<head>{L}(?:я\s+|мы\s+|мне\s+)?{A})(?:(?:больше|более)\s+)?не\s+(?:больше\s+)?"
)
_NOT_HAVE = compile_rule(r"^(?P<head>{L}{A}у (?:меня|нас)\s+{A})(?:больше\s+)?нет\s+")
_ENDED = re.compile(r"(?<!\w)(?:больше|уже|более)\s+не(?!\w)|(?<!\w)не\s+больше(?!\w)|раньше", re.I)
_USED_TO = compile_rule(r"^(?P<head>{L}(?:раньше\s+)?(?:я|мы)\s+{A})(?:раньше\s+)?(?P<verb>\w+)")
_PAST = {
    "жил": "живу", "жила": "живу", "жили": "живём", "работал": "работаю", "работала": "работаю",
    "любил": "люблю", "любила": "люблю", "учился": "учусь", "училась": "учусь",
}  # fmt: skip


def negation(clause: str) -> tuple[str, bool, bool]:
    """The clause said positively, whether it was negated, and whether it says a fact
    ended ("больше не живу", "раньше жил")."""
    ended = bool(_ENDED.search(clause))
    if match := _NOT_HAVE.match(clause):
        return f"{match.group('head')}есть {clause[match.end() :]}", True, ended
    if match := _NOT.match(clause):
        return match.group("head") + clause[match.end() :], True, ended
    match = _USED_TO.match(clause)
    if match and "раньше" in match.group(0).lower() and match.group("verb").lower() in _PAST:
        head = re.sub(r"раньше\s+", "", match.group("head"), flags=re.I)
        return head + _PAST[match.group("verb").lower()] + clause[match.end() :], True, True
    return clause, False, False


_THIRD = {
    "живёт": "живу", "живет": "живу", "работает": "работаю", "учится": "учусь",
    "любит": "люблю", "обожает": "обожаю", "ненавидит": "ненавижу", "говорит": "говорю",
    "изучает": "изучаю", "играет": "играю", "занимается": "занимаюсь", "учит": "учу",
    "собирается": "собираюсь", "планирует": "планирую", "проживает": "проживаю",
    "увлекается": "увлекаюсь", "владеет": "владею",
}  # fmt: skip


def first_person(predicate: str) -> str:
    """'живёт в Казани' (said of someone) -> 'я живу в Казани', for the same rules."""
    words = predicate.split()
    for i, word in enumerate(words[:3]):
        if word.lower() in _THIRD:
            words[i] = _THIRD[word.lower()]
            break
    return "я " + " ".join(words)


# -- lexicons --------------------------------------------------------------------------------

_RELATION_FORMS = """
family сестра сестру сестры сестрёнка сестренка|family брат брата братик|family мама маму
family мать|family папа папу|family отец отца|family сын сына сыновья сыновей
family дочь дочка дочку дочери дочерей|family дети детей ребёнок ребенок ребёнка ребенка
family бабушка бабушку|family дедушка дедушку|family тётя тётю тетя тетю|family дядя дядю
family племянник племянника|family племянница племянницу|family внук внука внуков
family внучка внучку|family кузен кузена|family кузина кузину|family друг друга
family подруга подругу|family коллега коллегу|family начальник начальника|family сосед соседа
family соседка соседку|family близнецы близнецов|spouse жена жену|spouse муж мужа
spouse парень парня|spouse девушка девушку|spouse жених жениха|spouse невеста невесту
spouse супруг|spouse супруга супругу|pet собака собаку собаки собак|pet пёс пес пса
pet щенок щенка|pet кошка кошку кошки кошек|pet кот кота котик котика|pet котёнок котенок
pet котёнка котенка|pet попугай попугая|pet хомяк хомяка|pet кролик кролика
pet черепаха черепаху|pet рыбка рыбку рыбки|pet лошадь|pet хорёк хорька|pet шиншилла шиншиллу
"""


def _relations() -> dict[str, tuple[str, str]]:
    table = {}
    for entry in re.split(r"[|\n]", _RELATION_FORMS.strip()):
        attribute, nominative, *forms = entry.split()
        for form in (nominative, *forms):
            table[form.replace("ё", "е")] = (attribute, nominative)
    return table


RELATIONS = _relations()


def relation(phrase: str) -> tuple[str, str, bool] | None:
    """'старшая сестра' -> ('family', 'старшая сестра', False); 'сестру' -> 'сестра'."""
    *adjectives, word = phrase.split()
    found = RELATIONS.get(word.lower().replace("ё", "е"))
    if found is None:
        return None
    attribute, nominative = found
    same_form = word.lower().replace("ё", "е") == nominative.replace("ё", "е")
    return attribute, " ".join([*adjectives, nominative]) if same_form else nominative, False


_ADJECTIVE = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ую|юю|ого|его|ых|их|ым|им)$", re.I)
_COUNTS = frozenset("двое трое четверо пятеро два две три четыре пять несколько".split())


def _lexicon(entries: str) -> dict[str, str]:
    """Stem of each form -> dictionary form; an entry is 'nominative/irregular/forms'."""
    table = {}
    for entry in entries.split():
        nominative, *forms = entry.split("/")
        for form in (nominative, *forms):
            table[stem(form.replace("ё", "е"))] = nominative
    return table


_JOBS = _lexicon(occupations.RUSSIAN)
_DIETS = _lexicon(
    """вегетарианец/вегетарианцем/вегетарианца вегетарианка веган/веганом/вегана веганка
    пескетарианец/пескетарианцем пескетарианка сыроед сыроедка"""
)
_CONDITIONS = _lexicon(
    """диабет астма эпилепсия мигрень гипертония депрессия тревожность артрит целиакия аутизм
    сдвг рак псориаз экзема бессонница гастрит анемия гипотиреоз сколиоз остеохондроз
    дальтонизм"""
)
_SUFFERERS = {"диабетик": "диабет", "диабетичка": "диабет", "астматик": "астма",
              "астматичка": "астма", "эпилептик": "эпилепсия", "аутист": "аутизм"}  # fmt: skip
_OBJECTS = _lexicon(
    """машина автомобиль велосипед мотоцикл самокат квартира дом дача гараж лодка яхта гитара
    пианино синтезатор скрипка ноутбук компьютер планшет телескоп фотоаппарат дрон участок
    приставка электросамокат"""
)
NOT_NAMES = frozenset(
    """понедельник вторник среда четверг пятница суббота воскресенье январь февраль март апрель
    май июнь июль август сентябрь октябрь ноябрь декабрь привет спасибо да нет бог""".split()
)


def _known(word: str, table: dict[str, str]) -> str | None:
    return table.get(stem(word.lower().replace("ё", "е")))


# -- values ----------------------------------------------------------------------------------

SUBORDINATE = re.compile(
    r"\s*[;(]|\s+[-—–]\s|\s+(?:потому что|так как|но|а|когда|пока|хотя|котор\w+|где|если|чтобы"
    r"|ведь|зато|чем)(?!\w)",
    re.I,
)
TRAIL = re.compile(
    r"\s+(?:уже|тоже|очень|сейчас|теперь|давно|недавно|больше всего|до сих пор|вообще|правда|ещё"
    rf"|еще|просто|всегда|безумно|сильно|больше|в последнее время|{_TIME})$",
    re.I,
)
LIST = re.compile(r"\s*,\s*(?:и\s+|а также\s+)?|\s+(?:и|или|а также)\s+", re.I)
ITEMS = re.compile(r"\s*,\s*(?:и\s+)?|\s+и\s+(?=(?-i:[а-яё]))", re.I)
_NOT_LIKED = re.compile(
    r"^(?:тебя|вас|вам|тебе|его|её|ее|их|это|этого|этим|эту|этот|когда|как|что|чтобы|себя|всех"
    r"|всё|все|ничего|кого|того|то|эта|эти|этой|такой|такая|такие|твой|твоя|твоё|твои"
    r"|ваш\w*)(?!\w)",
    re.I,
)
_NOT_WORKPLACES = frozenset(
    """офисе смену выходные режиме сфере области команде удалёнке удаленке себя дому доме
    выходных праздники утро вечер ночь день должности позиции""".split()
)
_NOT_JOBS = frozenset(
    """утром днём днем вечером ночью летом зимой весной осенью потом тем всем этим целым одним
    самим собой ней ним нём нем""".split()
)
_GO = {
    "поеду": "поехать", "поедем": "поехать", "полечу": "полететь", "полетим": "полететь",
    "перееду": "переехать", "переедем": "переехать", "съезжу": "съездить", "съездим": "съездить",
    "слетаю": "слетать", "слетаем": "слетать", "уеду": "уехать", "уедем": "уехать",
    "улечу": "улететь", "улетим": "улететь", "лечу": "лететь", "летим": "лететь", "еду": "ехать",
    "едем": "ехать", "переезжаю": "переехать", "переезжаем": "переехать", "уезжаю": "уехать",
    "уезжаем": "уехать", "улетаю": "улететь", "улетаем": "улететь",
}  # fmt: skip
_LANGUAGES = {"иврит": "иврит", "иврите": "иврит", "ивритом": "иврит", "идиш": "идиш",
              "эсперанто": "эсперанто", "хинди": "хинди", "фарси": "фарси", "латынь": "латынь",
              "латыни": "латынь"}  # fmt: skip


def _is_name(word: str) -> bool:
    lowered = word.lower()
    return lowered not in NOT_NAMES and lowered not in STOP_WORDS


_JUDGED = re.compile(
    r"(?:отличн|хорош|плох|ужасн|прекрасн|замечательн|неплох|классн|крут|никудышн|великолепн"
    r"|отвратительн|посредственн|домашн|заядл|страстн|любительск)\w*\s",
    re.I,
)


def _self(raw: str) -> list[tuple[str, str]]:
    """'я врач (в больнице)', 'я вегетарианка', 'я диабетик', 'я Маша', 'я стала учительницей'."""
    raw, *place = re.split(r"\s+(?:в|во|на)\s+", raw, maxsplit=1, flags=re.I)
    word = raw.split()[-1]
    if known := _known(word, _JOBS):
        if _JUDGED.match(raw):  # "я отличный повар": how well, not a job
            return []
        return [("job", raw if word.lower() == known else known), *_workplace(*place[:1])]
    if known := _known(word, _DIETS):
        return [("diet", raw if word.lower() == known else known)]
    if word.lower() in _SUFFERERS:
        return [("condition", _SUFFERERS[word.lower()])]
    if raw == word and word[0].isupper() and _is_name(word):
        return [("name", word)]
    return []


def _have(item: str) -> list[tuple[str, str]]:
    """What 'у меня есть ...', 'мы завели ...', 'я купил ...' introduce."""
    words = re.split(r"\s+(?:в|во|на|у|за|для)\s+", item, maxsplit=1)[0].split()
    for i, word in enumerate(words[:4]):
        if i and not _ADJECTIVE.search(words[i - 1]) and words[i - 1].lower() not in _COUNTS:
            break  # "аллергия на кошек": not a cat
        if (relation := RELATIONS.get(word.lower().replace("ё", "е"))) is not None:
            return _kin(*relation, words, i)
        if condition := _known(word, _CONDITIONS):
            return [("condition", " ".join([*words[:i], condition, *words[i + 1 :]]))]
        if i == len(words) - 1 and (thing := _known(word, _OBJECTS)):
            return [("owns", thing)]
    return []


def _kin(attribute: str, nominative: str, words: list[str], i: int) -> list[tuple[str, str]]:
    before, after = words[:i], [w for w in words[i + 1 :] if w not in "—–-"]
    if " ".join(after[:2]).lower() in ("по кличке", "по имени"):
        after = after[2:]
    names = [n for n in " ".join(after).split(" и ") if n]
    if any(not re.fullmatch(_TOKENS["{NAMES}"], n) for n in names):
        return []
    counted = bool(before) and before[0].lower() in _COUNTS
    if counted and not names:
        return [(attribute, " ".join(words))] if attribute == "family" else []
    same_form = words[i].lower() == nominative
    kind = " ".join([*before, nominative]) if same_form and not counted else nominative
    if attribute == "spouse":
        return [(attribute, name) for name in names]
    return [(attribute, f"{kind} {name}") for name in names] or [(attribute, kind)]


def _speaks(item: str) -> list[tuple[str, str]]:
    item = re.sub(
        r"^(?:по-|на\s+|свободно\s+|немного\s+|хорошо\s+|бегло\s+)+", "", item, flags=re.I
    )
    match = re.fullmatch(r"(\w+[сц]к)(?:и|ий|ом|им|ого|ому|ая|ой)", item, re.I)
    language = match.group(1).lower() + "ий" if match else _LANGUAGES.get(item.lower())
    return [("speaks", language)] if language else []


def _job(raw: str) -> list[tuple[str, str]]:
    if raw.lower() in _NOT_JOBS:
        return []
    known = _known(raw, _JOBS) if " " not in raw else None
    return [("job", known or raw)]


def _workplace(raw: str = "") -> list[tuple[str, str]]:
    value = re.sub(rf"^(?:{_GENERIC}\s+(?=(?-i:[А-ЯЁA-Z]))|[а-яё]+\s+(?=[\"«]))", "", raw).strip(
        '"«»“”'
    )
    return [] if not value or value.lower() in _NOT_WORKPLACES else [("works_at", value)]


def _plan(value: str, go: bool = False) -> list[tuple[str, str]]:
    if re.match(r"(?:поездку|путешествие|отпуск|тур)\s+(?:в|во|на|по)\s", value, re.I):
        return []  # a trip: `rules_roles` reads it
    words = value.split()
    if re.match(r"(?:в|во|на)\s+(?-i:[А-ЯЁA-Z])", value):
        words.insert(0, "поехать")  # "собираюсь в Париж"
    if go:
        words[0] = _GO.get(words[0].lower(), words[0])
    return [("plan", " ".join(words))] if len(words) > 1 or not go else []


_NOUN_VALUED = frozenset(
    "lives_in from works_at spouse job likes dislikes allergy avoids eats usual_order"
    " usual_drink".split()
)


def dictionary_form(attribute: str, value: str) -> str:
    """'Нижнем Новгороде' -> 'Нижний Новгород' for values that are noun phrases."""
    return nominative(value) if attribute in _NOUN_VALUED else value


def clean(kind: str, value: str) -> list[tuple[str, str]]:
    """(attribute, value) pairs from one value the group `kind` of a rule caught, trimmed."""
    handlers = {"self": _self, "have": _have, "job": _job, "works_at": _workplace,
                "speaks": _speaks, "plan": _plan}  # fmt: skip
    if kind in handlers:
        return handlers[kind](value)
    if kind in ("likes", "dislikes") and _NOT_LIKED.match(value):
        return []
    if kind in ("likes_play", "likes_do"):
        verb = "играть" if kind == "likes_play" else "заниматься"
        return [("likes", f"{verb} {value}")]
    if kind == "plan_go":
        return _plan(value, go=True)
    if kind == "name" and not _is_name(value):
        return []
    return [(kind, value)]
