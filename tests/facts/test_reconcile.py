"""Reconciliation over the store port: repeats strengthen, contradictions close validity,
negations end a fact, out-of-order statements land in the past, reruns change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kuzya.facts.reconcile import Found, reconcile, value_key
from kuzya.facts.schema import Claim
from kuzya.memory import Memory
from kuzya.model import Episode
from kuzya.store.base import Store
from kuzya.testing import HashEmbedder

T1 = datetime(2026, 3, 1, 9, tzinfo=UTC)
T2 = datetime(2026, 3, 10, 9, tzinfo=UTC)
T3 = datetime(2026, 4, 1, 9, tzinfo=UTC)


def said(
    memory: Memory, text: str, when: datetime, participants: tuple[str, ...] = ("ana",)
) -> Episode:
    return memory.remember(text, speaker="ana", participants=list(participants), time=when)


def apply(memory: Memory, *found: Found) -> dict[str, int]:
    return dict(reconcile(memory.store, memory.namespace, memory.embedder, list(found)))


def test_value_key_ignores_case_and_punctuation() -> None:
    assert value_key("Lisbon.") == value_key("lisbon")
    assert value_key("the cello") == value_key("Cello")
    assert value_key("Lisbon") != value_key("Porto")


def test_repeat_strengthens_one_fact(hash_memory: Memory) -> None:
    first = said(hash_memory, "I live in Lisbon", T1)
    second = said(hash_memory, "Still living in Lisbon", T2)
    assert apply(hash_memory, Found(first, Claim("ana", "lives_in", "Lisbon"), "rules")) == {
        "added": 1
    }
    assert apply(hash_memory, Found(second, Claim("ana", "lives_in", "lisbon"), "rules")) == {
        "strengthened": 1
    }
    (fact,) = hash_memory.facts(subject="ana")
    assert fact.strength == 2
    assert fact.sources == (first.id, second.id)
    assert fact.valid_from == T1 and fact.current


def test_contradiction_closes_the_old_value(hash_memory: Memory) -> None:
    old = said(hash_memory, "I live in Lisbon", T1)
    new = said(hash_memory, "We moved to Austin", T2)
    apply(hash_memory, Found(old, Claim("ana", "lives_in", "Lisbon"), "rules"))
    apply(hash_memory, Found(new, Claim("ana", "lives_in", "Austin"), "rules"))
    (current,) = hash_memory.facts(subject="ana")
    assert current.value == "Austin" and current.valid_from == T2
    past = [f for f in hash_memory.facts(subject="ana", include_past=True) if not f.current]
    assert [(f.value, f.valid_to) for f in past] == [("Lisbon", T2)]
    events = [event for event, _, _ in hash_memory.fact_history(past[0].id)]
    assert events == ["ADD", "CLOSE"]


def test_many_valued_attributes_accumulate(hash_memory: Memory) -> None:
    episode = said(hash_memory, "I love jazz and sushi", T1)
    apply(
        hash_memory,
        Found(episode, Claim("ana", "likes", "jazz"), "rules"),
        Found(episode, Claim("ana", "likes", "sushi"), "rules"),
    )
    assert sorted(f.value for f in hash_memory.facts(subject="ana")) == ["jazz", "sushi"]


def test_negation_ends_the_matching_fact_only(hash_memory: Memory) -> None:
    first = said(hash_memory, "I love jazz and sushi", T1)
    later = said(hash_memory, "I don't like sushi anymore", T2)
    apply(
        hash_memory,
        Found(first, Claim("ana", "likes", "jazz"), "rules"),
        Found(first, Claim("ana", "likes", "sushi"), "rules"),
    )
    assert apply(
        hash_memory, Found(later, Claim("ana", "likes", "sushi", negated=True), "rules")
    ) == {"closed": 1}
    assert [f.value for f in hash_memory.facts(subject="ana")] == ["jazz"]


def test_liking_what_was_disliked_closes_the_dislike(hash_memory: Memory) -> None:
    first = said(hash_memory, "I hate olives", T1)
    later = said(hash_memory, "Turns out I love olives now", T2)
    apply(hash_memory, Found(first, Claim("ana", "dislikes", "olives"), "rules"))
    apply(hash_memory, Found(later, Claim("ana", "likes", "olives"), "rules"))
    assert [(f.attribute, f.value) for f in hash_memory.facts(subject="ana")] == [
        ("likes", "olives")
    ]


def test_an_older_statement_arriving_late_is_recorded_as_past(hash_memory: Memory) -> None:
    new = said(hash_memory, "I live in Austin", T2)
    old = said(hash_memory, "I live in Lisbon", T1)  # imported after, said before
    apply(hash_memory, Found(new, Claim("ana", "lives_in", "Austin"), "rules"))
    assert apply(hash_memory, Found(old, Claim("ana", "lives_in", "Lisbon"), "rules")) == {
        "added as past": 1
    }
    assert [f.value for f in hash_memory.facts(subject="ana")] == ["Austin"]
    lisbon = [f for f in hash_memory.facts(subject="ana", include_past=True) if f.value == "Lisbon"]
    assert lisbon[0].valid_from == T1 and lisbon[0].valid_to == T2


def test_reconciling_twice_changes_nothing(hash_memory: Memory) -> None:
    old = said(hash_memory, "I live in Lisbon", T1)
    new = said(hash_memory, "We moved to Austin", T2)
    found = [
        Found(old, Claim("ana", "lives_in", "Lisbon"), "rules"),
        Found(new, Claim("ana", "lives_in", "Austin"), "rules"),
    ]
    apply(hash_memory, *found)
    before = hash_memory.facts(subject="ana", include_past=True)
    assert apply(hash_memory, *found) == {"seen": 2}
    assert hash_memory.facts(subject="ana", include_past=True) == before


def test_same_fact_before_two_audiences_is_two_facts(hash_memory: Memory) -> None:
    private = said(hash_memory, "I live in Lisbon", T1, ("ana",))
    group = said(hash_memory, "I live in Lisbon", T2, ("ana", "bo"))
    apply(
        hash_memory,
        Found(private, Claim("ana", "lives_in", "Lisbon"), "rules"),
        Found(group, Claim("ana", "lives_in", "Lisbon"), "rules"),
    )
    assert len(hash_memory.facts(subject="ana")) == 2
    seen_by_bo = hash_memory.facts(subject="ana", participants=["ana", "bo"])
    assert [f.audience for f in seen_by_bo] == [frozenset({"ana", "bo"})]
    assert [f.audience for f in hash_memory.facts(participants=["bo"])] == [
        frozenset({"ana", "bo"})
    ]
    assert hash_memory.facts(participants=["cy"]) == []


def test_a_new_value_said_privately_closes_the_group_fact(hash_memory: Memory) -> None:
    group = said(hash_memory, "I live in Lisbon", T1, ("ana", "bo"))
    private = said(hash_memory, "I moved to Austin", T2, ("ana",))
    apply(
        hash_memory,
        Found(group, Claim("ana", "lives_in", "Lisbon"), "rules"),
        Found(private, Claim("ana", "lives_in", "Austin"), "rules"),
    )
    # bo no longer sees Lisbon as current, and never sees Austin
    assert hash_memory.facts(participants=["ana", "bo"]) == []
    assert [f.value for f in hash_memory.facts(participants=["ana"])] == ["Austin"]


def test_unknown_attribute_and_empty_value_are_ignored(hash_memory: Memory) -> None:
    episode = said(hash_memory, "whatever", T1)
    assert (
        apply(
            hash_memory,
            Found(episode, Claim("ana", "favourite_planet", "Mars"), "llm:x"),
            Found(episode, Claim("ana", "likes", " ... "), "llm:x"),
        )
        == {}
    )
    assert hash_memory.facts() == []


def test_fact_history_of_unknown_id_is_not_found(hash_memory: Memory) -> None:
    from kuzya.errors import NotFound

    with pytest.raises(NotFound):
        hash_memory.fact_history(12345)


def test_fact_search_is_filtered_by_audience_in_the_store(store: Store) -> None:
    embedder = HashEmbedder()
    memory = Memory(store, embedder, namespace="n")
    a = said(memory, "I am allergic to peanuts", T1, ("ana",))
    b = said(memory, "I am allergic to peanuts", T1, ("ana", "bo"))
    apply(
        memory,
        Found(a, Claim("ana", "allergy", "peanuts"), "rules"),
        Found(b, Claim("ana", "allergy", "peanuts"), "rules"),
    )
    vector = embedder.embed(["ana is allergic to peanuts"])[0]
    assert len(store.fact_search("n", vector, ["ana"], 10)) == 2
    assert [f.audience for f, _ in store.fact_search("n", vector, ["bo", "ana"], 10)] == [
        frozenset({"ana", "bo"})
    ]
    assert len(store.fact_search("n", vector, ["bo"], 10)) == 1
    assert store.fact_search("n", vector, ["cy"], 10) == []
    assert store.fact_search("other", vector, ["ana"], 10) == []
