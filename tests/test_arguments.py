"""Every public argument of Memory and RecallSettings is checked: a wrong type, a number out
of range (NaN and infinity included) or an unknown name is one line of InvalidInput, never
a TypeError, ValueError, KeyError or AttributeError from inside, and nothing is written."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from kuzya import InvalidInput, Memory
from kuzya.recall.pipeline import RecallSettings

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)
NAN, INF = math.nan, math.inf


@pytest.fixture
def seeded(memory: Memory) -> Memory:
    memory.remember("I live in Lisbon with my brother Leo", speaker="ana", time=T0)
    return memory


def refused(memory: Memory, call: Callable[[], Any], fragment: str = "") -> str:
    before = memory.stats()
    with pytest.raises(InvalidInput) as error:
        call()
    message = str(error.value)
    assert "\n" not in message
    assert fragment in message
    assert memory.stats() == before
    return message


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"dense_k": -1}, "dense_k"),
        ({"dense_k": "a"}, "dense_k"),
        ({"dense_k": 2.0}, "dense_k"),
        ({"dense_k": True}, "dense_k"),
        ({"text_k": 10**30}, "text_k"),
        ({"text_weight": NAN}, "text_weight"),
        ({"text_weight": INF}, "text_weight"),
        ({"recent_weight": -0.5}, "recent_weight"),
        ({"duplicate_cosine": 1.5}, "duplicate_cosine"),
        ({"item_share": "0.4"}, "item_share"),
        ({"unnamed_query": "yes"}, "unnamed_query"),
        ({"unnamed_query": 1}, "unnamed_query"),
    ],
)
def test_bad_recall_settings_are_refused(seeded, changes, fragment):
    refused(seeded, lambda: seeded.with_settings(**changes), fragment)
    with pytest.raises(InvalidInput, match=fragment):
        RecallSettings(**changes)


def test_unknown_recall_settings_are_refused_with_the_known_ones(seeded):
    """(RecallSettings(bogus=1) is a TypeError, as for any misspelt keyword argument;
    with_settings takes its names as data.)"""
    message = refused(seeded, lambda: seeded.with_settings(dense_k=5, bogus=1), "bogus")
    assert "dense_k" in message


def test_counts_of_zero_switch_recall_sources_off(seeded):
    counts = {name: 0 for name, kind in RecallSettings.__annotations__.items() if kind == "int"}
    quiet = seeded.with_settings(**counts)
    assert quiet.settings.dense_k == 0
    assert seeded.settings == RecallSettings()  # the original is unchanged
    quiet.recall("where does Leo live?", participants=["ana"], conversation="default")


def test_memory_refuses_what_is_not_a_port_or_settings(seeded):
    store, embedder = seeded.store, seeded.embedder
    for call, fragment in [
        (lambda: Memory(store, embedder, settings={"dense_k": 5}), "settings"),
        (lambda: Memory(store, 5), "embedder"),
        (lambda: Memory(store, embedder, llm="qwen"), "llm"),
        (lambda: Memory(store, embedder, ner=True), "ner"),
        (lambda: Memory(store, embedder, namespace="a\u202eb"), "U+202E"),
    ]:
        refused(seeded, call, fragment)


@pytest.mark.parametrize("below", [NAN, INF, -INF, -0.1, "0.05", None, True, 10**400], ids=str)
def test_bad_prune_thresholds_are_refused(seeded, below):
    refused(seeded, lambda: seeded.prune(below=below), "below")


def test_prune_accepts_its_range(seeded):
    assert seeded.prune(below=0) == 0
    assert seeded.prune(below=1) >= 0


@pytest.mark.parametrize("kind", ["bogus", "Day", "", 3, ["day"]])
def test_unknown_diary_kinds_are_refused(seeded, kind):
    message = refused(seeded, lambda: seeded.diary(participants=["ana"], kind=kind), "kind")
    assert "'conversation', 'day', 'period'" in message


def test_fact_and_forget_arguments_are_checked(seeded):
    for call, fragment in [
        (lambda: seeded.facts(include_past="yes"), "include_past"),
        (lambda: seeded.facts(include_past=None), "include_past"),
        (lambda: seeded.forget("ana", everything="no"), "everything"),
        (lambda: seeded.forget("ana", attribute=3), "attribute"),
        (lambda: seeded.forget("ana", attribute="Home Town"), "attribute"),
        (lambda: seeded.forget("ana", about=""), "about"),
        (lambda: seeded.forget("ana"), "everything=True"),
    ]:
        refused(seeded, call, fragment)


def test_entity_and_worker_arguments_are_checked(seeded):
    for call, fragment in [
        (lambda: seeded.merge_entities(min_cosine=NAN), "min_cosine"),
        (lambda: seeded.merge_entities(min_cosine="0.3"), "min_cosine"),
        (lambda: seeded.merge_entities(min_cosine=1.5), "min_cosine"),
        (lambda: seeded.split_entities(margin=-1), "margin"),
        (lambda: seeded.split_entities(margin=INF), "margin"),
        (lambda: seeded.start_worker(every=0), "every"),
        (lambda: seeded.start_worker(every=2.5), "every"),
        (lambda: seeded.start_worker(idle_seconds=NAN), "idle_seconds"),
        (lambda: seeded.start_worker(idle_seconds=0), "idle_seconds"),
        (lambda: seeded.reinforce(None, participants=["ana"]), "recall"),
        (lambda: seeded.reinforce([], participants=["ana"]), "recall"),
    ]:
        refused(seeded, call, fragment)
    assert seeded.worker is None


@pytest.mark.parametrize(
    "messages",
    [None, 5, "I live in Lisbon", b"bytes", {"text": "hi", "speaker": "ana"}],
    ids=["None", "int", "str", "bytes", "one-dict"],
)
def test_remember_many_wants_a_list(seeded, messages):
    refused(seeded, lambda: seeded.remember_many(messages), "messages")


def test_a_bad_source_in_a_later_batch_stores_nothing(seeded):
    """The sources of every message are checked before the first batch is committed."""
    private = seeded.remember("My PIN is 4821", speaker="bob", participants=["bob"], time=T0)
    batch: list[dict[str, Any]] = [
        {"text": f"line {i}", "speaker": "ana", "time": T0} for i in range(300)
    ]
    batch[280]["derived_from"] = [private.id]  # Ana may not see it
    refused(seeded, lambda: seeded.remember_many(batch), "derived_from")


@pytest.mark.parametrize("huge", [10**5000, -(10**5000)], ids=["10**5000", "-10**5000"])
def test_integers_too_long_to_print_are_refused_cleanly(seeded, huge):
    for call in (
        lambda: seeded.get(huge),
        lambda: seeded.delete(huge),
        lambda: seeded.recall("Lisbon", participants=["ana"], limit=huge),
        lambda: seeded.get_all(offset=huge),
        lambda: seeded.with_settings(dense_k=huge),
        lambda: seeded.remember("a reply", speaker="ana", derived_from=[huge]),
    ):
        assert "<int>" in refused(seeded, call)
