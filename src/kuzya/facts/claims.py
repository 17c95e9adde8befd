"""Claims found in episodes, stored as they were said: each keeps its episode's time and
audience, and facts are folded from them per viewer (`kuzya.facts.view`). Recording a
claim twice (a job run again) changes nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kuzya.embed.base import Embedder
from kuzya.facts.schema import ATTRIBUTES, Claim
from kuzya.model import Episode
from kuzya.store.base import ClaimStore, NewClaim
from kuzya.text import terms

DIGEST = "digest"  # the sleep job's cursor: the last episode id read for claims and diary


def value_key(value: str) -> str:
    """What makes two values the same: their index terms ("Lisbon" = "lisbon.")."""
    return " ".join(sorted(set(terms(value)))) or " ".join(re.findall(r"\w+", value.lower()))


@dataclass(frozen=True)
class Found:
    """A claim and the episode that stated it."""

    episode: Episode
    claim: Claim
    origin: str  # "rules" or "llm:<model>"


def record(store: ClaimStore, namespace: str, embedder: Embedder, found: Sequence[Found]) -> int:
    """Store the claims of known attributes with a value; returns how many were new."""
    usable = [f for f in found if f.claim.attribute in ATTRIBUTES and value_key(f.claim.value)]
    if not usable:
        return 0
    vectors = embedder.embed(
        [f.claim.statement() for f in usable] + [f.claim.said_by_subject() for f in usable]
    )
    return store.add_claims(
        namespace,
        [
            NewClaim(
                episode_id=f.episode.id,
                subject=f.claim.subject,
                attribute=f.claim.attribute,
                value=f.claim.value,
                value_key=value_key(f.claim.value),
                negated=f.claim.negated,
                statement=f.claim.statement(),
                origin=f.origin,
                vector=vectors[number],
                own_vector=vectors[len(usable) + number],
            )
            for number, f in enumerate(usable)
        ],
    )
