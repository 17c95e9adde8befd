"""The association maths every store shares (`kuzya.entities.graph`), without a store."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kuzya.entities.graph import (
    NEIGHBOURS,
    added,
    decayed,
    episode_scores,
    linked_pairs,
    nearest_sense,
    ordered,
    seeded,
    spread,
)

DAY = 86400.0
HALF_LIFE = 30 * DAY
moments = st.floats(min_value=0, max_value=400 * DAY, allow_nan=False)


@given(st.lists(st.tuples(st.floats(0.1, 5.0), moments), min_size=1, max_size=6))
def test_additions_commute_and_take_back_exactly(contributions: list[tuple[float, float]]) -> None:
    def total(order: list[tuple[float, float]]) -> tuple[float, float] | None:
        state = None
        for amount, at in order:
            state = added(state, amount, at, HALF_LIFE)
        return state

    forward, backward = total(contributions), total(contributions[::-1])
    assert forward is not None and backward is not None
    assert forward[1] == backward[1] == max(at for _, at in contributions)
    assert math.isclose(forward[0], backward[0], rel_tol=1e-9)
    taken_back = forward
    for amount, at in contributions[1:]:
        taken_back = added(taken_back, -amount, at, HALF_LIFE)
        assert taken_back is not None
    first_amount, first_at = contributions[0]
    expected = decayed(first_amount, first_at, forward[1], HALF_LIFE)
    assert math.isclose(taken_back[0], expected, rel_tol=1e-6, abs_tol=1e-9)


def test_taking_back_everything_leaves_nothing() -> None:
    state = added(None, 1.0, 10 * DAY, HALF_LIFE)
    assert added(state, -1.0, 10 * DAY, HALF_LIFE) is None
    assert added(None, -1.0, 0.0, HALF_LIFE) is None  # nothing to take back from


def test_a_weight_halves_in_one_half_life() -> None:
    assert decayed(2.0, 0.0, HALF_LIFE, HALF_LIFE) == pytest.approx(1.0)
    assert decayed(2.0, 5 * DAY, 0.0, HALF_LIFE) == 2.0  # never grows backwards in time


def test_pairs_link_near_names_only_and_are_stored_smaller_first() -> None:
    ids = list(range(10))
    pairs = linked_pairs(ids)
    assert (0, NEIGHBOURS) in pairs and (0, NEIGHBOURS + 1) not in pairs
    assert len(pairs) == sum(min(NEIGHBOURS, len(ids) - 1 - i) for i in range(len(ids)))
    assert ordered([(5, 2), (3, 3), (1, 4)]) == [(2, 5), (1, 4)]


def test_a_hub_hands_each_neighbour_less_than_a_specialist() -> None:
    hub_edges = [(1, n, 1.0, 0.0) for n in range(10, 30)]
    specialist_edges = [(2, 40, 1.0, 0.0)]
    activation = spread({1: 1.0, 2: 1.0}, hub_edges + specialist_edges, 0.0, HALF_LIFE)
    assert activation[40] > activation[10] > 0
    assert activation[1] == activation[2] == 1.0  # seeds keep what they had


def test_a_decayed_association_carries_less() -> None:
    fresh = spread({1: 1.0}, [(1, 2, 1.0, 0.0)], 0.0, HALF_LIFE)[2]
    old = spread({1: 1.0}, [(1, 2, 1.0, 0.0)], 90 * DAY, HALF_LIFE)[2]
    assert 0 < old < fresh


def test_rare_entities_count_more_and_scores_add_up() -> None:
    scores = dict(episode_scores([(1.0, 1, [7, 8]), (1.0, 1000, [8, 9])], k=3))
    assert scores[8] > scores[7] > scores[9]
    assert scores[8] == pytest.approx(scores[7] + scores[9])
    assert len(episode_scores([(1.0, 1, list(range(50)))], k=5)) == 5


def test_seeds_take_the_larger_activation() -> None:
    activation = seeded([1], {100: [1, 2], 101: [2]}, {100: 0.4, 101: 0.7})
    assert activation == {1: 1.0, 2: 0.7}


def test_the_nearest_sense_is_the_one_whose_mentions_look_alike() -> None:
    river, bank = np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32)
    recent = {3: [river, river], 4: [bank], 5: []}
    assert nearest_sense(recent, np.array([0.9, 0.1], np.float32)) == 3
    assert nearest_sense(recent, np.array([0.1, 0.9], np.float32)) == 4
    assert nearest_sense({5: []}, river) is None
