"""Consolidation rules without an LLM: merge two names of one entity, split one name
used for two.

"Mel" and "Melanie", "Kate" and "Katherine" are merged when one name is a short form of
the other, the two are never named in the same message (two people talked about together
are two people), and the messages that mention them are about the same things (their
context centroids agree). Every merge and split is recorded; a merge can be undone, and
a split is undone by merging the two back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kuzya.model import Entity, EntityChange
from kuzya.store.base import Store

NAMED_KINDS = frozenset({"name", "person"})


def short_form(a: str, b: str) -> bool:
    """Whether one key looks like a short form of the other ("mel" ~ "melanie")."""
    shorter, longer = sorted((a, b), key=len)
    first = longer.split()[0]
    if shorter == longer or " " in shorter:
        return False
    common = next(
        (i for i, (x, y) in enumerate(zip(shorter, first, strict=False)) if x != y),
        min(len(shorter), len(first)),
    )
    return common >= 3 and common >= 0.75 * len(shorter)


def _centroid(store: Store, namespace: str, episodes: Sequence[int]) -> np.ndarray | None:
    vectors = list(store.vector_of(namespace, episodes).values())
    if not vectors:
        return None
    mean = np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(mean))
    return None if norm == 0 else mean / norm


def merge_entities(store: Store, namespace: str, min_cosine: float = 0.25) -> list[EntityChange]:
    """Find and merge entities that are two names of one; returns the merges made."""
    named = [e for e in store.entities(namespace) if e.kind in NAMED_KINDS]
    by_prefix: dict[str, list[Entity]] = {}
    for entity in named:
        by_prefix.setdefault(entity.key[:3], []).append(entity)
    changes = []
    merged: set[int] = set()
    for group in by_prefix.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if a.id in merged or b.id in merged or not short_form(a.key, b.key):
                    continue
                change = _try_merge(store, namespace, a, b, min_cosine)
                if change is not None:
                    changes.append(change)
                    merged.add(a.id if len(a.key) < len(b.key) else b.id)
    return changes


def _try_merge(
    store: Store, namespace: str, a: Entity, b: Entity, min_cosine: float
) -> EntityChange | None:
    source, target = (a, b) if len(a.key) < len(b.key) else (b, a)
    source_episodes = store.entity_episodes(namespace, source.id)
    target_episodes = store.entity_episodes(namespace, target.id)
    if set(source_episodes) & set(target_episodes):
        return None  # named together: two different entities
    first = _centroid(store, namespace, source_episodes)
    second = _centroid(store, namespace, target_episodes)
    if first is None or second is None:
        return None
    cosine = float(first @ second)
    if cosine < min_cosine:
        return None
    reason = (
        f"{source.name!r} looks like a short form of {target.name!r}; never named together; "
        f"context cosine {cosine:.2f}"
    )
    return store.merge_entities(namespace, source.id, target.id, reason)


def _two_groups(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-means on unit vectors, seeded with the least similar pair (deterministic)."""
    similarity = vectors @ vectors.T
    first, second = np.unravel_index(int(np.argmin(similarity)), similarity.shape)
    centroids = vectors[[first, second]]
    labels = np.zeros(len(vectors), dtype=int)
    for _ in range(10):
        labels = np.argmax(vectors @ centroids.T, axis=1)
        if labels.min() == labels.max():
            break
        centroids = np.stack([vectors[labels == side].mean(axis=0) for side in (0, 1)])
        centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    return labels, centroids


def split_entities(
    store: Store, namespace: str, margin: float = 0.35, min_mentions: int = 4
) -> list[EntityChange]:
    """One name used for two entities ("Sam from accounting", "my nephew Sam"): when the
    messages naming it fall into two tight groups far apart (each message is closer to its
    group's centre than the two centres are to each other, by `margin`), the smaller group
    becomes a second entity of that name."""
    changes = []
    for entity in store.entities(namespace):
        if entity.kind not in NAMED_KINDS | {"pet"} or entity.mentions < min_mentions:
            continue
        episodes = store.entity_episodes(namespace, entity.id)
        found = store.vector_of(namespace, episodes)
        ids = [e for e in episodes if e in found]
        if len(ids) < min_mentions:
            continue
        vectors = np.stack([found[e] for e in ids])
        labels, centroids = _two_groups(vectors)
        sizes = np.bincount(labels, minlength=2)
        cosine = float(centroids[0] @ centroids[1])
        cohesion = float(np.mean(np.sum(vectors * centroids[labels], axis=1)))
        if sizes.min() < 2 or cohesion - cosine < margin:
            continue
        smaller = int(np.argmin(sizes))
        moved = [e for e, label in zip(ids, labels, strict=True) if label == smaller]
        reason = (
            f"{entity.name!r} is used in two unrelated contexts ({int(sizes[0])} and "
            f"{int(sizes[1])} messages; cohesion {cohesion:.2f}, between {cosine:.2f})"
        )
        changes.append(store.split_entity(namespace, entity.id, moved, reason))
    return changes
