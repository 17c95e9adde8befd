"""Habits and diets by rules, English and Russian: `kuzya.facts.rules_habits`.

A case is (text, expected claims) as in `test_rules`: (attribute, value, negated), about the
speaker; the claims found must be exactly these. Errands, one-off orders and questions
give nothing.
"""

from __future__ import annotations

import pytest
from tests.facts.claim_cases import SPEAKER, cases, found, quads

from kuzya.facts.rules import claims

HABITS = [
    (
        "always-order",
        "I always order spicy miso ramen with an extra egg.",
        [("usual_order", "spicy miso ramen with an extra egg", False)],
    ),
    ("usually-get", "I usually get a flat white", [("usual_drink", "flat white", False)]),
    ("my-usual", "My usual is a double espresso.", [("usual_drink", "double espresso", False)]),
    ("go-to-order", "My go-to order is the pad thai", [("usual_order", "pad thai", False)]),
    ("every-time", "I order the margherita every time", [("usual_order", "margherita", False)]),
    (
        "lead-and-adverb",
        "Honestly, we almost always go for the tasting menu",
        [("usual_order", "tasting menu", False)],
    ),
    ("ru-obychno", "Обычно беру рамен с яйцом", [("usual_order", "рамен с яйцом", False)]),
    ("ru-vsegda", "Всегда заказываю пиццу с грибами", [("usual_order", "пицца с грибами", False)]),
    ("ru-ya-obychno", "Я обычно пью капучино", [("usual_drink", "капучино", False)]),
    ("ru-my-order", "Мой обычный заказ — острая пицца", [("usual_order", "острая пицца", False)]),
    ("ru-kazhdyi-raz", "Каждый раз беру большую пиццу", [("usual_order", "большая пицца", False)]),
    ("drink-black", "I drink my coffee black, always.", [("usual_drink", "coffee black", False)]),
    ("usually-drink", "I usually drink a flat white", [("usual_drink", "flat white", False)]),
    (
        "drink-with",
        "I drink coffee with milk and sugar every morning",
        [("usual_drink", "coffee with milk and sugar", False)],
    ),
    ("ru-teper-pyu", "теперь пью раф на овсяном", [("usual_drink", "раф на овсяном", False)]),
    ("ru-po-utram", "Я пью кофе по утрам", [("usual_drink", "кофе", False)]),
]
DIETS = [
    ("dont-eat", "I don't eat eggs", [("avoids", "eggs", False)]),
    (
        "dont-eat-list",
        "I don't eat meat or fish anymore",
        [("avoids", "meat", False), ("avoids", "fish", False)],
    ),
    ("never-drink", "I never drink alcohol", [("avoids", "alcohol", False)]),
    ("dont-eat-so", "I don't eat pork, so no chashu please", [("avoids", "pork", False)]),
    ("eats-again", "I eat meat again", [("avoids", "meat", True)]),
    ("vegan", "I'm vegan", [("diet", "vegan", False)]),
    ("cant-stand", "I can't stand cilantro", [("dislikes", "cilantro", False)]),
    ("ru-ne-em", "Не ем мясо", [("avoids", "мясо", False)]),
    ("ru-ya-ne-em", "Я не ем мясо уже два года", [("avoids", "мясо", False)]),
    ("ru-ne-pyu", "Я не пью молоко", [("avoids", "молоко", False)]),
    ("drink-again", "I drink coffee again", [("avoids", "coffee", True)]),
    (
        "dont-drink-list",
        "I don't drink coffee, tea or soda",
        [("avoids", "coffee", False), ("avoids", "tea", False), ("avoids", "soda", False)],
    ),
    ("ru-snova-pyu", "Снова пью кофе", [("avoids", "кофе", True)]),
    ("ru-vegan", "Я веганка", [("diet", "веганка", False)]),
    ("ru-terpet", "Терпеть не могу рыбу", [("dislikes", "рыба", False)]),
]
NOTHING = [
    "I always forget my keys",
    "I usually get up at 7",
    "I always get lost in this city",
    "I usually get the bus to work",
    "I always take my time",
    "I always have my phone with me",
    "I ordered pizza yesterday",
    "Do you always order pizza?",
    "What do you usually get?",
    "I don't eat after 8pm",
    "I don't eat out much",
    "If I were rich I would always order lobster",
    "She always orders the soup",
    "Всегда беру с собой зонт",
    "Обычно беру такси до работы",
    "Ты всегда заказываешь пиццу?",
    "Вчера заказала пиццу",
    "Я не ем после шести",
    "I drink too much",
    "I drink socially",
    "I drink a lot of water",
    "Я пью таблетки",
    "Пью за твоё здоровье",
]


@pytest.mark.parametrize(("text", "expected"), cases(HABITS))
def test_usual_orders(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize(("text", "expected"), cases(DIETS))
def test_diets_and_dislikes(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize("text", NOTHING)
def test_errands_questions_and_one_offs_give_nothing(text: str) -> None:
    assert found(text) == set()


def test_a_habit_said_with_always_is_emphatic() -> None:
    (always,) = claims("I always order the ramen", SPEAKER)
    (usual,) = claims("My usual is the ramen", SPEAKER)
    (ru,) = claims("Всегда беру рамен", SPEAKER)
    assert always.emphatic and ru.emphatic and not usual.emphatic


def test_a_drink_said_with_always_is_an_emphatic_habit_not_an_avoidance() -> None:
    (said,) = claims("I drink my coffee black, always.", SPEAKER)
    assert (said.attribute, said.negated, said.emphatic) == ("usual_drink", False, True)


def test_a_relative_who_does_not_eat_meat() -> None:
    assert {
        (c.subject, c.attribute, c.value) for c in claims("My wife Sofia doesn't eat meat", SPEAKER)
    } == {
        ("ana", "spouse", "Sofia"),
        ("Sofia", "avoids", "meat"),
    }
