"""The maths of associations between entities, written once for every store.

An association grows by one each time two entities are named close together in a
message (Hebbian) and decays exponentially (half-life). A weight is kept at its latest
time u; a contribution made at t counts amount * 0.5 ** ((u - t) / half_life) there, so
additions commute and deleting an episode subtracts exactly what it added.

Recall spreads activation one step from the entities a question names: what an entity
passes on is divided by its total association weight (a hub linked to everything hands
each neighbour only a little), and an episode scores the activation of the entities it
mentions, a rarely mentioned entity counting more. Stores keep the rows and run the
queries; every rule here is pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

# A name is associated with this many names after it in the text: linear work per
# message, and every pair in a message of up to NEIGHBOURS + 1 names.
NEIGHBOURS = 5
NEGLIGIBLE = 1e-6  # a weight below this, once contributions are taken back, is dropped
STRONGEST_EDGES = 300  # associations one step of spreading activation follows
MOST_ACTIVE = 8  # activated entities whose mentions recall reads
LATEST_MENTIONS = 200  # per activated entity, in recall
SENSE_MENTIONS = 50  # recent mentions of a sense that tell what it is about

Edge = tuple[int, int, float, float]  # a, b, weight, updated_at (seconds)


def decayed(weight: float, since: float, now: float, half_life: float) -> float:
    return float(weight * 0.5 ** (max(0.0, now - since) / half_life))


def linked_pairs(ids: Sequence[int]) -> list[tuple[int, int]]:
    """Entities of one message (in text order) that an association links."""
    return [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 : i + 1 + NEIGHBOURS]]


def ordered(pairs: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs as stored (smaller id first), without an entity paired with itself."""
    return [(min(a, b), max(a, b)) for a, b in pairs if a != b]


def added(
    old: tuple[float, float] | None, amount: float, at: float, half_life: float
) -> tuple[float, float] | None:
    """The (weight, updated_at) of an association after `amount` made at `at` is added
    to `old` (None: no association yet); None when nothing is left to keep (a negative
    amount takes an earlier addition back)."""
    if old is None and amount <= 0:
        return None
    updated = at if old is None else max(at, old[1])
    weight = decayed(amount, at, updated, half_life)
    if old is not None:
        weight += decayed(old[0], old[1], updated, half_life)
    return None if weight < NEGLIGIBLE else (weight, updated)


def seeded(
    named: Iterable[int], by_episode: Mapping[int, Sequence[int]], seeds: Mapping[int, float]
) -> dict[int, float]:
    """The activation recall starts from: 1 for each entity the question names, and for
    the entities of each seed episode that episode's score (the larger, if both)."""
    activation = dict.fromkeys(named, 1.0)
    for episode_id, entities in by_episode.items():
        for entity in entities:
            activation[entity] = max(activation.get(entity, 0.0), seeds[episode_id])
    return activation


def spread(
    seeds: Mapping[int, float], edges: Iterable[Edge], now: float, half_life: float
) -> dict[int, float]:
    """One step of spreading activation from `seeds` over `edges` (the strongest
    associations the audience may use that touch a seed)."""
    out_weight: dict[int, float] = {}
    steps: list[tuple[int, int, float]] = []
    for a, b, weight, updated in edges:
        w = decayed(weight, updated, now, half_life)
        for source, target in ((a, b), (b, a)):
            if source in seeds:
                steps.append((source, target, w))
                out_weight[source] = out_weight.get(source, 0.0) + w
    activation = dict(seeds)
    for source, target, w in steps:
        activation[target] = activation.get(target, 0.0) + seeds[source] * w / (
            1.0 + out_weight[source]
        )
    return activation


def most_active(activation: Mapping[int, float]) -> list[tuple[int, float]]:
    """The activated entities whose mentions recall reads, strongest first."""
    return sorted(activation.items(), key=lambda pair: -pair[1])[:MOST_ACTIVE]


def episode_scores(
    mentioned: Iterable[tuple[float, int, Sequence[int]]], k: int
) -> list[tuple[int, float]]:
    """The `k` best episodes from (activation, visible mentions, latest episode ids) per
    activated entity: an episode carries the activation of the entities it mentions,
    divided by how often each is mentioned (rarity)."""
    scores: dict[int, float] = {}
    for strength, mentions, episode_ids in mentioned:
        score = strength / math.log(2.0 + mentions)
        for episode_id in episode_ids:
            scores[episode_id] = scores.get(episode_id, 0.0) + score
    return sorted(scores.items(), key=lambda pair: -pair[1])[:k]


def nearest_sense(
    recent: Mapping[int, Sequence[npt.NDArray[np.float32]]], vector: npt.NDArray[np.float32]
) -> int | None:
    """Of several entities sharing a name, the one whose recent mentions (the vectors of
    their episodes) are most like a message's `vector`; None when none has any."""
    best, best_score = None, -2.0
    for entity_id, vectors in recent.items():
        if not len(vectors):
            continue
        centroid = np.mean(vectors, axis=0)
        score = float(centroid @ vector) / (float(np.linalg.norm(centroid)) or 1.0)
        if score > best_score:
            best, best_score = entity_id, score
    return best
