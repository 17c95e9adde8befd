"""Contract cases for what sleep asks of a store before it writes: its clock, the newest
message's time, and how many associations pruning would drop."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from kuzya.model import Mention
from tests.store.test_contract import NS, OTHER_NS, T0, new


def test_the_sleep_clock_starts_unset_and_moves_forward_only(store):
    assert store.sleep_clock(NS) is None
    store.set_sleep_clock(NS, T0 + timedelta(days=2))
    store.set_sleep_clock(NS, T0)  # earlier: ignored
    assert store.sleep_clock(NS) == T0 + timedelta(days=2)
    assert store.sleep_clock(OTHER_NS) is None
    store.set_sleep_clock(NS, T0 + timedelta(days=3, microseconds=500))
    assert store.sleep_clock(NS) == T0 + timedelta(days=3, microseconds=500)


def test_last_said_at_is_the_newest_message_of_the_namespace(store, store_embedder):
    assert store.last_said_at(NS) is None
    times = [T0 + timedelta(days=5), T0, T0 + timedelta(days=1)]
    store.add_episodes(NS, [new(store_embedder, f"turn {i}", time=t) for i, t in enumerate(times)])
    store.add_episodes(OTHER_NS, [new(store_embedder, "later", time=T0 + timedelta(days=9))])
    assert store.last_said_at(NS) == T0 + timedelta(days=5)


def test_faded_counts_what_prune_drops_without_dropping_it(store, store_embedder):
    names = tuple(Mention(n, n.lower()) for n in ("Ana", "Bob", "Carla"))
    store.add_episodes(NS, [replace(new(store_embedder, "Ana, Bob and Carla."), mentions=names)])
    assert store.faded(NS, T0, 0.05) == 0
    far = T0 + timedelta(days=3650)
    assert store.faded(NS, far, 0.05) == 3
    assert store.faded(NS, far, 0.05) == 3  # counting changed nothing
    assert store.faded(OTHER_NS, far, 0.05) == 0
    assert store.prune(NS, far, 0.05) == 3
    assert store.faded(NS, far, 0.05) == 0
