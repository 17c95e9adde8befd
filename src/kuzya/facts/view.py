"""Facts as a set of people sees them: folded, in the order they were said, from the
claims of the messages those people may see, and from nothing else.

This is what keeps a private statement out of a group's view by construction: "I quit
Google, don't tell the team" said to the assistant alone is a claim of a private message,
so it closes "works at Google" only in the views of those who may see that message; the
group's view is folded without it and keeps its fact, its validity and its dates.

The fold, per subject: a claim of a value that is not open opens a fact (valid from when
it was said); a repeat strengthens the open fact (one source per message, a statement of
habit such as "I always order ramen" weighing double in its confidence); a new value of
a one-value attribute closes the other open value ("we moved to Austin"); a negated claim
closes the matching value ("I no longer live in Lisbon"), and a negated value that names
no one ("we split up": partner) closes whichever is open; liking what was disliked closes
the dislike (and back). A statement that arrives late lands where it was said in time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from kuzya.facts.schema import OPPOSITES, UNNAMED, attribute, known
from kuzya.language import dates
from kuzya.model import Fact
from kuzya.store.base import ClaimStore, StoredClaim

Event = tuple[str, str, datetime]  # (event, detail, when Kuzya learned it)
_Step = tuple[str, str, StoredClaim]  # (event, reason, the claim that made it happen)
Vectors = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


@dataclass
class _Building:
    """A fact while the fold runs."""

    opened_by: StoredClaim
    sources: list[int]
    audience: frozenset[str]
    weight: int
    valid_to: datetime | None = None
    ended_by: int | None = None
    steps: list[_Step] = field(default_factory=list)

    def fact(self) -> Fact:
        claim, kind = self.opened_by, attribute(self.opened_by.attribute)
        return Fact(
            id=claim.id,
            subject=claim.subject,
            attribute=claim.attribute,
            value=claim.value,
            statement=claim.statement,
            category=kind.category,
            priority=kind.priority,
            audience=self.audience,
            strength=len(self.sources),
            confidence=round(self.weight / (self.weight + 1), 3),
            valid_from=claim.said_at,
            valid_to=self.valid_to,
            recorded_at=claim.recorded_at,
            sources=tuple(sorted(self.sources)),
            origin=claim.origin,
            ended_by=self.ended_by,
        )


def _weight(claim: StoredClaim) -> int:
    """What one statement adds to a fact's confidence: a habit stated counts twice."""
    return 2 if claim.emphatic else 1


def _event(step: _Step) -> Event:
    event, reason, claim = step
    return (
        event,
        f"{reason} memory {claim.episode_id} ({claim.said_at:%d %B %Y})",
        claim.recorded_at,
    )


def fold(claims: Sequence[StoredClaim]) -> tuple[list[Fact], dict[int, list[_Step]]]:
    """The facts the claims make, most important first, and the steps of each one's
    history (see `FactView.history`)."""
    built: list[_Building] = []
    # open facts by (subject, attribute), then by value key
    open_: dict[tuple[str, str], dict[str, _Building]] = {}

    def close(fact: _Building, by: StoredClaim, reason: str) -> None:
        fact.valid_to, fact.ended_by = by.said_at, by.episode_id
        fact.steps.append(("CLOSE", f"{reason} in", by))
        opened = fact.opened_by
        del open_[(opened.subject, opened.attribute)][opened.value_key]

    for claim in sorted(claims, key=lambda c: (c.said_at, c.episode_id, c.id)):
        if not known(claim.attribute):
            continue
        values = open_.setdefault((claim.subject, claim.attribute), {})
        same = values.get(claim.value_key)
        if claim.negated:
            if same is not None:
                close(same, claim, "no longer true, said")
            elif claim.value.lower() in UNNAMED.get(claim.attribute, ()):
                for other in list(values.values()):  # "we split up": whoever it was
                    close(other, claim, "no longer true, said")
            continue
        if same is not None:
            if claim.episode_id not in same.sources:
                same.sources.append(claim.episode_id)
                same.weight += _weight(claim)
                same.steps.append(("STRENGTHEN", "stated again in", claim))
            same.audience &= claim.audience
            continue
        if attribute(claim.attribute).single:
            for other in list(values.values()):
                close(other, claim, "replaced by a new value")
        opposites = open_.get((claim.subject, OPPOSITES.get(claim.attribute, "")), {})
        if claim.value_key in opposites:
            close(opposites[claim.value_key], claim, "contradicted")
        new = _Building(claim, [claim.episode_id], claim.audience, _weight(claim))
        new.steps.append(("ADD", "said in", claim))
        values[claim.value_key] = new
        built.append(new)
    facts = sorted((b.fact() for b in built), key=lambda f: (-f.priority, f.valid_from, f.id))
    return facts, {b.opened_by.id: b.steps for b in built}


def _plans_over(facts: Sequence[Fact]) -> dict[int, datetime]:
    """The end of the last date each dated plan names, read as it was said ("concert in
    April" said in January): after it the plan no longer says what is ahead."""
    ends = {}
    for fact in facts:
        spans = dates.find(fact.value, fact.valid_from) if fact.category == "plans" else []
        if spans:
            ends[fact.id] = max(span.end for span in spans)
    return ends


@dataclass(frozen=True)
class FactView:
    """The facts one set of people sees, with their histories and vectors."""

    facts: tuple[Fact, ...]
    steps: Mapping[int, list[_Step]]
    statement_vectors: npt.NDArray[np.float32]  # one row per fact, in `facts` order
    own_vectors: npt.NDArray[np.float32]  # the fact in its subject's words
    plans_over: Mapping[int, datetime]  # when the dates of a dated plan are all over

    @classmethod
    def of(cls, claims: Sequence[StoredClaim], store: ClaimStore, namespace: str) -> FactView:
        facts, history = fold(claims)
        vectors = store.claim_vectors(namespace, [f.id for f in facts])
        dim = next(iter(vectors.values()))[0].shape[0] if vectors else 0
        statement = np.zeros((len(facts), dim), dtype=np.float32)
        own = np.zeros((len(facts), dim), dtype=np.float32)
        for row, fact in enumerate(facts):
            statement[row], own[row] = vectors[fact.id]
        return cls(tuple(facts), history, statement, own, _plans_over(facts))

    def history(self, fact_id: int) -> list[Event]:
        """ADD, STRENGTHEN and CLOSE of a fact, with the memories that said them."""
        return [_event(step) for step in self.steps.get(fact_id, ())]

    def select(
        self, *, subject: str | None = None, current_only: bool = True, now: datetime | None = None
    ) -> list[Fact]:
        """The facts (of `subject`), current ones only unless told; as of `now`, without
        the plans whose dates have passed."""
        return [
            f
            for f in self.facts
            if (subject is None or f.subject == subject) and self._holds(f, current_only, now)
        ]

    def _holds(self, fact: Fact, current_only: bool, now: datetime | None) -> bool:
        if not current_only:
            return True
        over = self.plans_over.get(fact.id)
        return fact.current and (now is None or over is None or now < over)

    @property
    def superseded(self) -> frozenset[int]:
        """Episodes that stated facts, none of which is current any more."""
        current: dict[int, bool] = {}
        for fact in self.facts:
            for source in fact.sources:
                current[source] = current.get(source, False) or fact.current
        return frozenset(episode for episode, any_current in current.items() if not any_current)

    def search(
        self,
        vector: npt.NDArray[np.float32],
        k: int,
        *,
        current_only: bool = True,
        asker: str | None = None,
        now: datetime | None = None,
    ) -> list[tuple[Fact, float]]:
        """Facts most similar to the vector, with their cosine (as `select` chooses them);
        the asker's own facts are compared as the asker would state them too (the better
        cosine counts)."""
        rows = [i for i, f in enumerate(self.facts) if self._holds(f, current_only, now)]
        if not rows or self.statement_vectors.shape[1] != vector.shape[0]:
            return []
        query = vector.astype(np.float32)
        scores = self.statement_vectors[rows] @ query
        mine = np.array([self.facts[i].subject == asker for i in rows])
        scores = np.where(mine, np.maximum(scores, self.own_vectors[rows] @ query), scores)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.facts[rows[i]], float(scores[i])) for i in order]


class FactViews:
    """Views of one namespace's facts, cached per set of viewers until the claims change."""

    def __init__(self, store: ClaimStore, namespace: str, size: int = 32) -> None:
        self.store, self.namespace, self.size = store, namespace, size
        self._cache: OrderedDict[frozenset[str] | None, tuple[int, FactView]] = OrderedDict()
        self._lock = threading.Lock()

    def view(self, participants: Sequence[str] | None) -> FactView:
        """What these participants see (None: every claim, for administration)."""
        key = None if participants is None else frozenset(participants)
        version = self.store.claims_version(self.namespace)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached[0] == version:
                self._cache.move_to_end(key)
                return cached[1]
        claims = self.store.claims(self.namespace, participants=participants)
        view = FactView.of(claims, self.store, self.namespace)
        with self._lock:
            self._cache[key] = (version, view)
            self._cache.move_to_end(key)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return view
