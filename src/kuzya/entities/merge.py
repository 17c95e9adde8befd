"""Consolidation rules without an LLM: merge two names of one entity, split one name
used for two.

"Mel" and "Melanie", "Kate" and "Katherine" are merged when one name is a short form of
the other, the two are never named in the same message (two people talked about together
are two people), and the messages that mention them are about the same things (their
context centroids agree). A name is split in two when the contexts of its messages fall
into two groups far apart, by a margin that what the texts say about the bearer moves
(`kuzya.entities.senses`). Every merge and split is recorded; a merge can be undone, and a split
is undone by merging the two back.

Decisions are made per audience, the largest first: for an audience X, from the
mentions in episodes X may see, applied to the mentions in episodes said before exactly
X. So what X decides shows only to those who may see all of X's episodes, and the same
messages lead to the same decisions whoever else talks in the namespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from kuzya.embed import Embedder
from kuzya.entities import senses
from kuzya.model import Entity, EntityChange
from kuzya.store.base import EntityStore, EpisodeStore, SearchStore


class MergeStore(EntityStore, EpisodeStore, SearchStore, Protocol):
    """What merging and splitting use: entities, their episodes and those's vectors."""


NAMED_KINDS = frozenset({"name", "person", "place", "org"})  # "name": not typed yet
LATEST_MENTIONS = 64  # of an entity, read again when looking for a split


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


def _centroid(store: MergeStore, namespace: str, episodes: Sequence[int]) -> np.ndarray | None:
    vectors = list(store.vector_of(namespace, episodes).values())
    if not vectors:
        return None
    mean = np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(mean))
    return None if norm == 0 else mean / norm


def audiences(store: MergeStore, namespace: str) -> list[list[str]]:
    """The namespace's audiences, larger first: those who see more decide first."""
    found = [sorted(audience) for audience in store.audiences(namespace)]
    return sorted(found, key=lambda members: (-len(members), members))


def merge_entities(
    store: MergeStore, namespace: str, min_cosine: float = 0.25
) -> list[EntityChange]:
    """Find and merge entities that are two names of one; returns the merges made."""
    changes = []
    for audience in audiences(store, namespace):
        changes.extend(_merge_in(store, namespace, audience, min_cosine))
    return changes


def _merge_in(
    store: MergeStore, namespace: str, audience: list[str], min_cosine: float
) -> list[EntityChange]:
    named = [e for e in store.entities(namespace, audience) if e.kind in NAMED_KINDS]
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
                change = _try_merge(store, namespace, audience, (a, b), min_cosine)
                if change is not None:
                    changes.append(change)
                    merged.add(a.id if len(a.key) < len(b.key) else b.id)
    return changes


def _try_merge(
    store: MergeStore,
    namespace: str,
    audience: list[str],
    pair: tuple[Entity, Entity],
    min_cosine: float,
) -> EntityChange | None:
    a, b = pair
    source, target = (a, b) if len(a.key) < len(b.key) else (b, a)
    if not store.entity_episodes(namespace, source.id, audience, exactly=True):
        return None  # nothing of it said before exactly this audience
    source_episodes = store.entity_episodes(namespace, source.id, audience)
    target_episodes = store.entity_episodes(namespace, target.id, audience)
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
    return store.merge_entities(namespace, source.id, target.id, reason, audience)


def split_entities(
    store: MergeStore,
    namespace: str,
    embedder: Embedder,
    margin: float = 0.35,
    min_mentions: int = 4,
    since: int = 0,
) -> list[EntityChange]:
    """One name used for two entities ("Sam from accounting", "my nephew Sam"): the
    latest messages naming it are cut in two by their contexts, and the smaller group
    becomes a second entity of that name when the groups are apart by `margin`, moved
    by the evidence of descriptors and neighbours (see `kuzya.entities.senses`). With `since`
    (an episode id), only entities mentioned after it are checked again."""
    changes = []
    for audience in audiences(store, namespace):
        for entity in store.entities(namespace, audience):
            if entity.kind in NAMED_KINDS | {"pet"} and entity.mentions >= min_mentions:
                change = _try_split(store, namespace, embedder, audience, entity, margin, since)
                if change is not None:
                    changes.append(change)
    return changes


def _try_split(
    store: MergeStore,
    namespace: str,
    embedder: Embedder,
    audience: list[str],
    entity: Entity,
    margin: float,
    since: int,
) -> EntityChange | None:
    episodes = store.entity_episodes(namespace, entity.id, audience)[-LATEST_MENTIONS:]
    own = set(store.entity_episodes(namespace, entity.id, audience, exactly=True))
    if max(episodes) <= since or not own & set(episodes):
        return None  # none since the last check, or none said before exactly them
    names = frozenset({entity.key, *(a for a in entity.aliases if not a.startswith("my "))})
    said = [store.get_episode(namespace, e) for e in episodes]
    readings = [senses.read(e.text, e.speaker, entity.key, names) for e in said]
    vectors = senses.contexts(embedder, readings)
    labels = senses.bipartition(vectors)
    sizes = np.bincount(labels, minlength=2)
    if sizes.min() < 2:
        return None
    apart = senses.separation(vectors, labels)
    score, why = senses.evidence(readings, labels)
    if apart < margin + senses.STEP * (1 - score):
        return None
    smaller = int(np.argmin(sizes))
    moved = [e for e, label in zip(episodes, labels, strict=True) if label == smaller and e in own]
    if not moved:
        return None
    reason = (
        f"{entity.name!r} is used in two unrelated contexts ({int(sizes[0])} and "
        f"{int(sizes[1])} messages, apart by {apart:.2f}; {why})"
    )
    return store.split_entity(namespace, entity.id, moved, reason, audience)
