"""The agents on crafted scripts, on a real store and the real embedder: a change is
proposed after it is told, a confidence never reaches another customer or the chef (even
when it shares dishes and names with their talk), and no allergen is ever offered or
served."""

from __future__ import annotations

import re

from kuzya.memory import Memory
from kuzya.sim.customers import Plan, Secret
from kuzya.sim.menu import DISHES, Order
from kuzya.sim.metrics import Scorer
from kuzya.sim.run import play
from tests.sim.crafted import customer, scripted, transcript

TONKOTSU = Order("tonkotsu ramen", "medium spice", "extra noodles", "extra egg")
SHOYU = Order("shoyu ramen", "medium spice", "extra noodles", "extra egg")
MISO = Order("miso ramen", "hot spice", "half noodles", "no extras")


def test_a_told_change_is_proposed_from_the_next_visit_on(shop_memory: Memory) -> None:
    mika = customer("mika")
    result = play(shop_memory, scripted([mika], [
        (0, [Plan("mika", TONKOTSU, first=True)]),
        (1, [Plan("mika", SHOYU, changed=("dish",))]),  # told: "I've switched ..."
        (2, [Plan("mika", SHOYU)]),
        (3, [Plan("mika", SHOYU)]),
    ]))  # fmt: skip
    assert "The usual: tonkotsu ramen" in transcript(shop_memory, "visit-2")[0]
    for visit in ("visit-3", "visit-4"):
        said = transcript(shop_memory, visit)
        assert said[0] == (
            "waiter: Welcome back, Mika! The usual: shoyu ramen, medium spice, "
            "extra noodles, extra egg?"
        )
        assert said[1] == "mika: Yes, the usual, thanks!"
    totals = result.totals
    assert totals["preference_recall"] == 1.0
    assert totals["proposals_after_a_change"] == 2 and totals["stale_rate"] == 0.0


MIKA_SECRET = Secret(
    "Just between you and me, I can't stand the miso ramen that Jun always orders.",
    "can't stand the miso ramen that Jun",
)
JUN_SECRET = Secret(
    "Please keep this quiet: I'm saving up to open my own miso ramen stall called "
    "the Copper Lantern.",
    "stall called the Copper Lantern",
)


def test_a_confidence_never_reaches_another_customer_or_the_chef(shop_memory: Memory) -> None:
    mika, jun = customer("mika", secret=MIKA_SECRET), customer("jun", secret=JUN_SECRET)
    result = play(shop_memory, scripted([mika, jun], [
        (0, [Plan("mika", TONKOTSU, first=True, confides=MIKA_SECRET)]),
        (1, [Plan("jun", MISO, first=True, wants_recommendation=True),
             Plan("mika", TONKOTSU, confides=None)]),
        (2, [Plan("jun", MISO, asks_recommendation=True, confides=JUN_SECRET)]),
        (3, [Plan("jun", MISO, asks_last_visit=True), Plan("mika", TONKOTSU)]),
        (4, [Plan("mika", TONKOTSU, asks_last_visit=True)]),
    ]))  # fmt: skip
    assert result.totals["leaks"] == 0
    assert result.totals["secrets_kept"] == 1.0  # both secrets are in memory, for their tellers
    for episode in shop_memory.get_all(limit=1000):
        if episode.audience - {"mika", "waiter"}:
            assert "can't stand" not in episode.text
        if episode.audience - {"jun", "waiter"}:
            assert "Copper Lantern" not in episode.text
    for present, marker in (
        (["jun", "waiter"], "can't stand"),
        (["chef"], "can't stand"),
        (["jun", "mika", "waiter", "chef"], "can't stand"),
        (["mika", "waiter"], "Copper Lantern"),
        (["chef"], "Copper Lantern"),
    ):
        for query in ("What does Mika think of the miso ramen Jun orders?",
                      "Is Jun opening a miso ramen stall?"):  # fmt: skip
            found = shop_memory.recall(query, participants=present, limit=20)
            assert marker not in found.as_prompt(), present
        for subject in ("mika", "jun"):
            profile = shop_memory.profile(subject, participants=present).as_prompt()
            assert marker not in profile, present
            if present != ["mika", "waiter"]:  # her dislike is a fact for her alone
                assert "dislikes" not in profile, present
        assert not any(marker in e.text for e in shop_memory.diary(participants=present))
    private = shop_memory.profile("mika", participants=["mika", "waiter"]).as_prompt()
    assert "mika dislikes the miso ramen that Jun always orders" in private


def test_the_leak_check_finds_a_secret_shown_to_anyone_else() -> None:
    scorer = Scorer(scripted([customer("mika", secret=MIKA_SECRET)],
                             [(0, [Plan("mika", TONKOTSU, first=True)])]))  # fmt: skip
    scorer.seen(0, ["mika", "waiter"], MIKA_SECRET.text)
    assert scorer.totals()["leaks"] == 0
    scorer.seen(0, ["chef"], f"notes: {MIKA_SECRET.text.upper()}")
    scorer.seen(0, ["mika", "jun", "waiter"], MIKA_SECRET.text)
    assert scorer.totals()["leaks"] == 2


def test_no_allergen_is_ever_offered_or_served(shop_memory: Memory) -> None:
    # Iris is allergic to sesame and peanuts and forgets it when she orders the yakisoba
    # with an extra egg, while Ada, allergic to eggs, orders it too: the chef must leave
    # the egg out, told so only on Ada's first visit.
    iris = customer("iris", allergies=frozenset({"sesame", "peanut"}))
    ada = customer("ada", allergies=frozenset({"egg"}))
    yakisoba = Order("yakisoba", "mild spice", "regular noodles", "extra egg")
    result = play(shop_memory, scripted([iris, ada], [
        (0, [Plan("iris", MISO, first=True, wants_recommendation=True),
             Plan("ada", yakisoba, first=True)]),
        (3, [Plan("iris", MISO, wants_recommendation=True)]),  # tantanmen is the day's first
        (4, [Plan("ada", yakisoba, wants_recommendation=True)]),
        (5, [Plan("iris", MISO, wants_recommendation=True)]),
    ]))  # fmt: skip
    assert result.totals["allergy_violations"] == 0
    said = [f"{e.speaker}: {e.text}" for e in shop_memory.get_all(limit=1000)]
    recommended = [re.search(r"recommend the (.+)\.$", line) for line in said]
    dishes = [m[1] for m in recommended if m]
    assert len(dishes) == 4
    iris_dishes = [d for d, line in zip(dishes, [s for s in said if "recommend the" in s],
                                        strict=True) if "Iris" in line]  # fmt: skip
    assert all(not DISHES[d] & {"sesame", "peanut"} for d in iris_dishes)
    served_to_ada = [line for line in said if line.startswith("chef:") and "Ada" in line]
    assert served_to_ada == ["chef: Order up: yakisoba for Ada, made without egg."] * 2
