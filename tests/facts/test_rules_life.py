"""Changes in a life by rules, English and Russian: `kuzya.facts.rules_life` with the
grammars' own rules.

A case is (text, expected claims): (attribute, value, negated) about the speaker, or
(subject, attribute, value, negated) about someone they name; exactly these are found.
Values are compared case-insensitively; Russian ones in the nominative.
"""

from __future__ import annotations

import pytest
from tests.facts.claim_cases import SPEAKER, Expected, cases, found, quads

from kuzya.facts.rules import claims

MOVES = [
    ("ru-teper-ya-v", "Всё, теперь я в Томске", [("lives_in", "Томск", False)]),
    ("ru-ya-teper-v", "Я теперь в Казани насовсем", [("lives_in", "Казань", False)]),
    ("en-now-in", "I'm now in Seattle", [("lives_in", "Seattle", False)]),
    ("en-in-now", "We're in Denver now!", [("lives_in", "Denver", False)]),
    ("en-in-now-lol", "I'm in Lyon now lol", [("lives_in", "Lyon", False)]),
    (
        "ru-teper-then-more",
        "Всё, теперь я в Томске, нашу лабораторию перевели в филиал.",
        [("lives_in", "Томск", False)],
    ),
]
JOBS = [
    (
        "sous-chef-at",
        "Now I'm sous chef at Harbor House",
        [("job", "sous chef", False), ("works_at", "Harbor House", False)],
    ),
    (
        "head-chef-the",
        "I'm the head chef at Nobu",
        [("job", "head chef", False), ("works_at", "Nobu", False)],
    ),
    ("sous-chef-now", "I'm sous chef now", [("job", "sous chef", False)]),
    ("catering", "I'm doing private catering on my own now", [("job", "private catering", False)]),
    (
        "photography-living",
        "I do wedding photography for a living",
        [("job", "wedding photography", False)],
    ),
    ("self-employed", "I'm self-employed", [("job", "self-employed", False)]),
    (
        "own-business",
        "I run my own catering business",
        [("job", "owner of a catering business", False)],
    ),
    (
        "bakery-called",
        "I started a bakery called Crumbs",
        [("job", "owner of a bakery", False), ("works_at", "Crumbs", False)],
    ),
    ("business-called", "My business is called Little Pot", [("works_at", "Little Pot", False)]),
    ("ru-kofeinya", "Моя кофейня называется «Зерно»", [("works_at", "Зерно", False)]),
    (
        "workplace-closed",
        "Harbor House closed 😢 so I'm doing private catering on my own",
        [("works_at", "Harbor House", True), ("job", "private catering", False)],
    ),
    ("workplace-shut", "Harbor House shut down last month", [("works_at", "Harbor House", True)]),
    ("workplace-for-good", "Nobu closed for good.", [("works_at", "Nobu", True)]),
    (
        "ru-zakrylas",
        "«Гавань» закрылась, так что я теперь сам по себе",
        [("works_at", "Гавань", True)],
    ),
]
PARTNERS = [
    ("and-i-broke-up", "Jake and I broke up", [("spouse", "Jake", True)]),
    ("me-and-split", "Me and Jake split up last month", [("spouse", "Jake", True)]),
    ("broke-up-with", "I broke up with Jake", [("spouse", "Jake", True)]),
    ("broke-up-boyfriend-named", "I broke up with my boyfriend Jake", [("spouse", "Jake", True)]),
    ("boyfriend-and-i", "My boyfriend and I broke up", [("spouse", "boyfriend", True)]),
    ("dumped-me", "Jake dumped me last week", [("spouse", "Jake", True)]),
    ("left-me-for", "My girlfriend left me for her boss", [("spouse", "girlfriend", True)]),
    ("left-husband", "I left my husband", [("spouse", "husband", True)]),
    ("we-split", "we split up", [("spouse", "partner", True)]),
    ("we-split-ago", "We split a few months ago", [("spouse", "partner", True)]),
    ("not-together", "We're not together anymore", [("spouse", "partner", True)]),
    ("single-again", "I'm single again", [("spouse", "partner", True)]),
    ("ru-my-s-rasstalis", "мы с Олей расстались", [("spouse", "Оля", True)]),
    ("ru-my-s-razoshlis", "Мы с Димой разошлись в прошлом году", [("spouse", "Дима", True)]),
    ("ru-razvelas-muzh", "я развелась с мужем", [("spouse", "муж", True)]),
    ("ru-my-rasstalis", "Мы расстались", [("spouse", "партнёр", True)]),
    ("ru-razvelas", "Знаешь, я развелась", [("spouse", "партнёр", True)]),
    ("ru-v-razvode", "Я в разводе уже два года", [("spouse", "партнёр", True)]),
    ("ru-ne-vmeste", "Мы с Олей больше не вместе", [("spouse", "Оля", True)]),
    ("ru-brosil-paren", "Меня бросил парень", [("spouse", "парень", True)]),
    ("ru-name-brosil", "Дима меня бросил", [("spouse", "Дима", True)]),
    ("ru-brosila-name", "Я бросила Диму", [("spouse", "Дима", True)]),
    (
        "seeing-someone-named",
        "I'm seeing someone new, her name is Priya",
        [("spouse", "Priya", False)],
    ),
    ("dating-now", "I'm dating Priya now", [("spouse", "Priya", False)]),
    ("seeing-for-months", "I've been seeing Priya for three months", [("spouse", "Priya", False)]),
    ("ru-vstrechayus", "я встречаюсь с Олей", [("spouse", "Оля", False)]),
    ("ru-vstrechaemsya", "Мы с Олей встречаемся уже год", [("spouse", "Оля", False)]),
    (
        "ru-poyavilsya-zovut",
        "У меня появился парень, его зовут Дима",
        [("spouse", "Дима", False)],
    ),
]
LIKES_ENDED = [
    ("got-boring", "Arctic Monkeys got boring", [("likes", "Arctic Monkeys", True)]),
    ("my-job-boring", "My job got so boring lately", [("likes", "my job", True)]),
    ("over", "I'm over sushi", [("likes", "sushi", True)]),
    ("so-done-with", "I'm so done with Zara", [("likes", "Zara", True)]),
    ("over-the", "I'm so over the Kardashians", [("likes", "the Kardashians", True)]),
    ("fell-out-of-love", "I've fallen out of love with jazz", [("likes", "jazz", True)]),
    ("ru-nadoel", "мне надоел Макдональдс", [("likes", "Макдональдс", True)]),
    (
        "boring-after-comma",
        "Honestly my favourite band now is Fontaines D.C., Arctic Monkeys got boring.",
        [("likes", "Fontaines D.C", False), ("likes", "Arctic Monkeys", True)],
    ),
    ("ru-nadoeli-first", "Суши мне надоели", [("likes", "суши", True)]),
    ("ru-razlyubila", "разлюбила суши", [("likes", "суши", True)]),
    ("ru-okhladela", "Я охладела к футболу", [("likes", "футбол", True)]),
]
SWITCHES = [
    ("switched-to", "Weird, lately I've switched to oat flat whites ☕",
     [("usual_drink", "oat flat whites", False)]),
    ("switched-from-to", "I've switched from lattes to flat whites",
     [("usual_drink", "lattes", True), ("usual_drink", "flat whites", False)]),
    ("ru-pereshla-na", "Перешла на овсяное молоко", [("usual_drink", "овсяное молоко", False)]),
    # money owed: named money makes a debt ("I owe you one" does not)
    ("owe", "I owe Sam 500 dollars for rent.", [("debt", "Sam 500 dollars for rent", False)]),
    ("owe-favour", "I owe you one!", []),
    ("borrowed", "I borrowed 200 bucks from Leo", [("debt", "200 bucks from Leo", False)]),
    ("ru-zanyal", "Я занял у Саши 50 тысяч", [("debt", "у Саши 50 тысяч", False)]),
    ("ru-dolzhna", "Я должна Оле пять тысяч", [("debt", "Оле пять тысяч", False)]),
    ("ru-dolzhen-idti", "Я должен идти", []),
    ("ru-pereshla-s-na", "Я перешла с кофе на чай",
     [("usual_drink", "кофе", True), ("usual_drink", "чай", False)]),
]  # fmt: skip
NOTHING = [
    "I'm in Paris now for a conference",
    "I'm in London for the weekend",
    "Now I'm in IT",
    "Теперь я в Яндексе",  # a workplace, not a place to live
    "Теперь я в Казани на неделю",
    "I'm doing yoga on my own now",
    "I'm doing fine on my own",
    "We run a book club",
    "Mom left me a voicemail",
    "I left my husband at home",
    "we split the bill",
    "I'm not single",
    "I didn't break up with Jake",
    "I haven't quit Google",
    "I'm dating Priya's brother",
    "Мы с Олей разошлись по домам",
    "Я встречаюсь с Олей в кафе",
    "Встречаюсь с Олей завтра",
    "I'm over the moon",
    "I'm over at Jake's place",
    "I'm done with the dishes",
    "I'm in a meeting now",
    "Теперь я в отпуске",
    "I'm over 30",
    "I'm tired of waiting",
    "It got boring",
    "My phone got old",
    "Я развелась бы с ним",
    "The meeting got boring",
    "Мне надоело, что ты опаздываешь",
    "Я бросил курить",
    "I switched to Linux",
    "My shop is closed today",
    "The Copper Kettle closed early today",
    "Google closed the deal",
    "Harbor House closes at nine",
    "When we got there, the party got boring",
    "I switched to a new team",
    "Do you think Jake and I broke up?",
]


@pytest.mark.parametrize(("text", "expected"), cases(MOVES + JOBS))
def test_moves_and_work(text: str, expected: list[Expected]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize(("text", "expected"), cases(PARTNERS))
def test_partners_left_and_found(text: str, expected: list[Expected]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize(("text", "expected"), cases(LIKES_ENDED + SWITCHES))
def test_likes_worn_off_and_drinks_switched(text: str, expected: list[Expected]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize("text", NOTHING)
def test_not_a_change(text: str) -> None:
    assert found(text) == set()


@pytest.mark.parametrize(
    ("text", "name", "ended"),
    [
        ("I left my wife Anna", "Anna", True),
        ("I broke up with my boyfriend Jake last week", "Jake", True),
        ("I left my wife Anna a note", "Anna", False),
        ("I left my husband Tom at home", "Tom", False),
    ],
)
def test_a_partner_named_as_they_are_left_is_not_also_a_new_one(
    text: str, name: str, ended: bool
) -> None:
    partners = {(c.value, c.negated) for c in claims(text, SPEAKER) if c.attribute == "spouse"}
    assert partners == {(name, ended)}


def test_a_relative_named_after_left_stays() -> None:
    assert ("family", "sister Anna", False) in {
        (c.attribute, c.value, c.negated) for c in claims("I left my sister Anna", SPEAKER)
    }
