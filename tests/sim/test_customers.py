"""The script: reproducible from its seed, and worded so that Kuzya's own fact rules read
every preference a customer states (the waiter learns only what the rules find)."""

from __future__ import annotations

import random

import pytest

from kuzya.facts import rules
from kuzya.sim import customers
from kuzya.sim.menu import ASPECTS, DIETS, Order, ingredients_named, option_named, suits


@pytest.mark.parametrize("aspect", list(ASPECTS))
def test_every_wording_of_every_option_is_read_by_the_rules(aspect: str) -> None:
    base = Order("miso ramen", "mild spice", "regular noodles", "extra nori")
    for value in ASPECTS[aspect]:
        order = Order(**{**{a: base.aspect(a) for a in ASPECTS}, aspect: value})
        for changed in ((), (aspect,)):
            for seed in range(6):  # every template is drawn
                said = customers.order_lines(random.Random(seed), order, [aspect], changed)
                found = [c.value for c in rules.claims(said, "mika")]
                assert [option_named(aspect, v) for v in found] == [value], said


def test_allergies_and_diets_are_read_by_the_rules() -> None:
    said = customers.allergy_line(frozenset({"peanut", "sesame", "egg"}))
    found = {i for c in rules.claims(said, "mika") for i in ingredients_named(c.value)}
    assert found == {"peanut", "sesame", "egg"}
    for diet in DIETS:
        assert [(c.attribute, c.value) for c in rules.claims(f"I'm {diet}.", "mika")] == [
            ("diet", diet)
        ]


def test_the_same_seed_gives_the_same_script_and_another_seed_another() -> None:
    one, again = customers.script(4, 30, 20), customers.script(4, 30, 20)
    assert one == again
    assert one != customers.script(5, 30, 20)


@pytest.mark.parametrize("seed", range(1, 21))
def test_a_script_has_regulars_groups_changes_secrets_and_safe_orders(seed: int) -> None:
    played = customers.script(seed, 60, 50)
    plans = [p for v in played.visits for p in v.plans]
    assert any(len(v.party) > 1 for v in played.visits)
    assert sum(not p.first for p in plans) > 300
    assert any(p.changed for p in plans) and any(p.confides for p in plans)
    for p in plans:  # what a customer wants never holds their allergen or breaks their diet
        allergies = played.customers[p.customer].allergies
        assert suits(p.order.ingredients(), allergies, p.diet)
    secrets = [c.secret.marker for c in played.customers.values() if c.secret]
    assert len(secrets) == len(set(secrets))  # one customer's, or its telling is no secret
