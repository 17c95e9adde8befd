"""Claims found in episodes, stored as they were said: each keeps its episode's time and
audience, and facts are folded from them per viewer (`kuzya.facts.view`). Recording a
claim twice (a job run again) changes nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from kuzya.embed.base import Embedder, Vectors
from kuzya.facts.schema import Claim, attribute, known
from kuzya.language.text import terms
from kuzya.model import Episode
from kuzya.store.base import ClaimStore, NewClaim

DIGEST = "digest"  # the sleep job's cursor: the last episode id read for claims and diary


def value_key(value: str) -> str:
    """What makes two values the same: their index terms ("Lisbon" = "lisbon.")."""
    return " ".join(sorted(set(terms(value)))) or " ".join(re.findall(r"\w+", value.lower()))


def dated(claim: Claim, episode: Episode) -> Claim:
    """A plan with the dates its time phrases meant when it was said ("trip to Spain in
    July" said in March 2026 -> "... in July (July 2026)"): a claim has no time of its
    own, so the resolved date goes into the value, where "next week" keeps its meaning."""
    if not known(claim.attribute) or attribute(claim.attribute).category != "plans":
        return claim
    value = claim.value.lower()
    labels = [s.label() for s in episode.events if s.phrase.lower() in value]
    if not labels:
        return claim
    return replace(claim, value=f"{claim.value} ({', '.join(dict.fromkeys(labels))})")


@dataclass(frozen=True)
class Found:
    """A claim and the episode that stated it."""

    episode: Episode
    claim: Claim
    origin: str  # "rules" or "llm:<model>"


def vectors(embedder: Embedder, statement: str, claim: Claim) -> Vectors:
    """A claim's statement and its subject's own words, embedded together and by
    themselves: a claim gets the same vectors however many were found with it, and an
    import that embeds it again gets them too."""
    return embedder.embed([statement, claim.said_by_subject()])


def new_claim(
    embedder: Embedder,
    episode_id: int,
    claim: Claim,
    origin: str,
    *,
    statement: str | None = None,
    key: str | None = None,
    recorded_at: datetime | None = None,
) -> NewClaim:
    """A claim ready to store, with its vectors: its statement and value key as made now
    unless given (an import keeps the exported ones, and the time it was recorded)."""
    said = statement or claim.statement()
    vector, own = vectors(embedder, said, claim)
    return NewClaim(
        episode_id=episode_id,
        subject=claim.subject,
        attribute=claim.attribute,
        value=claim.value,
        value_key=key or value_key(claim.value),
        negated=claim.negated,
        statement=said,
        origin=origin,
        vector=vector,
        own_vector=own,
        emphatic=claim.emphatic,
        recorded_at=recorded_at,
    )


def record(store: ClaimStore, namespace: str, embedder: Embedder, found: Sequence[Found]) -> int:
    """Store the claims of catalogue or open attributes with a value; returns how many
    were new."""
    usable = [f for f in found if known(f.claim.attribute) and value_key(f.claim.value)]
    if not usable:
        return 0
    new = [new_claim(embedder, f.episode.id, f.claim, f.origin) for f in usable]
    return store.add_claims(namespace, new)
