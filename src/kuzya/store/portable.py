"""Rows of a namespace in backend-neutral terms, for moving it whole (`kuzya.transfer.namespace`):
what a store gives for an export and takes on an import. Entities are named by their key
and sense, never by a row id; episodes by the ids of the store at hand (the transfer
maps them to message keys). Vectors are not here: the target's embedder makes its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kuzya.model import Episode
from kuzya.store.base import NewEpisode

EntityRef = tuple[str, int]  # (key, sense): "leo" and 1 for the second entity named Leo


@dataclass(frozen=True)
class KeptEpisode:
    """A stored episode with its key and the episodes it was derived from."""

    episode: Episode
    key: str | None
    derived_from: tuple[int, ...]


@dataclass(frozen=True)
class RestoredEpisode:
    """An episode as an export kept it: stored at its old time and place in its conversation,
    `new.mentions` empty (the entity graph is restored with `put_entity_graph`)."""

    new: NewEpisode
    stored_at: datetime
    updated_at: datetime | None
    position: int


@dataclass(frozen=True)
class MentionRow:
    episode_id: int
    entity: EntityRef
    name: str  # as written there
    kind: str


@dataclass(frozen=True)
class AliasRow:
    speaker: str  # "" for a merged name, everyone's
    alias: str
    audience: frozenset[str]
    episode_id: int | None  # the episode that taught it; None: a merge from before the views
    entity: EntityRef


@dataclass(frozen=True)
class AssociationRow:
    audience: frozenset[str]
    a: EntityRef
    b: EntityRef
    weight: float  # at `updated_at`; it decays from there
    updated_at: datetime


@dataclass(frozen=True)
class ReinforcementRow:
    """A recall's strengthening, kept so that deleting one of its sources takes it back."""

    audience: frozenset[str]
    entities: tuple[EntityRef, ...]
    amount: float
    at: datetime
    sources: tuple[int, ...]


@dataclass(frozen=True)
class EntityGraph:
    """A namespace's entities (in the order they were made), the mentions of each episode
    (in text order), aliases, associations and the log of reinforcements."""

    entities: tuple[EntityRef, ...]
    mentions: tuple[MentionRow, ...]
    aliases: tuple[AliasRow, ...]
    associations: tuple[AssociationRow, ...]
    reinforcements: tuple[ReinforcementRow, ...]
