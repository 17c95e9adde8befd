"""Facts as a view: folded from the claims of the messages the viewers may see. Repeats
strengthen, contradictions close validity, negations end a fact, statements that arrive
late land in the past, recording twice changes nothing, and a statement changes a fact
only for those who may see it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kuzya.errors import NotFound
from kuzya.facts.claims import Found, record, value_key
from kuzya.facts.schema import Claim
from kuzya.memory import Memory
from kuzya.model import Episode

T1 = datetime(2026, 3, 1, 9, tzinfo=UTC)
T2 = datetime(2026, 3, 10, 9, tzinfo=UTC)
T3 = datetime(2026, 4, 1, 9, tzinfo=UTC)


def said(
    memory: Memory, text: str, when: datetime, participants: tuple[str, ...] = ("ana",)
) -> Episode:
    return memory.remember(text, speaker="ana", participants=list(participants), time=when)


def claim(memory: Memory, episode: Episode, attribute: str, value: str, **kw: bool) -> int:
    found = Found(episode, Claim("ana", attribute, value, **kw), "rules")
    return record(memory.store, memory.namespace, memory.embedder, [found])


def test_value_key_ignores_case_and_punctuation() -> None:
    assert value_key("Lisbon.") == value_key("lisbon")
    assert value_key("the cello") == value_key("Cello")
    assert value_key("Lisbon") != value_key("Porto")


def test_repeat_strengthens_one_fact(hash_memory: Memory) -> None:
    first = said(hash_memory, "I live in Lisbon", T1)
    second = said(hash_memory, "Still living in Lisbon", T2)
    claim(hash_memory, first, "lives_in", "Lisbon")
    claim(hash_memory, second, "lives_in", "lisbon")
    (fact,) = hash_memory.facts(subject="ana")
    assert fact.strength == 2
    assert fact.sources == (first.id, second.id)
    assert fact.valid_from == T1 and fact.current
    events = [event for event, _, _ in hash_memory.fact_history(fact.id)]
    assert events == ["ADD", "STRENGTHEN"]


def test_contradiction_closes_the_old_value(hash_memory: Memory) -> None:
    old = said(hash_memory, "I live in Lisbon", T1)
    new = said(hash_memory, "We moved to Austin", T2)
    claim(hash_memory, old, "lives_in", "Lisbon")
    claim(hash_memory, new, "lives_in", "Austin")
    (current,) = hash_memory.facts(subject="ana")
    assert current.value == "Austin" and current.valid_from == T2
    past = [f for f in hash_memory.facts(subject="ana", include_past=True) if not f.current]
    assert [(f.value, f.valid_to, f.ended_by) for f in past] == [("Lisbon", T2, new.id)]
    events = [event for event, _, _ in hash_memory.fact_history(past[0].id)]
    assert events == ["ADD", "CLOSE"]


def test_going_back_opens_a_new_interval(hash_memory: Memory) -> None:
    claim(hash_memory, said(hash_memory, "I live in Lisbon", T1), "lives_in", "Lisbon")
    claim(hash_memory, said(hash_memory, "We moved to Porto", T2), "lives_in", "Porto")
    claim(hash_memory, said(hash_memory, "Back in Lisbon!", T3), "lives_in", "Lisbon")
    spans = [(f.value, f.valid_from, f.valid_to) for f in hash_memory.facts(include_past=True)]
    assert sorted(spans, key=lambda s: s[1]) == [
        ("Lisbon", T1, T2),
        ("Porto", T2, T3),
        ("Lisbon", T3, None),
    ]


def test_many_valued_attributes_accumulate(hash_memory: Memory) -> None:
    episode = said(hash_memory, "I love jazz and sushi", T1)
    claim(hash_memory, episode, "likes", "jazz")
    claim(hash_memory, episode, "likes", "sushi")
    assert sorted(f.value for f in hash_memory.facts(subject="ana")) == ["jazz", "sushi"]


def test_negation_ends_the_matching_fact_only(hash_memory: Memory) -> None:
    first = said(hash_memory, "I love jazz and sushi", T1)
    later = said(hash_memory, "I don't like sushi anymore", T2)
    claim(hash_memory, first, "likes", "jazz")
    claim(hash_memory, first, "likes", "sushi")
    claim(hash_memory, later, "likes", "sushi", negated=True)
    assert [f.value for f in hash_memory.facts(subject="ana")] == ["jazz"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("We split up", "partner"), ("I left my husband", "husband"), ("Я развелась с мужем", "муж")],
)
def test_a_partner_left_unnamed_ends_whoever_it_was(
    hash_memory: Memory, text: str, value: str
) -> None:
    claim(hash_memory, said(hash_memory, "My husband is Tom", T1), "spouse", "Tom")
    claim(hash_memory, said(hash_memory, "I love Tom's cooking", T1), "likes", "cooking")
    claim(hash_memory, said(hash_memory, text, T2), "spouse", value, negated=True)
    assert [(f.attribute, f.value) for f in hash_memory.facts(subject="ana")] == [
        ("likes", "cooking")
    ]
    (ended,) = [f for f in hash_memory.facts(include_past=True) if f.attribute == "spouse"]
    assert ended.value == "Tom" and ended.valid_to == T2


def test_an_unnamed_end_ends_only_what_names_no_one(hash_memory: Memory) -> None:
    claim(hash_memory, said(hash_memory, "I live in Lisbon", T1), "lives_in", "Lisbon")
    claim(hash_memory, said(hash_memory, "Not in Porto", T2), "lives_in", "Porto", negated=True)
    claim(hash_memory, said(hash_memory, "Sam and I", T2), "spouse", "Sam", negated=True)
    assert [f.value for f in hash_memory.facts(subject="ana")] == ["Lisbon"]


def test_liking_what_was_disliked_closes_the_dislike(hash_memory: Memory) -> None:
    claim(hash_memory, said(hash_memory, "I hate olives", T1), "dislikes", "olives")
    claim(hash_memory, said(hash_memory, "I love olives now", T2), "likes", "olives")
    assert [(f.attribute, f.value) for f in hash_memory.facts(subject="ana")] == [
        ("likes", "olives")
    ]


def test_an_older_statement_arriving_late_is_recorded_as_past(hash_memory: Memory) -> None:
    new = said(hash_memory, "I live in Austin", T2)
    old = said(hash_memory, "I live in Lisbon", T1)  # imported after, said before
    claim(hash_memory, new, "lives_in", "Austin")
    claim(hash_memory, old, "lives_in", "Lisbon")
    assert [f.value for f in hash_memory.facts(subject="ana")] == ["Austin"]
    lisbon = [f for f in hash_memory.facts(subject="ana", include_past=True) if f.value == "Lisbon"]
    assert lisbon[0].valid_from == T1 and lisbon[0].valid_to == T2


def test_recording_twice_changes_nothing(hash_memory: Memory) -> None:
    old = said(hash_memory, "I live in Lisbon", T1)
    new = said(hash_memory, "We moved to Austin", T2)
    assert claim(hash_memory, old, "lives_in", "Lisbon") == 1
    assert claim(hash_memory, new, "lives_in", "Austin") == 1
    before = hash_memory.facts(subject="ana", include_past=True)
    assert claim(hash_memory, old, "lives_in", "Lisbon") == 0
    assert claim(hash_memory, new, "lives_in", "Austin") == 0
    assert hash_memory.facts(subject="ana", include_past=True) == before


def test_one_fact_said_before_two_audiences_is_seen_by_each(hash_memory: Memory) -> None:
    private = said(hash_memory, "I live in Lisbon", T1, ("ana",))
    group = said(hash_memory, "I live in Lisbon", T2, ("ana", "bo"))
    claim(hash_memory, private, "lives_in", "Lisbon")
    claim(hash_memory, group, "lives_in", "Lisbon")
    (mine,) = hash_memory.facts(subject="ana", participants=["ana"])
    assert mine.strength == 2 and mine.audience == frozenset({"ana"})
    (ours,) = hash_memory.facts(subject="ana", participants=["ana", "bo"])
    assert ours.strength == 1 and ours.sources == (group.id,) and ours.valid_from == T2
    assert ours.audience == frozenset({"ana", "bo"})
    assert hash_memory.facts(participants=["cy"]) == []


def test_a_new_value_said_privately_changes_nothing_for_the_group(hash_memory: Memory) -> None:
    group = said(hash_memory, "I live in Lisbon", T1, ("ana", "bo"))
    private = said(hash_memory, "I moved to Austin, don't tell bo", T2, ("ana",))
    claim(hash_memory, group, "lives_in", "Lisbon")
    claim(hash_memory, private, "lives_in", "Austin")
    (seen_by_bo,) = hash_memory.facts(participants=["ana", "bo"], include_past=True)
    assert seen_by_bo.value == "Lisbon" and seen_by_bo.current
    assert hash_memory.fact_history(seen_by_bo.id, participants=["bo"]) == [
        ("ADD", f"said in memory {group.id} (01 March 2026)", seen_by_bo.recorded_at)
    ]
    assert [f.value for f in hash_memory.facts(participants=["ana"])] == ["Austin"]
    assert hash_memory.profile("ana", participants=["ana", "bo"]).facts[0].value == "Lisbon"


def test_a_private_negation_does_not_end_the_groups_fact(hash_memory: Memory) -> None:
    group = said(hash_memory, "I work at Google", T1, ("ana", "bo"))
    private = said(hash_memory, "I don't work at Google anymore", T2, ("ana",))
    claim(hash_memory, group, "works_at", "Google")
    claim(hash_memory, private, "works_at", "Google", negated=True)
    assert [f.current for f in hash_memory.facts(participants=["bo"], include_past=True)] == [True]
    assert hash_memory.facts(participants=["ana"]) == []


def test_unknown_attribute_and_empty_value_are_ignored(hash_memory: Memory) -> None:
    episode = said(hash_memory, "whatever", T1)
    found = [
        Found(episode, Claim("ana", "Favourite Planet", "Mars"), "llm:x"),
        Found(episode, Claim("ana", "likes", " ... "), "llm:x"),
    ]
    assert record(hash_memory.store, hash_memory.namespace, hash_memory.embedder, found) == 0
    assert hash_memory.facts() == []


def test_fact_history_of_unknown_id_is_not_found(hash_memory: Memory) -> None:
    with pytest.raises(NotFound):
        hash_memory.fact_history(12345)


def test_deleting_the_only_source_deletes_the_fact_and_keeps_an_event(hash_memory: Memory) -> None:
    episode = said(hash_memory, "I am allergic to peanuts", T1)
    claim(hash_memory, episode, "allergy", "peanuts")
    (fact,) = hash_memory.facts()
    hash_memory.delete(episode.id)
    assert hash_memory.facts(include_past=True) == []
    ((event, detail, _),) = hash_memory.fact_history(fact.id)
    assert event == "FORGET" and "peanut" not in detail


def test_deleting_one_source_weakens_the_fact(hash_memory: Memory) -> None:
    first = said(hash_memory, "I live in Lisbon", T1)
    second = said(hash_memory, "Lisbon is home", T2)
    claim(hash_memory, first, "lives_in", "Lisbon")
    claim(hash_memory, second, "lives_in", "Lisbon")
    hash_memory.delete(first.id)
    (fact,) = hash_memory.facts()
    assert fact.sources == (second.id,) and fact.valid_from == T2


def test_fact_search_follows_the_view(hash_memory: Memory) -> None:
    a = said(hash_memory, "I am allergic to peanuts", T1, ("ana",))
    b = said(hash_memory, "I am allergic to shellfish", T1, ("ana", "bo"))
    claim(hash_memory, a, "allergy", "peanuts")
    claim(hash_memory, b, "allergy", "shellfish")
    vector = hash_memory.embedder.embed(["ana is allergic to peanuts"])[0]
    mine = hash_memory.views.view(["ana"]).search(vector, 10)
    assert [f.value for f, _ in mine] == ["peanuts", "shellfish"]
    ours = hash_memory.views.view(["bo", "ana"]).search(vector, 10)
    assert [f.value for f, _ in ours] == ["shellfish"]
    assert hash_memory.views.view(["cy"]).search(vector, 10) == []


def test_repetition_and_always_raise_confidence(hash_memory: Memory) -> None:
    orders = [
        said(hash_memory, "Spicy miso ramen with an extra egg, please", T1 + timedelta(days=d))
        for d in range(15)
    ]
    for episode in orders:
        claim(hash_memory, episode, "usual_order", "spicy miso ramen with an extra egg")
    once = said(hash_memory, "My usual is a margherita", T2)
    claim(hash_memory, once, "usual_order", "margherita")
    always = said(hash_memory, "I always get the pad thai", T2)
    claim(hash_memory, always, "usual_order", "pad thai", emphatic=True)
    facts = {f.value: f for f in hash_memory.facts(subject="ana")}
    ramen, flat_white, matcha = (
        facts["spicy miso ramen with an extra egg"],
        facts["margherita"],
        facts["pad thai"],
    )
    assert (ramen.strength, flat_white.strength, matcha.strength) == (15, 1, 1)
    assert flat_white.confidence == 0.5 < matcha.confidence < ramen.confidence
    assert matcha.confidence == pytest.approx(2 / 3, abs=1e-3)
    assert ramen.confidence == pytest.approx(15 / 16, abs=1e-3)
    profile = [f.value for f in hash_memory.profile("ana").facts]
    assert profile[0] == "spicy miso ramen with an extra egg"  # the most confident first


def test_a_switched_drink_replaces_the_usual_one_and_food_orders_add_up(
    hash_memory: Memory,
) -> None:
    """Rules sleep over real messages: one usual drink at a time, any number of dishes."""
    for text, day in [
        ("I drink my coffee black, always.", 0),
        ("I always order the udon with tempura.", 1),
        ("Lately I've switched to oat flat whites ☕", 9),
        ("I always get the pad thai.", 10),
    ]:
        hash_memory.remember(text, speaker="mia", time=T1 + timedelta(days=day))
    hash_memory.sleep(now=T2 + timedelta(days=1))
    current = {(f.attribute, f.value) for f in hash_memory.profile("mia").facts}
    assert ("usual_drink", "oat flat whites") in current
    assert ("usual_drink", "coffee black") not in current
    assert {v for a, v in current if a == "usual_order"} == {"udon with tempura", "pad thai"}


def test_a_plan_whose_dates_have_passed_leaves_the_profile(hash_memory: Memory) -> None:
    episode = said(hash_memory, "I'm flying to Oslo next week", T1)
    claim(hash_memory, episode, "plan", "fly to Oslo next week")
    during = hash_memory.profile("ana", now=T1 + timedelta(days=3))
    assert [f.value for f in during.facts] == ["fly to Oslo next week"]
    assert hash_memory.profile("ana", now=T3).facts == ()
    assert hash_memory.profile("ana", now=T1 + timedelta(days=7, hours=14)).facts
    (fact,) = hash_memory.facts(subject="ana")  # still what was said, and when
    assert fact.current and fact.value == "fly to Oslo next week"


def test_a_plan_without_a_date_and_other_facts_never_pass(hash_memory: Memory) -> None:
    episode = said(hash_memory, "I plan to learn Greek. I live in Lisbon", T1)
    claim(hash_memory, episode, "plan", "learn Greek")
    claim(hash_memory, episode, "lives_in", "Lisbon")
    later = datetime(2030, 1, 1, tzinfo=UTC)
    assert {f.value for f in hash_memory.profile("ana", now=later).facts} == {
        "learn Greek",
        "Lisbon",
    }
