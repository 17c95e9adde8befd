"""What a fact can say: the attribute catalogue (category, priority, one value or many),
open attributes beyond it, and `Claim`, a statement found in a message (facts are folded
from claims).

An open attribute is a short snake_case name a model chose ("usual_coffee",
"favourite_band"): its category comes from the words in its name ("coffee" is a
preference, "allergy" health), "other" when none is known; it ranks a little below the
catalogue's attributes of its category and accumulates values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache


@dataclass(frozen=True)
class Attribute:
    """One kind of fact. `single` attributes hold one value at a time: a new value closes
    the old one ("we moved to Austin"); the others accumulate (likes, allergies, pets)."""

    name: str
    category: str
    priority: int  # higher comes first in a profile: health above preferences above trivia
    single: bool
    template: str  # "{subject} lives in {value}"
    mine: str  # as the subject says it: "I live in {value}"


CATEGORY_PRIORITY = {
    "health": 100,
    "identity": 90,
    "family": 70,
    "work": 60,
    "home": 60,
    "plans": 50,
    "pets": 50,
    "habits": 45,
    "preferences": 40,
    "possessions": 30,
    "other": 10,
}


def _attr(name: str, category: str, single: bool, template: str, mine: str) -> Attribute:
    return Attribute(name, category, CATEGORY_PRIORITY[category], single, template, mine)


ATTRIBUTES: dict[str, Attribute] = {
    a.name: a
    for a in (
        _attr("name", "identity", True, "{subject}'s name is {value}", "My name is {value}"),
        _attr("age", "identity", True, "{subject} is {value} years old", "I am {value} years old"),
        _attr(
            "birthday",
            "identity",
            True,
            "{subject}'s birthday is {value}",
            "My birthday is {value}",
        ),
        _attr("from", "identity", True, "{subject} is from {value}", "I am from {value}"),
        _attr("speaks", "identity", False, "{subject} speaks {value}", "I speak {value}"),
        _attr(
            "allergy",
            "health",
            False,
            "{subject} is allergic to {value}",
            "I am allergic to {value}",
        ),
        _attr("diet", "health", True, "{subject} is {value}", "I am {value}"),
        _attr("condition", "health", False, "{subject} has {value}", "I have {value}"),
        _attr("avoids", "health", False, "{subject} does not eat {value}", "I don't eat {value}"),
        _attr("lives_in", "home", True, "{subject} lives in {value}", "I live in {value}"),
        _attr("address", "home", True, "{subject}'s address is {value}", "My address is {value}"),
        _attr("works_at", "work", True, "{subject} works at {value}", "I work at {value}"),
        _attr("job", "work", True, "{subject} works as {value}", "I work as {value}"),
        _attr("studies", "work", True, "{subject} studies {value}", "I study {value}"),
        _attr("spouse", "family", True, "{subject}'s partner is {value}", "My partner is {value}"),
        _attr(
            "family", "family", False, "{subject}'s {value}", "My {value}"
        ),  # value: "sister Priya"
        _attr(
            "pet", "pets", False, "{subject} has a {value}", "I have a {value}"
        ),  # value: "dog Rex"
        _attr("likes", "preferences", False, "{subject} likes {value}", "I like {value}"),
        _attr("dislikes", "preferences", False, "{subject} dislikes {value}", "I dislike {value}"),
        _attr(
            "usual_order",
            "habits",
            False,
            "{subject} usually orders {value}",
            "I usually order {value}",
        ),
        _attr(
            "usual_drink",
            "habits",
            True,
            "{subject} usually drinks {value}",
            "I usually drink {value}",
        ),
        _attr("debt", "possessions", False, "{subject}'s debt: {value}", "My debt: {value}"),
        _attr("owns", "possessions", False, "{subject} owns {value}", "I own {value}"),
        _attr("plan", "plans", False, "{subject} plans to {value}", "I plan to {value}"),
        _attr(
            "phone",
            "other",
            True,
            "{subject}'s phone number is {value}",
            "My phone number is {value}",
        ),
        _attr("email", "other", True, "{subject}'s email is {value}", "My email is {value}"),
    )
}

OPEN_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+){0,4}")  # a plain group: llama.cpp grammars
OPEN_NAME_LENGTH = 40
OPEN_PENALTY = 5  # an open attribute ranks below the catalogue's of its category
_CATEGORY_WORDS = {
    "health": "allergy allergic allergies diet dietary intolerance intolerant medical medication"
    " condition illness health avoids eat eats",
    "identity": "name age birthday born nationality religion pronouns gender language native",
    "family": "wife husband partner spouse child children kid kids son daughter mother father"
    " sister brother family parent parents relative friend",
    "work": "job work works role title occupation profession employer company career position"
    " team office business boss",
    "home": "home lives city country address neighbourhood neighborhood hometown",
    "plans": "plan plans trip travel travels goal goals upcoming vacation holiday intends",
    "pets": "pet pets dog cat",
    "habits": "usual usually habit habits routine order orders always daily",
    "preferences": "likes like favourite favorite prefers preference hobby hobbies enjoys loves"
    " dislikes hates coffee tea drink food music band",
    "possessions": "owns car phone device",
}
_CATEGORY_OF_WORD = {w: c for c, words in _CATEGORY_WORDS.items() for w in words.split()}


def is_open_name(name: str) -> bool:
    """A short snake_case name: what an open attribute may be called."""
    return len(name) <= OPEN_NAME_LENGTH and OPEN_NAME.fullmatch(name) is not None


@lru_cache(maxsize=4096)
def attribute(name: str) -> Attribute:
    """The catalogue's attribute, or an open one for a short snake_case name; raises
    KeyError for anything else."""
    if name in ATTRIBUTES:
        return ATTRIBUTES[name]
    if not is_open_name(name):
        raise KeyError(name)
    words = name.split("_")
    category = next((_CATEGORY_OF_WORD[w] for w in words if w in _CATEGORY_OF_WORD), "other")
    said = " ".join(words)
    return Attribute(
        name,
        category,
        CATEGORY_PRIORITY[category] - OPEN_PENALTY,
        False,
        f"{{subject}}'s {said}: {{value}}",
        f"My {said}: {{value}}",
    )


def known(name: str) -> bool:
    """Whether a claim may use this attribute: the catalogue's or an open name."""
    return name in ATTRIBUTES or is_open_name(name)


# Attributes that contradict each other's values: liking X is closed by disliking X.
OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}
# Values that name no one in particular: ended, they end whatever value is current ("we
# split up" ends the partner, whoever it is; so do "I left my husband", "я развелась с мужем").
UNNAMED = {
    "spouse": frozenset(
        """partner wife husband girlfriend boyfriend fiance fiancé fiancee fiancée spouse
        партнёр партнер партнёрша партнерша муж жена парень девушка супруг супруга жених
        невеста бойфренд""".split()
    )
}


# what one drinks: a usual order of one of these is the usual drink
DRINKS = re.compile(
    r"(?<!\w)(?:coffee|latte|flat white|cappuccino|espresso|americano|mocha|macchiato|cortado"
    r"|decaf|tea|matcha|chai|milk|oat|soy|almond|juice|smoothie|water|soda|cola|coke|beer|wine"
    r"|whisky|whiskey|vodka|gin|cider|kombucha|lemonade|cocoa|hot chocolate|кофе|латте|капучино"
    r"|эспрессо|американо|раф|флэт уайт|флет уайт|чай|ча[яю]|матч[аиуе]|молок\w*|овсян\w*"
    r"|соев\w*|миндальн\w*|сок\w*|смузи|вод[аыуе]|пив[оау]|вин[оау]|квас\w*|кефир\w*|какао"
    r"|лимонад\w*)(?:e?s)?(?!\w)",
    re.I,
)


@dataclass(frozen=True)
class Claim:
    """A fact as stated in one message, before reconciliation.

    `subject` is the participant id of the speaker for first-person statements ("I live
    in Lisbon" said by "ana" -> "ana"), otherwise the name used ("Priya"). `negated`
    marks a statement that ends a fact ("I no longer live in Lisbon", "I'm not allergic
    to nuts any more"). `value` is the value as said ("Lisbon", "sister Priya").
    `emphatic` marks a statement of a habit ("I always order ramen", "всегда беру"),
    which counts for more than a plain one when facts are folded.
    """

    subject: str
    attribute: str
    value: str
    negated: bool = False
    emphatic: bool = False

    def __post_init__(self) -> None:
        # one usual drink at a time: "I've switched to oat flat whites" replaces "coffee
        # black", while usual orders of food add up; whoever made the claim (rules, a model)
        if self.attribute == "usual_order" and DRINKS.search(self.value):
            object.__setattr__(self, "attribute", "usual_drink")

    def statement(self) -> str:
        text = attribute(self.attribute).template.format(subject=self.subject, value=self.value)
        return f"no longer: {text}" if self.negated else text

    def said_by_subject(self) -> str:
        """The fact as its subject would say it ("I live in Lisbon"): what their own
        questions ("where do I live?") are compared with."""
        return attribute(self.attribute).mine.format(value=self.value)


@dataclass(frozen=True)
class Forget:
    """A request to forget something about the speaker: an attribute ("forget my
    address"), any fact or memory mentioning `about` ("forget what I said about Tom"), both
    (one fact), neither (everything about them), or with `previous` (the object was only a
    pronoun: "forget that", "не запоминай это") the speaker's previous message.

    `said` is the request's message as it may be kept: what is to be forgotten replaced by
    "…" ("Please forget that …"); it is not part of the request's identity."""

    subject: str
    attribute: str | None
    about: str | None
    previous: bool = False
    said: str = field(default="", compare=False)
