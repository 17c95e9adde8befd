"""A sentence made ready for the rules of `kuzya.facts.rules`, before contractions are
expanded: what leads it and says nothing about the speaker is dropped, a subject the
speaker left out is put back, and a few ways of saying a change are put the way the rules
read them.

- Leads: a heading before a colon or a dash ("Update:", "Новости:", "Big news —"; not "My
  address:", which is what it says), interjections ("lol", "ugh", "блин", "ахах") and
  discourse markers ("Plot twist,", "Honestly,", "Короче,", "Всё,", "Если честно,").
- A subject left out at the start: "Новости: переехал в Новосибирск, устроился в
  лабораторию" is read as "я переехал ..., я устроился ..." (a Russian past-tense verb,
  singular, by `normal_form.speaker_past`); "Update: moved to Austin, got a job at Dell"
  as "I moved ..., I got ...". Such a sentence is taken to be about the speaker.
- Changes: "Jake and I broke up" -> "I broke up with Jake" (otherwise the clause would be
  cut before "I"); "we're not together anymore" -> "we broke up"; "мы больше не вместе"
  -> "мы расстались"; "работаю уже не в банке, а в «Эксмо», редактором" -> "я больше
  не работаю в банке, я работаю в «Эксмо» редактором"; "I'm now in Seattle" -> "now I'm
  in Seattle" (the "now" would go with the contraction's adverbs).
"""

from __future__ import annotations

import re

from kuzya.facts import rules_en, rules_ru
from kuzya.language import normal_form

_SEPARATOR = r"[\s,!.…:;—–-]+"
_INTERJECTIONS = (  # whatever follows them, a space will do
    r"lo+l|lmf?ao|rofl|(?:ha){2,}h?|(?:he){2,}|o+mg|omfg|wo+w|whoa|woah|u+gh|welp|yay|hooray"
    r"|phew|whew|hm+|u+m+|u+h+|erm?|a+h+|a+ha|o+h+|o+o+h|meh|damn|dang|gosh|jeez|geez|heh"
    r"|yikes|argh|oops|aw+|tbh|tbf|ngl|imo|lowkey|btw|fyi"
    r"|лол|кек|омг|(?:ха){2,}х?|а?(?:ха){2,}|(?:ах){2,}а?|хех|ого|ух|вау|ой|ох|ах|эх|увы|ура|блин|хм+"
    r"|м{2,}|э+м*|ага|угу|упс|оу"
)
_PHRASES = (  # many words, or one no sentence starts with otherwise
    r"plot twist|fun fact|guess what|spoiler(?: alert)?|side note|in other news|long story short"
    r"|tl;?dr|p\.?s\.?|(?:it )?turns out(?: that)?|as it turns out|you know what|get this"
    r"|believe it or not|to be honest|for the record|all in all|oh well|by the way|either way"
    r"|speaking of which|funn(?:il)?y enough|anyways?|anyhow|honestly|seriously|literally"
    r"|basically|frankly|luckily|sadly|unfortunately|fortunately|thankfully|interestingly"
    r"|surprisingly|short version|small update|quick update|life update"
    r"|короче(?: говоря)?|кароч[е]?|в общем(?:-то| и целом)?|вобщем|в итоге|итак|кстати(?: говоря)?"
    r"|слушай(?:те)?|прикинь(?:те)?|представляешь|представляете|представь(?:те)?|оказывается"
    r"|как оказалось|(?:если |честно )?честно(?: говоря)?|по правде(?: говоря)?|между прочим"
    r"|к слову|наконец-то|собственно(?: говоря)?|в смысле|так вот|ну вот|ну что ж|что ж"
    r"|вообще-то|к тому же|кроме того"
)
_BARE = (  # a word that starts sentences of its own: only with a comma, a colon, a dash
    r"so|well|right|sure|alright|ok|okay|yeah|yes|yep|yup|nope|no|hey|hi|hello|wait|news"
    r"|update|(?:big|good|great|bad|some|exciting|little|happy|sad) (?:news|update)"
    r"|всё|все|ну|вот|так|ладно|знаешь|знаете|да|нет|вообще|новости|новость|апдейт"
    r"|(?:хорошие|плохие|главные|большие) новости"
    # a word of feeling said first: "Weird, lately I've switched ...", "Круто, ..."
    r"|weird|strange|funny|crazy|wild|cool|nice|great|awesome|amazing|sweet|cute|perfect|fine"
    r"|whatever|true|exactly|obviously|of course|sorry|thanks|thank you|congrats|damn|sigh"
    r"|странно|круто|прикольно|смешно|жаль|класс|супер|отлично|ужас|кошмар|понятно|спасибо"
    r"|конечно|естественно|в общем-то|ага|да уж|увы"
)
_LEAD = re.compile(
    rf"(?:(?:{_INTERJECTIONS}|{_PHRASES})(?![\w'’]){_SEPARATOR}"
    rf"|(?:{_BARE})\s*[,!.…:;—–-]+\s*)",
    re.I,
)
# "Update:", "Новости такие —": a heading, unless it names the speaker ("My address:")
_HEADING = re.compile(r"(?P<lead>[^\W\d_][\w'’.-]*(?:\s+[\w'’.-]+){0,3}?)\s*(?::|\s[—–-])\s+")
_SPEAKER_WORDS = frozenset(
    """i me my mine we us our you your he him his she her they them their it its this that
    я меня мне мной мой моя моё мое мои моего моей моих мы нас нам наш наша наше наши ты
    тебя вы вас он она они его её ее их у это""".split()
)
_NEWS = re.compile(r"(?<!\w)(?:news|updates?|новост\w*|апдейт\w*)(?!\w)", re.I)


def _drop_leads(sentence: str, russian: bool) -> str:
    """The sentence without the leads no rule reads; the grammar's own ("so", "now",
    "кстати", "вчера") are kept, for its rules read them ("now I'm in Seattle")."""
    own = rules_ru.LEAD if russian else rules_en.LEAD
    for _ in range(6):
        kept = own.match(sentence)
        for at in dict.fromkeys((0, kept.end() if kept else 0)):
            match = _LEAD.match(sentence, at) or _HEADING.match(sentence, at)
            if match and (match.re is _LEAD or _heading(match.group("lead"))):
                break
        else:
            break
        rest = sentence[match.end() :]
        if not re.search(r"\w", rest):
            break
        sentence = sentence[:at] + rest
    return sentence


def _heading(lead: str) -> bool:
    words = {w.lower() for w in re.findall(r"[\w'’]+", lead)}
    return not words & _SPEAKER_WORDS or _NEWS.search(lead) is not None


# -- a subject left out ----------------------------------------------------------------------

_EN_ADVERBS = r"(?:(?:just|finally|recently|officially|also|then|actually|already)\s+)*"
_EN_PAST = (
    r"(?:moved|relocated|got|started|joined|quit|left|broke up|split up|married|divorced"
    r"|adopted|bought|sold|became|switched|landed|turned|graduated|retired|went|gave away"
    r"|lost|signed|accepted|took|changed|dumped)"
)
_EN_DROPPED = re.compile(rf"^({_EN_ADVERBS}){_EN_PAST}\b", re.I)
_EN_SHARED = re.compile(rf",\s+(?:and\s+)?(?={_EN_ADVERBS}{_EN_PAST}\b)", re.I)
_RU_WORD = re.compile(r"[а-яё]+(?:л|ла|лся|лась)(?!\w)", re.I)
_RU_SHARED = re.compile(r"(,|\s+и)\s+(?=(?-i:[а-яё])[а-яё]*(?:л|ла|лся|лась)(?!\w))", re.I)


def _speaker_back(sentence: str, russian: bool) -> str:
    """The sentence with "я"/"I" put before a verb whose subject was left out, at its start
    and after its commas while the speaker is still the subject."""
    lead = (rules_ru.LEAD if russian else rules_en.LEAD).match(sentence)
    at = lead.end() if lead else 0
    head, rest = sentence[:at], sentence[at:]
    if russian:
        word = _RU_WORD.match(rest)
        if word and normal_form.speaker_past(word.group(0)):
            rest = "я " + rest[:1].lower() + rest[1:]  # "я испекла": a verb, not a name
        if not re.match(r"я\s", rest, re.I):
            return sentence
        return head + _RU_SHARED.sub(
            lambda m: f"{m.group(1)} я " if _shared_ru(m, rest) else m.group(0), rest
        )
    if _EN_DROPPED.match(rest):
        rest = "I " + rest
    if not re.match(r"(?-i:I)\b", rest):
        return sentence
    return head + _EN_SHARED.sub(", I ", rest)


def _shared_ru(match: re.Match[str], text: str) -> bool:
    word = _RU_WORD.match(text, match.end())
    return word is not None and normal_form.speaker_past(word.group(0))


# -- changes said another way ----------------------------------------------------------------

_NAMES = r"(?-i:(?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?)"
_COUPLE = re.compile(
    rf"\b(?:(?P<who>(?:my|our)\s+[\w-]+|{_NAMES})\s+and\s+I|me\s+and\s+(?P<whom>(?:my\s+)?"
    r"[\w-]+))\s+(?P<adv>(?:(?:have|had|just|finally|officially|recently|already|actually)\s+)*)"
    r"(?:broke up|split up|split|separated|divorced|got divorced|called it quits"
    r"|(?:are|'re)\s+(?:no longer|not)\s+together(?:\s+any\s?more)?)\b",
    re.I,
)
_WE_APART = re.compile(
    r"\bwe(?:\s+are|'re)\s+(?:no longer|not)\s+together(?:\s+any\s?more)?\b", re.I
)
_RU_APART = re.compile(r"(?<!\w)(мы(?:\s+с\s+\w+)?)\s+(?:больше|уже)\s+не\s+вместе(?!\w)", re.I)
# "работаю уже не в банке, а в «Эксмо», редактором": the old place ended, the new one said
_RU_NOT_BUT = re.compile(
    r"(?<!\w)(?:я\s+)?(?P<verb>[а-яё]+(?:ю|у|юсь|усь))\s+(?:уже\s+|больше\s+|теперь\s+)*не\s+"
    r"(?P<old>(?:в|во|на|у)\s[^,;.!?]+?)\s*,\s*а\s+(?P<new>(?:в|во|на|у)\s[^;.!?]+)",
    re.I,
)
_NOW_IN = re.compile(
    r"\b((?-i:I)'m|(?-i:I) am|we're|we are)\s+now\s+(?=(?:living\s+|based\s+)?in\s)", re.I
)


def _lower_my(who: str) -> str:
    return re.sub(r"^(my|our)\b", lambda m: m.group(1).lower(), who, flags=re.I)


def _changes(sentence: str, russian: bool) -> str:
    if russian:
        sentence = _RU_NOT_BUT.sub(
            lambda m: (
                f"я больше не {m['verb'].lower()} {m['old']}, я {m['verb'].lower()} "
                + m["new"].replace(",", "")
            ),
            sentence,
        )
        return _RU_APART.sub(r"\1 расстались", sentence)
    sentence = _COUPLE.sub(
        lambda m: f"I {m.group('adv')}broke up with {_lower_my(m.group('who') or m.group('whom'))}",
        sentence,
    )
    sentence = _WE_APART.sub("we broke up", sentence)
    return _NOW_IN.sub(r"now \1 ", sentence)


def prepare(sentence: str, russian: bool) -> str:
    """The sentence as the rules read it: leads dropped, the speaker put back where they
    were left out, changes said the rules' way."""
    sentence = _drop_leads(sentence, russian)
    return _speaker_back(_changes(sentence, russian), russian)
