"""Reconciliation: a claim found in an episode becomes a fact, strengthens one, or ends one.

- said again before the same audience: the fact gains a source (strength);
- a new value of a one-value attribute ("we moved to Austin"): the old fact's validity
  is closed at the time the new one was said, the new fact starts there;
- a negated claim ("I no longer live in Lisbon"): the matching fact is closed;
- liking what was disliked (and back) closes the opposite fact.

Every change to one claim happens in one transaction, and an episode already recorded
as a source of the claim's fact is skipped, so running a job twice changes nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from kuzya.embed.base import Embedder
from kuzya.facts.schema import ATTRIBUTES, OPPOSITES, Claim
from kuzya.model import Episode
from kuzya.store.base import FactWriter, NewFact, Store
from kuzya.text import terms


def value_key(value: str) -> str:
    """What makes two values the same: their index terms ("Lisbon" = "lisbon.")."""
    return " ".join(sorted(set(terms(value)))) or " ".join(re.findall(r"\w+", value.lower()))


@dataclass(frozen=True)
class Found:
    """A claim and the episode that stated it."""

    episode: Episode
    claim: Claim
    origin: str  # "rules" or "llm:<model>"


def reconcile(
    store: Store, namespace: str, embedder: Embedder, found: Sequence[Found]
) -> Counter[str]:
    """Apply the claims in order; counts what happened ("added", "strengthened", ...)."""
    counts: Counter[str] = Counter()
    usable = [f for f in found if f.claim.attribute in ATTRIBUTES and value_key(f.claim.value)]
    if not usable:
        return counts
    vectors = embedder.embed(
        [f.claim.statement() for f in usable] + [f.claim.said_by_subject() for f in usable]
    )
    for number, item in enumerate(usable):
        pair = (vectors[number], vectors[len(usable) + number])
        with store.fact_writer(namespace) as writer:
            counts[_apply(writer, item, pair)] += 1
    return counts


def _apply(writer: FactWriter, found: Found, vectors: tuple[np.ndarray, np.ndarray]) -> str:
    claim, episode = found.claim, found.episode
    key = value_key(claim.value)
    if any(
        f.attribute == claim.attribute and value_key(f.value) == key
        for f in writer.stated_by(episode.id)
    ):
        return "seen"  # this episode was reconciled before
    current = writer.current(claim.subject, claim.attribute)
    # Reasons name the episode, never its words or the new value: forgetting the new fact
    # must not leave its value behind in the history of the one it replaced.
    reason = f"memory {episode.id} ({episode.said_at:%d %B %Y})"
    if claim.negated:
        ended = [f for f in current if value_key(f.value) == key]
        for fact in ended:
            writer.close(fact.id, episode.said_at, f"no longer true, said in {reason}")
        return "closed" if ended else "unmatched"
    audience = tuple(sorted(episode.audience))
    for fact in current:
        if value_key(fact.value) == key and fact.audience == frozenset(audience):
            writer.add_source(fact.id, episode.id)
            return "strengthened"
    attribute = ATTRIBUTES[claim.attribute]
    others = [f for f in current if value_key(f.value) != key] if attribute.single else []
    later = [f.valid_from for f in others if f.valid_from > episode.said_at]
    writer.add(_new_fact(found, key, audience, vectors, min(later, default=None)))
    for fact in others:
        if fact.valid_from <= episode.said_at:
            writer.close(fact.id, episode.said_at, f"replaced by a new value in {reason}")
    if claim.attribute in OPPOSITES:
        for fact in writer.current(claim.subject, OPPOSITES[claim.attribute]):
            if value_key(fact.value) == key:
                writer.close(fact.id, episode.said_at, f"contradicted in {reason}")
    return "added" if not later else "added as past"


def _new_fact(
    found: Found,
    key: str,
    audience: tuple[str, ...],
    vectors: tuple[np.ndarray, np.ndarray],
    valid_to: datetime | None,
) -> NewFact:
    claim, attribute = found.claim, ATTRIBUTES[found.claim.attribute]
    return NewFact(
        subject=claim.subject,
        attribute=claim.attribute,
        value=claim.value,
        value_key=key,
        statement=claim.statement(),
        category=attribute.category,
        priority=attribute.priority,
        audience=audience,
        valid_from=found.episode.said_at,
        valid_to=valid_to,
        origin=found.origin,
        vector=vectors[0],
        own_vector=vectors[1],
        source=found.episode.id,
    )
