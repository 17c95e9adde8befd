"""Habits and diets, in English and Russian, for `kuzya.facts.rules`: what a speaker
usually orders ("I always order X", "my usual is X", "обычно беру X", "всегда заказываю
X") and what they do not eat ("I don't eat eggs", "не ем мясо").

A usual order needs a word of habit ("always", "usually", "обычно", "всегда", "every
time") or a "usual" noun ("my usual is", "мой обычный заказ"); "I ordered pizza" once is an
episode, not a habit. Errands and routines that take the same verbs ("I always get up at
7", "I usually get the bus", "всегда беру с собой зонт") are left out, and "have" and
"take" are not read as ordering ("I always have my phone", "I take my time").

"I don't eat X" is read like "I don't like X": the negation is lifted by the grammar, the
rule catches "eat X" (group `eats`), and `kuzya.facts.rules` turns a negated `eats` into
an `avoids` claim; "I eat meat again" ends one. What one drinks (group `drinks`) is an
avoidance only when negated ("I never drink alcohol"); said plainly it is a habit, a usual
order ("I drink my coffee black, always", "теперь пью раф на овсяном"), and "again" ends
an avoidance ("I drink coffee again").
"""

from __future__ import annotations

import re

from kuzya.facts import rules_en, rules_ru

_HABIT_EN = (
    r"(?:always|usually|normally|typically|generally|regularly|mostly|invariably|often"
    r"|pretty much always|almost always)"
)
_ORDER_EN = r"(?:order|get|grab|pick|choose|go for|ask for|drink|stick with|stick to)"
_NOT_ORDERS_EN = re.compile(
    r"^(?:up|home|back|to|there|here|into|out|off|on|in|over|through|along|away|by|around"
    r"|bored|tired|sick|lost|angry|mad|upset|nervous|scared|hungry|drunk|ready|dressed|paid"
    r"|used|married|caught|stuck|it|that|this|them|him|her|me|you|us|myself|one|some sleep"
    r"|time|care|my time|a (?:nap|shower|bath|walk|break|look|seat|chance|cab|taxi|train|bus"
    r"|photo|picture|minute|second|while)|the (?:bus|train|metro|subway|tube|tram|car|stairs"
    r"|elevator|lift|kids|dog|chance|time|lead|blame|wheel|trash|rubbish|bins?)|(?:a|the|my)"
    r" (?:headache|cold|flu|migraine)|lunch|dinner|breakfast|fun|notes|pictures|photos|my keys"
    r"|medicine|pills|my (?:pills|medication|meds))\b",
    re.I,
)
_ENGLISH = (
    rf"{{L}}{{WE}}{{A}}{_HABIT_EN}\s+{{A}}{_ORDER_EN} (?P<usual_order>.+)",
    rf"{{L}}{{WE}}{{A}}{_ORDER_EN} (?P<usual_order>.+?) (?:every (?:single )?time|each time"
    r"|every day|every morning|without fail)\b",
    r"{L}my (?:usual|regular|standard|go-to|go to|default|everyday)(?: (?:order|drink|coffee"
    r"|meal|dish|lunch|breakfast|dinner|pick))? (?:is|has always been) (?P<usual_order>.+)",
    r"{L}{WE}{A}(?:eat|touch|consume) (?P<eats>.+)",
    r"{L}{WE}{A}drink (?P<drinks>.+)",
)
_HABIT_RU = r"(?:обычно|всегда|как правило|постоянно|каждый раз|чаще всего|традиционно)"
_ORDER_RU = (
    r"(?:беру|берём|берем|заказываю|заказываем|покупаю|покупаем|выбираю|выбираем|пью|пьём"
    r"|пьем)"
)
_NOT_ORDERS_RU = re.compile(
    r"^(?:с собой|себе|на себя|на работу|в руки|трубку|такси|отпуск|выходн\w+|кредит\w*"
    r"|ипотек\w*|больничн\w+|паузу|перерыв|детей|ребёнка|ребенка|собаку|зонт\w*|его|её|ее|их"
    r"|это|всё|все|лекарств\w*|таблетк\w*)(?!\w)",
    re.I,
)
_RUSSIAN = (
    rf"{{L}}{{WE?}}{{A}}{_HABIT_RU}\s+{{A}}{_ORDER_RU} (?P<usual_order>.+)",
    r"{L}(?:мой|моё|мое) (?:обычный |постоянный |привычный |стандартный )?заказ\s*"
    r"(?:[-—–:]\s*|\s+)(?:это\s+|всегда\s+|обычно\s+)?(?P<usual_order>.+)",
    r"{L}{WE?}{A}(?:ем|едим|кушаю|употребляю) (?P<eats>.+)",
    r"{L}{WE?}{A}(?:пью|пьём|пьем) (?P<drinks>.+)",
    r"{L}{WE?}{A}(?:снова|опять) {A}(?:ем|едим|пью|пьём|пьем) (?P<eats>.+)",
)
ENGLISH = tuple(rules_en.compile_rule(p) for p in _ENGLISH)
RUSSIAN = tuple(rules_ru.compile_rule(p) for p in _RUSSIAN)
_NOT_FOOD = re.compile(
    r"^(?:out|in|alone|together|well|late|early|less|more|healthy|right|a lot|much|enough"
    r"|here|there|at|with|for|before|after|when|so|and|but|please|no|not|too|socially|like"
    r"|occasionally|rarely|heavily|responsibly|from|to|it|that|this|мало|много|поздно|рано|дома"
    r"|вне дома|один|одна|хорошо|правильно|на ночь|после|перед|когда|за|по|это|его|её|ее|их)"
    r"(?!\w)",
    re.I,
)


_WHEN = re.compile(
    r"\s+(?:по (?:утрам|вечерам|выходным|будням)|каждое утро|каждый (?:день|вечер)|утром|вечером"
    r"|днём|днем|in the (?:morning|evening)s?|at (?:night|work|home))$",
    re.I,
)


def clean(kind: str, value: str) -> list[tuple[str, str]]:
    """(attribute, value) pairs from what a habit rule caught, or none for an errand."""
    if kind in ("eats", "drinks"):
        value = _WHEN.sub("", value)  # "кофе по утрам"
        again = re.search(r"\s+(?:again|снова|опять)$", value, re.I)
        value = value[: again.start()] if again else value
        if _NOT_FOOD.match(value) or _NOT_ORDERS_RU.match(value):
            return []
        if kind == "drinks" and not again:  # "I drink my coffee black": a habit
            return [
                (
                    "drinks",
                    re.sub(r"^(?:the|a|an|my|our|мой|мою|свой|свою)\s+", "", value, flags=re.I),
                )
            ]
        return [("eats", value)]  # "I drink coffee again": an avoidance ended
    if _NOT_ORDERS_EN.match(value) or _NOT_ORDERS_RU.match(value):
        return []
    return [(kind, re.sub(r"^(?:the|a|an)\s+", "", value, flags=re.I))]
