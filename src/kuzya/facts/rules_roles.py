"""Job titles and trips, in English and Russian, for `kuzya.facts.rules`: titles beyond
the occupation lexicons ("I'm the head of marketing at Acme", "I'm a product owner at
Spotify", "my title is staff engineer", "меня назначили главным инженером", "я работаю в
должности ведущего аналитика") and trips ("I'm planning a trip to Spain in July", "we
booked a holiday in Crete for May").

A title is read only where it ends in a word a title ends in (head, director, owner, lead,
manager, ...) and names a workplace, or is said as a title ("my title is ..."): "I'm a
regular at Joe's" is no job. A trip becomes a plan ("travel to Spain in July"); the date
its time phrase means is added when the claim is recorded (`kuzya.facts.claims.dated`).
"""

from __future__ import annotations

import re

from kuzya.facts import rules_en, rules_ru

_TITLES = (
    r"(?:head|director|manager|lead|owner|officer|specialist|coordinator|supervisor|executive"
    r"|president|vp|partner|associate|assistant|strategist|foreman|chief|principal|architect"
    r"|analyst|engineer|developer|scientist|designer|researcher|consultant|editor|producer"
    r"|administrator|advisor|adviser|representative|rep|intern|ceo|cto|cfo|coo|cmo|founder"
    r"|co-founder|cofounder|programmer|accountant|recruiter|teacher|nurse|doctor)"
)
_TITLE = rf"(?:[\w-]+ ){{0,3}}?{_TITLES}(?: of (?:[\w-]+ ){{0,2}}?[\w-]+)?"
_ENGLISH = (
    rf"{{L}}{{I}}{{A}}(?:am|work as|have become|became) (?:a|an|the) (?P<job>{_TITLE}) (?:at|for"
    r"|with|of) (?P<works_at>{ORGCAP})",
    r"{L}my (?:job title|title|job|role|position) is (?:now )?(?:a |an |the )?(?P<job>.+)",
    r"{L}{I}{A}(?:was|got|have been|have just been) (?:promoted|appointed|made) (?:to |as )?"
    rf"(?:a |an |the )?(?P<job>{_TITLE})(?: (?:at|of) (?P<works_at>{{ORGCAP}}))?\s*$",
    r"{L}{WE}{A}(?:am|are) {A}(?:planning|organising|organizing|booking|taking|going on"
    r"|saving for) (?:a|an|our|my) (?:[\w-]+ ){0,2}?(?:trip|vacation|holiday|visit|getaway"
    r"|honeymoon|journey|tour|road trip|weekend) (?P<trip>(?:to|in|around|across) .+)",
    r"{L}{WE}{A}(?:have|have got|booked|have booked|bought|have bought) (?:a|an|our|my)"
    r" (?:[\w-]+ ){0,2}?(?:trip|vacation|holiday|flights?|tickets?|getaway|honeymoon|tour)"
    r" (?P<trip>(?:to|in|around|across) .+)",
)
_RUSSIAN = (
    r"{L}{A}меня {A}(?:назначили|сделали|повысили до|перевели на должность) (?P<job>.+)",
    r"{L}{I?}{A}работаю {A}(?:в|на) (?:должности|позиции) (?P<job>.+)",
    r"{L}(?:моя |у меня )(?:должность|позиция)\s*(?:[-—–:]\s*|\s+)(?:это\s+)?(?P<job>.+)",
    r"{L}{WE?}{A}(?:планирую|планируем|собираюсь|собираемся|готовлю|готовим|организую"
    r"|организуем) (?:поездку|путешествие|отпуск|тур) (?P<trip>(?:в|во|на|по) .+)",
)
ENGLISH = tuple(rules_en.compile_rule(p) for p in _ENGLISH)
RUSSIAN = tuple(rules_ru.compile_rule(p) for p in _RUSSIAN)
_NOT_TITLES = re.compile(
    r"^(?:a |the )?(?:secret|mess|pain|joke|mystery|nightmare|long story|complicated|boring"
    r"|classified|nothing|none|unknown|to |not )",
    re.I,
)


def clean(kind: str, value: str) -> list[tuple[str, str]]:
    """(attribute, value) pairs from what a title or trip rule caught."""
    if kind == "trip":
        verb = "поехать" if re.match(r"(?:в|во|на|по)\s", value) else "travel"
        return [("plan", f"{verb} {value}")]
    if kind == "job":
        if _NOT_TITLES.match(value):
            return []
        value = re.split(r"\s+(?:at|for|в|во|на)\s+(?=(?-i:[A-ZА-ЯЁ«\"]))", value, maxsplit=1)[0]
    return [(kind, value)]
