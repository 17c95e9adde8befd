"""Changes in a life, in English and Russian, for `kuzya.facts.rules`: where the speaker
is now, work said without a title ("now I'm sous chef at Harbor House", "I'm doing
private catering on my own"), partners found and left, likes that wore off, and switches
of a usual drink.

- A move said as being somewhere "now" ("I'm in Seattle now", "теперь я в Томске"): the
  place is where they live; a Russian one must be a place the analyser knows ("теперь я в
  Яндексе" is a job).
- A job without an article, said of a workplace or alone ("I'm head chef at X", "I'm sous
  chef now"); a trade done on one's own ("I'm doing private catering on my own"), for a
  living, or a business one runs ("I run my own catering business" -> "owner of a
  catering business"), and its name ("my business is called Little Pot", "моя кофейня
  называется «Зерно»") as the workplace.
- A workplace closed ("Harbor House closed 😢 so ...", "«Гавань» закрылась"): the speaker
  no longer works there (a no-op for a place they never worked).
- A partner left ("I broke up with Jake", "Jake dumped me", "мы с Олей расстались"): the
  spouse claim ends; without a name ("we split up", "я развелась с мужем", "I'm single
  again") its value is the relation ("partner", "муж"), which ends whoever is the partner
  (`kuzya.facts.schema.UNNAMED`). A new one ("I'm dating Priya", "я встречаюсь с Олей");
  "I'm seeing Priya" with nothing after it is read as dating, "... tomorrow" as a plan.
- A relative named after "у меня" ("Жена у меня, Марина, пилот"): `INTROS_RU`.
- A like worn off ("I'm over sushi", "Arctic Monkeys got boring", "мне надоел
  Макдональдс", "разлюбила суши"): the like ends.
- A switch of drink ("I've switched to oat flat whites", "перешла на овсяное молоко"):
  a new usual order, the old one ended when named; only for what one drinks (the words in
  `kuzya.facts.schema.DRINKS`), not "I switched to Linux".
"""

from __future__ import annotations

import re

from kuzya.facts import rules_en, rules_ru
from kuzya.facts.schema import DRINKS
from kuzya.language import normal_form

_REL_EN = r"(?:wife|husband|partner|girlfriend|boyfriend|gf|bf|fianc[eé]e?|spouse)"
_AFTER_PARTING_EN = (  # what may follow "we split up": a time, a reason, nothing
    r"(?=\s*$|[\s,]+(?:last|this|in|after|before|a (?:few|couple|month|week|year)|an? \w+ ago"
    r"|two|three|few|\d+|recently|yesterday|because|since|when|for good|officially|finally"
    r"|again|amicably|and|but|so|for)\b)"
)
_TRADE = (
    r"(?:catering|consulting|consultancy|design|photography|videography|tutoring|coaching"
    r"|bookkeeping|accounting|translation|translating|editing|copywriting|plumbing|carpentry"
    r"|cleaning|landscaping|gardening|renovations?|repairs|construction|development"
    r"|programming|marketing|hairdressing|massage|therapy|training|contracting|decorating"
    r"|babysitting|childcare|illustration|animation|baking|tattooing|deliveries|removals"
    r"|work|jobs|gigs|business|practice)"
)
_BORING = (
    r"(?:(?:a bit|kind of|kinda|too|way too|super|really|so|pretty) )*(?:boring|stale|repetitive"
    r"|tedious|tiresome|lame|dull|meh)"
)
_BECAME = (
    r"(?:got|has gotten|have gotten|has become|have become|became|is getting|are getting|grew"
    r"|has grown|have grown)"
)
_THING = (  # what wore off, said first: "Arctic Monkeys", "sushi", "my job"
    r"(?:my )?(?:(?-i:[A-Z0-9])[\w'&.-]*(?:\s+(?:&\s+)?(?-i:[A-Z0-9])[\w'&.-]*){0,3}"
    r"|(?-i:[a-z][\w-]*)(?:\s+(?-i:[a-z][\w-]*))?)"
)
_ENGLISH = (
    r"^(?=.*\bnow\b){L}{WE}{A}(?:am|are) {A}(?:living |based |settled )?in "
    r"(?!(?:IT|HR|PR|QA|UX|UI|AI|R&D)\b)(?P<lives_in>{PLACE})"
    r"(?:\s+(?:now|for good|permanently|again|lol|haha))*[\s!.]*$",
    r"{L}{I}{A}am (?:now |the )?(?-i:(?=[a-z]))(?P<job>{OCC})\b (?:at|for|with) "
    r"(?P<works_at>{ORG})",
    r"{L}{I}{A}am (?:now )?(?-i:(?=[a-z]))(?P<job>{OCC})(?:\s+(?:now|here|again|these days))*"
    r"\s*$",
    r"{L}{I}{A}(?:am doing|do|am running|run) (?P<job_trade>(?-i:[a-z][\w-]*)"
    r"(?: (?-i:[a-z][\w-]*)){0,2}?) (?:on my own|for myself|by myself|independently)\b",
    r"{L}{I}{A}(?:am doing|do) (?P<job_trade_any>(?-i:[a-z][\w-]*)(?: (?-i:[a-z][\w-]*)){0,2}?)"
    r" (?:for a living|professionally|freelance|as a freelancer)\b",
    r"{L}{I}{A}(?P<job_self>am self[- ]employed|work for myself|am my own boss)\b",
    r"{L}{WE}{A}(?:have )?(?:run|own|started|opened|launched|set up) (?:my own|our own|a|an"
    r"|my|our) (?P<job_owner>(?:[\w-]+ ){0,2}?(?:business|company|firm|studio|shop|store"
    r"|bakery|restaurant|cafe|café|bar|agency|practice|salon|clinic|startup|start-up))\b"
    r"(?: (?:called|named) (?P<works_at>{ORGCAP}))?",
    r"{L}(?:my|our) (?:own )?(?:business|company|firm|studio|shop|store|bakery|restaurant|cafe"
    r"|café|bar|agency|practice|salon|clinic|startup|start-up) (?:is called|is named|is) "
    r"(?P<works_at>{ORGCAP})",
    # a workplace closed: it is no longer where the speaker works, if it was
    r"{L}(?P<works_at__end>{ORGCAP}) (?:has |had )?(?:closed(?: down| its doors)?|shut down"
    r"|went (?:bust|under|out of business))(?: for good| permanently)?"
    r"(?=\s*$|\s*[^\w\s]|\s+(?:so|and|but|last|this|in|after|because|today|yesterday)\b)",
    # partners left
    r"{L}{I}{A}(?:have )?{A}(?:broke up|split up|split|separated|divorced|got divorced) "
    rf"(?:with|from) (?:my |our )?(?:{_REL_EN}\s+)?(?P<spouse__end>{{NAMES}})(?!['’]s)\b",
    r"{L}{I}{A}(?:have )?{A}(?:broke up with|split up with|split from|separated from|divorced"
    rf"|got divorced from|dumped|left) (?:my|our) (?P<spouse_rel__end>{_REL_EN})"
    rf"{_AFTER_PARTING_EN}",
    rf"{{L}}(?P<spouse__end>{{NAMES}}) {{A}}(?:dumped|left|broke up with) me{_AFTER_PARTING_EN}",
    rf"{{L}}my (?P<spouse_rel__end>{_REL_EN}) {{A}}(?:dumped|left|broke up with) me"
    rf"{_AFTER_PARTING_EN}",
    r"{L}we {A}(?:have )?{A}(?P<spouse_we__end>broke up|split up|split|separated|got divorced"
    rf"|divorced|called it quits){_AFTER_PARTING_EN}",
    r"{L}{I}{A}am (?:newly |officially )?(?P<spouse_we__end>single)(?:\s+(?:again|now|lol|haha))*"
    r"[\s!.]*$",
    # partners found
    r"{L}{I}{A}(?:am|have been|started) (?:dating|seeing|going out with|in a relationship with)"
    r" (?:someone|somebody|a (?:guy|girl|man|woman|boy|lady))(?: new)?(?:\s*[,—–:-]\s*|\s+)"
    r"(?:(?:her|his|their) name is|named|called)\s+(?P<spouse>{NAMES})\b",
    r"{L}{I}{A}(?:am|have been|started) (?:dating|going out with|in a relationship with) "
    r"(?P<spouse>{NAMES})(?!['’]s)\b",
    r"{L}{I}{A}(?:am|have been) seeing (?P<spouse>{NAMES})(?!['’]s)(?=\s*$|\s+(?:now|these days"
    r"|lately|again|exclusively|officially|since|for (?:a while|a few|a couple|some time"
    r"|\w+ (?:weeks|months|years)|the (?:past|last)))\b)",
    # likes worn off
    r"{L}{I}{A}am (?:kind of |kinda |totally |completely |so |just |officially )?(?:over|done with"
    r"|sick of|tired of|bored of|bored with|fed up with|through with|burnt out on|burned out on)"
    r" (?P<likes__end>.+)",
    r"{L}{I}{A}(?:have )?(?:fell|fallen) out of love with (?P<likes__end>.+)",
    rf"(?:^{{L}}|^.*?[,;—–]\s+)(?P<likes__end>{_THING}) {{A}}{_BECAME} {{A}}{_BORING}"
    r"(?:\s+(?:for me|to me|now|lately|these days|honestly|tbh|already|lol|haha))*[\s!.]*$",
    rf"^{{L}}(?P<likes__end>{_THING}) (?:is|are) {{A}}{_BORING} (?:now|these days|lately"
    r"|any ?more)[\s!.]*$",
    # money owed
    r"{L}{I}{A}(?:still )?owe (?P<debt>.+)",
    r"{L}{I}{A}(?:have |had )?borrowed (?P<debt>.+?\bfrom\b.+)",
    # a usual drink switched
    r"{L}{WE}{A}(?:have )?{A}(?:switched|changed|swapped|gone over|went over|moved over)"
    r"(?: over)? (?:from (?P<usual_order_switch__end>.+?) )?to (?P<usual_order_switch>.+)",
)

_TIME_RU = (
    r"(?:в прошл\w+ (?:году|месяце)|на прошлой неделе|в этом (?:году|месяце)|(?:\d+|два|две|три"
    r"|пару|несколько|полгода|год|месяц|неделю)(?:\s*(?:лет|года?|месяц\w*|недел\w*|дн\w*))?"
    r"(?:\s+назад)?"
    r"|вчера|сегодня|недавно|давно|летом|зимой|весной|осенью)"
)
_AFTER_PARTING_RU = (
    rf"(?:\s+(?:{_TIME_RU}|уже|давно|недавно|окончательно|навсегда|официально|наконец))*"
    r"(?=\s*$|\s*[,.!;…]|\s+(?:потому что|так как|после|из-за|когда|и|но|а)(?!\w))"
)
_REL_RU = (
    r"(?:мужем|женой|парнем|девушкой|супругом|супругой|женихом|невестой|бойфрендом|партнёром"
    r"|партнером|партнёршей|партнершей)"
)
_APART_RU = r"(?:расстались|разошлись|развелись|разбежались)"
_LEFT_RU = r"(?:бросил|бросила|ушёл от меня|ушел от меня|ушла от меня)"
_WORE_OFF_RU = (
    r"(?:надоел|надоела|надоело|надоели|наскучил|наскучила|наскучило|наскучили|приелся"
    r"|приелась|приелось|приелись|разонравился|разонравилась|разонравилось|разонравились)"
)
_DATING_TAIL_RU = (
    r"(?=\s*$|\s*[,.!;…]|\s+(?:уже|давно|недавно|теперь|сейчас|полгода|полтора|почти|около"
    r"|больше|год|месяц|\d|пару|несколько|с (?:весны|лета|осени|зимы|\w+[яа]|\d))(?!\w))"
)
_RUSSIAN = (
    r"^(?=.*(?<!\w)теперь(?!\w)){L}{I}{A}(?:живу\s+)?(?:в|во|на) (?P<lives_in_now>{PLACE})"
    r"(?:\s+(?:теперь|уже|насовсем|навсегда|окончательно))*(?=[\s!.)]*$|\s*[,;…])",
    r"{L}(?:моя|наша|мой|наш|моё|мое|наше) (?:собственн\w+ )?(?:фирма|компания|студия|кофейня"
    r"|пекарня|кондитерская|мастерская|магазин|салон|кафе|ресторан|бар|агентство"
    r"|стартап|бизнес) (?:называется|зовётся|зовется) (?P<works_at>{ORGCAP})",
    # a workplace closed
    r"{L}(?P<works_at__end>{ORGCAP}) (?:закрыл(?:ся|ась|ось|ись)|обанкротил(?:ся|ась|ось|ись)"
    r"|разорил(?:ся|ась|ось|ись))(?: насовсем| навсегда| окончательно)?(?=\s*$|\s*[^\w\s]"
    r"|\s+(?:и|но|а|так что|поэтому|в прошл\w+|вчера|недавно)(?!\w))",
    # partners left
    rf"{{L}}мы с (?P<spouse__end>{{NAMES}}) {{A}}{_APART_RU}{_AFTER_PARTING_RU}",
    rf"{{L}}мы(?: с (?:ним|ней))? {{A}}(?P<spouse_we__end>{_APART_RU}){_AFTER_PARTING_RU}",
    r"{L}{I}{A}(?P<spouse_we__end>развелась|развёлся|развелся|в разводе)"
    rf"{_AFTER_PARTING_RU}",
    r"{L}{I}{A}(?:развёлся|развелся|развелась|рассталась|расстался|разошёлся|разошелся|разошлась)"
    rf" с (?:моим |моей |своим |своей )?(?:(?P<spouse_rel__end>{_REL_RU})|(?P<spouse__end>"
    r"{NAMES}))",
    rf"{{L}}(?:мой |моя )?(?P<spouse_rel__end>муж|жена|парень|девушка) (?:меня )?{_LEFT_RU}",
    rf"{{L}}(?P<spouse__end>{{NAMES}}) (?:меня )?{_LEFT_RU}{_AFTER_PARTING_RU}",
    r"{L}меня {A}(?:бросил|бросила) (?:мой |моя )?(?P<spouse_rel__end>муж|жена|парень|девушка)",
    rf"{{L}}{{I}}{{A}}(?:бросил|бросила) (?P<spouse__end>{{NAMES}}){_AFTER_PARTING_RU}",
    # partners found
    r"{L}{I?}{A}(?:встречаюсь|начал встречаться|начала встречаться) с "
    rf"(?P<spouse>{{NAMES}}){_DATING_TAIL_RU}",
    rf"{{L}}мы с (?P<spouse>{{NAMES}}) {{A}}встречаемся{_DATING_TAIL_RU}",
    r"{L}(?:{I?}{A}встречаюсь с|у меня {A}(?:появился|появилась|есть)(?: новый| новая)?) "
    r"(?:парнем|девушкой|мужчиной|женщиной|парень|девушка|мужчина|женщина|бойфренд)"
    r"(?:\s*[,—–-]\s*|\s+)(?:(?:его|её|ее) зовут|по имени)\s+(?P<spouse>{NAMES})",
    # likes worn off
    rf"{{L}}{{A}}мне {{A}}{_WORE_OFF_RU} (?P<likes__end>.+)",
    rf"^{{L}}(?P<likes__end>[^,;:]{{1,40}}?) (?:мне )?{{A}}{_WORE_OFF_RU}(?:\s+мне)?"
    r"(?:\s+(?:уже|совсем|окончательно|до смерти|ужасно|жутко|тоже))*[\s!.…]*$",
    r"{L}{I?}{A}(?:разлюбил|разлюбила|разлюбили) (?P<likes__end>.+)",
    r"{L}{I}{A}(?:охладел|охладела|остыл|остыла|устал|устала) (?:к|от) (?P<likes__end>.+)",
    # money owed
    r"{L}{I}{A}(?:занял|заняла|занимал|занимала|взял в долг|взяла в долг|задолжал|задолжала)"
    r" (?P<debt>.+)",
    r"{L}{I}{A}(?:до сих пор |ещё |еще )?(?:должен|должна) (?P<debt>.+)",
    # a usual drink switched
    r"{L}{WE?}{A}(?:перешёл|перешел|перешла|перешли|переключился|переключилась|пересел|пересела"
    r"|пересели) (?:(?:полностью|совсем)\s+)?(?:с (?P<usual_order_switch__end>.+?) )?на "
    r"(?P<usual_order_switch>.+)",
)
ENGLISH = tuple(rules_en.compile_rule(p) for p in _ENGLISH)
RUSSIAN = tuple(rules_ru.compile_rule(p) for p in _RUSSIAN)

# "Жена у меня, Марина, пилот в «Победе»": a relative named after "у меня"
INTROS_RU = (
    rules_ru.compile_rule(
        r"^(?P<rel>[\w-]+)\s+у (?:меня|нас)\s*(?:,|[-—–])?\s*(?P<name>{NAMES})\s*(?:,|[-—–])?"
        r"(?=(?P<rest>.*))"
    ),
)
# a partner named as they are left: "I broke up with my boyfriend Jake (last week)"
_PARTED = re.compile(
    r"(?:broke up|split up|split|separated|divorced|dumped|left|расстал\w*|развел\w*|развёл\w*"
    r"|разош\w+|бросил\w*)\s+(?:(?:with|from|с|со)\s+)?$",
    re.I,
)
_PARTING_TAIL = re.compile(
    r"\s*(?:$|[,;.!…]|(?:last|this|after|for|because|since|recently|yesterday|a (?:few|couple"
    r"|month|week|year)|\d|в прошл\w+|после|потому|недавно|вчера)(?!\w))",
    re.I,
)


def parted(attribute: str, before: str, rest: str) -> bool:
    """Whether a partner introduced by name is said to be left ("I left my wife Anna"; not
    "I left my wife Anna a note")."""
    return (
        attribute == "spouse"
        and _PARTED.search(before) is not None
        and _PARTING_TAIL.match(rest) is not None
    )


_NOT_LIKED = re.compile(
    r"^(?:it|it all|this|that|these|those|things|everything|everyone|life|he|she|they|we|you"
    r"|i|me|him|her|them|us|people|the moon|there|here|\d+|what|how|when|waiting|это|всё|все"
    r"|то|что|как|когда|его|её|ее|их|тебя|вас|жить|эта|этот|эти|эту|такой|такая|такие"
    r"|at|in|on|to|with|for|from|(?:the|my) (?:dishes|laundry|homework|cleaning|chores|work"
    r"|day|week|meeting|call|exams?|tests?|project|report|shift|interview|paperwork))(?!\w)",
    re.I,
)
_NOT_TRADES = re.compile(
    r"^(?:it|this|that|the|a|an|my|our|some|fine|great|well|ok|okay|good|better|alright"
    r"|nothing|everything|something|stuff|things|all|most|more|less|much)\b",
    re.I,
)
# a debt names money: "I owe Sam 500 dollars", "занял у Саши 50 тысяч" (not "I owe you one",
# "я должен идти")
_MONEY = re.compile(
    r"[$€£₽]|\d+\s*(?:k|к)(?!\w)|(?<!\w)(?:dollars?|bucks|euros?|pounds?|quid|grand|money|cash"
    r"|rubles?|roubles?|usd|eur|рубл\w*|руб|денег|деньги|деньгами|тысяч\w*|тыщ\w*|косар\w*"
    r"|штук\w*|млн|миллион\w*)(?!\w)",
    re.I,
)
_UNNAMED = {"spouse_we": {"en": "partner", "ru": "партнёр"}}
_SHORT = {"gf": "girlfriend", "bf": "boyfriend"}
_NOT_NAMES = rules_en.NOT_NAMES | rules_ru.NOT_NAMES


def clean(kind: str, value: str) -> list[tuple[str, str]]:
    """(attribute, value) pairs from what a rule of a life's changes caught."""
    if kind == "lives_in_now":
        return [("lives_in", value)] if normal_form.place(value.split()[0]) else []
    if kind in ("job_trade", "job_trade_any"):
        trade = kind == "job_trade_any" or re.search(rf"\b{_TRADE}$", value, re.I)
        return [("job", value)] if trade and not _NOT_TRADES.match(value) else []
    if kind == "job_self":
        return [("job", "self-employed")]
    if kind == "job_owner":
        value = re.sub(r"^(?:my own|our own|my|our|a|an)\s+", "", value, flags=re.I)
        return [("job", f"owner of {'an' if value[:1].lower() in 'aeiou' else 'a'} {value}")]
    if kind == "spouse":  # a name: "Mom left me" is no partner leaving
        named = value.lower() not in _NOT_NAMES and rules_en.relation(value) is None
        return [("spouse", value)] if named else []
    if kind == "spouse_rel":
        return [("spouse", _SHORT.get(value.lower(), value.lower()))]
    if kind == "spouse_we":
        language = "ru" if re.search(r"[а-яё]", value, re.I) else "en"
        return [("spouse", _UNNAMED[kind][language])]
    if kind == "likes":
        return [] if _NOT_LIKED.match(value) else [("likes", value)]
    if kind == "debt":
        return [("debt", value)] if _MONEY.search(value) else []
    if kind == "usual_order_switch":
        value = re.sub(r"^(?:the|a|an|my)\s+", "", value, flags=re.I)
        return [("usual_order", value)] if DRINKS.search(value) else []
    return [(kind, value)]


def apposition(rest: str) -> str:
    """What follows a relative's name, said of them: ", a pilot" -> "is a pilot"."""
    return f"is {rest}" if re.match(r"(?:a|an)\s", rest, re.I) else rest
