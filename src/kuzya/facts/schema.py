"""What a fact can say: the attribute catalogue (category, priority, one value or many)
and `Claim`, a statement found in a message (facts are folded from claims)."""

from __future__ import annotations

from dataclasses import dataclass, field


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

# Attributes that contradict each other's values: liking X is closed by disliking X.
OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}


@dataclass(frozen=True)
class Claim:
    """A fact as stated in one message, before reconciliation.

    `subject` is the participant id of the speaker for first-person statements ("I live
    in Lisbon" said by "ana" -> "ana"), otherwise the name used ("Priya"). `negated`
    marks a statement that ends a fact ("I no longer live in Lisbon", "I'm not allergic
    to nuts any more"). `value` is the value as said ("Lisbon", "sister Priya").
    """

    subject: str
    attribute: str
    value: str
    negated: bool = False

    def statement(self) -> str:
        text = ATTRIBUTES[self.attribute].template.format(subject=self.subject, value=self.value)
        return f"no longer: {text}" if self.negated else text

    def said_by_subject(self) -> str:
        """The fact as its subject would say it ("I live in Lisbon"): what their own
        questions ("where do I live?") are compared with."""
        return ATTRIBUTES[self.attribute].mine.format(value=self.value)


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
