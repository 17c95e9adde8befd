"""Claims found in episodes, stored as they were said: each keeps its episode's time and
audience, and facts are folded from them per viewer (`kuzya.facts.view`). Recording a
claim twice (a job run again) changes nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kuzya.embed.base import Embedder, Vectors
from kuzya.facts.schema import Claim, attribute, known
from kuzya.model import Episode
from kuzya.store.base import ClaimStore, NewClaim
from kuzya.text import terms

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


def record(store: ClaimStore, namespace: str, embedder: Embedder, found: Sequence[Found]) -> int:
    """Store the claims of catalogue or open attributes with a value; returns how many
    were new."""
    usable = [f for f in found if known(f.claim.attribute) and value_key(f.claim.value)]
    if not usable:
        return 0
    new = []
    for f in usable:
        statement, own = vectors(embedder, f.claim.statement(), f.claim)
        new.append(
            NewClaim(
                episode_id=f.episode.id,
                subject=f.claim.subject,
                attribute=f.claim.attribute,
                value=f.claim.value,
                value_key=value_key(f.claim.value),
                negated=f.claim.negated,
                statement=f.claim.statement(),
                origin=f.origin,
                vector=statement,
                own_vector=own,
                emphatic=f.claim.emphatic,
            )
        )
    return store.add_claims(namespace, new)
