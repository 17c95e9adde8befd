"""The store port: small protocols the engine depends on, one per concern.

Every method takes the namespace explicitly; nothing crosses it. Adapters are
thread-safe: a background worker and the callers of recall share one store. Every search method
takes the participants present and returns only memories whose audience includes all
of them: the privacy rule is the store's job, done inside its query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from kuzya.dates import Span
from kuzya.entities import Mention
from kuzya.model import (
    Conversation,
    DiaryEntry,
    Entity,
    EntityChange,
    Episode,
    Fact,
    HistoryEvent,
    Message,
)

Hit = tuple[int, float]  # (memory id, score); higher is better


@dataclass(frozen=True)
class NewEpisode:
    """A message ready to store: validated, embedded and analysed."""

    message: Message
    vector: npt.NDArray[np.float32]
    terms: str  # space-separated index terms (see kuzya.text.terms)
    events: tuple[Span, ...] = ()  # time expressions resolved against the time said
    mentions: tuple[Mention, ...] = ()  # entity mentions found in the text


class EpisodeStore(Protocol):
    def add_episodes(self, namespace: str, batch: Sequence[NewEpisode]) -> list[Episode]:
        """Store all or nothing; returns once the transaction has committed."""
        ...

    def get_episode(self, namespace: str, episode_id: int) -> Episode: ...

    def list_episodes(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        conversation: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]: ...

    def update_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode: ...

    def delete_episode(self, namespace: str, episode_id: int, actor: str | None) -> None:
        """Erase the text everywhere, including earlier versions in the history."""
        ...

    def conversations(
        self, namespace: str, participants: Sequence[str] | None = None
    ) -> list[Conversation]:
        """Conversations, most recent first; with participants, those they all took part in."""
        ...

    def history(self, namespace: str, episode_id: int) -> list[HistoryEvent]: ...

    def recent_turns(
        self, namespace: str, conversation: str, participants: Sequence[str], limit: int
    ) -> list[Episode]:
        """The last turns of a conversation that the participants may see, oldest first."""
        ...

    def stats(self, namespace: str) -> dict[str, Any]: ...


class SearchStore(Protocol):
    def dense_search(
        self, namespace: str, vector: npt.NDArray[np.float32], participants: Sequence[str], k: int
    ) -> list[Hit]: ...

    def text_search(
        self, namespace: str, terms: Sequence[str], participants: Sequence[str], k: int
    ) -> list[Hit]: ...

    def recent_search(self, namespace: str, participants: Sequence[str], k: int) -> list[Hit]: ...

    def window_search(
        self,
        namespace: str,
        start: datetime,
        end: datetime,
        participants: Sequence[str],
        k: int,
    ) -> list[Hit]:
        """Episodes said in [start, end) or about events overlapping it, newest first."""
        ...

    def fetch(
        self, namespace: str, ids: Sequence[int], participants: Sequence[str]
    ) -> list[Episode]:
        """Episodes by id, dropping any the participants may not see."""
        ...

    def neighbours(
        self, namespace: str, episodes: Sequence[Episode], span: int, participants: Sequence[str]
    ) -> list[Episode]:
        """Turns within `span` positions of the given ones in their conversations (visible
        to the participants), the given ones excluded."""
        ...

    def vector_of(
        self, namespace: str, ids: Sequence[int]
    ) -> dict[int, npt.NDArray[np.float32]]: ...


class EntityStore(Protocol):
    """Every entity row (mention, alias, association, merge or split) carries the audience
    of the episodes it was learned from; every view for participants is computed from
    rows of audiences that include them all (non-interference), and deleting an episode
    takes back what it added."""

    def gazetteer(
        self, namespace: str, speaker: str, participants: Sequence[str]
    ) -> dict[str, str]:
        """Names the participants' visible episodes mention (alias -> entity key), with
        the aliases those episodes taught on top (merged names, then the speaker's own
        "my sister"; the latest wins)."""
        ...

    def graph_search(
        self,
        namespace: str,
        keys: Sequence[str],
        seeds: Mapping[int, float],
        participants: Sequence[str],
        now: datetime,
        k: int,
    ) -> list[Hit]:
        """Spreading activation from the entities named by `keys` and those of the seed
        episodes (with their scores), over associations the participants may use; returns
        visible episodes that mention activated entities."""
        ...

    def reinforce(
        self,
        namespace: str,
        episode_ids: Sequence[int],
        participants: Sequence[str],
        now: datetime,
    ) -> None:
        """Strengthen the associations among the entities of episodes recalled together,
        in the participants' audience; episodes of other namespaces, or that they may not
        see, are ignored. Deleting one of the episodes takes it back."""
        ...

    def prune(self, namespace: str, now: datetime, below: float) -> int:
        """Drop associations whose decayed weight is below `below`; returns how many."""
        ...

    def add_mentions(self, namespace: str, episode_id: int, mentions: Sequence[Mention]) -> int:
        """Link a stored episode to entities it does not mention yet (names found after
        it was remembered), creating them as needed; associations grow for the new pairs
        only, in the episode's audience, so adding the same mentions again changes
        nothing. Returns how many links were new."""
        ...

    def set_entity_kinds(self, namespace: str, episode_id: int, kinds: Mapping[str, str]) -> int:
        """Set the kind ("person", "place", "org") of the episode's mentions by key where
        it is still the generic "name" (kinds told by a relation, like "pet", stay);
        returns how many changed. An entity's kind is the first one its visible
        mentions give."""
        ...

    def entities(self, namespace: str, participants: Sequence[str] | None = None) -> list[Entity]:
        """Entities with a mention the participants may see, with the counts, first
        written name, kind and aliases of those mentions; None: the admin view of
        everything in the namespace."""
        ...

    def entity_episodes(
        self,
        namespace: str,
        entity_id: int,
        participants: Sequence[str] | None = None,
        *,
        exactly: bool = False,
    ) -> list[int]:
        """Ids of the episodes that mention the entity, oldest first: those the
        participants may see (with `exactly`, those said before exactly them), or all."""
        ...

    def audiences(self, namespace: str) -> list[frozenset[str]]:
        """Every audience episodes were said before."""
        ...

    def merge_entities(
        self,
        namespace: str,
        source: int,
        target: int,
        reason: str,
        audience: Sequence[str] | None = None,
    ) -> EntityChange:
        """Two names of one entity: fold the mentions of `source` in episodes said before
        exactly `audience` (None: all) into `target`, recorded and reversible; there,
        later mentions of the name go to `target`."""
        ...

    def split_entity(
        self,
        namespace: str,
        entity_id: int,
        episodes: Sequence[int],
        reason: str,
        audience: Sequence[str] | None = None,
    ) -> EntityChange:
        """One name, two entities: the mentions in those of `episodes` said before exactly
        `audience` (None: any) go to a new sense of the name, and later mentions go to
        whichever sense their visible context is closer to."""
        ...

    def unmerge_entities(self, namespace: str, change_id: int) -> EntityChange:
        """Undo a merge: the merged entity comes back with its aliases and mentions."""
        ...


@dataclass(frozen=True)
class NewFact:
    """A fact to record, stated in episode `source` before `audience`."""

    subject: str
    attribute: str
    value: str
    value_key: str  # the value's index terms, to recognise a repeat said differently
    statement: str
    category: str
    priority: int
    audience: tuple[str, ...]
    valid_from: datetime
    valid_to: datetime | None
    origin: str
    vector: npt.NDArray[np.float32]  # of the statement ("ana lives in Lisbon")
    own_vector: npt.NDArray[np.float32]  # as the subject says it ("I live in Lisbon")
    source: int


@dataclass(frozen=True)
class NewDiaryEntry:
    kind: str
    key: str
    level: int
    text: str
    start: datetime
    end: datetime
    audience: tuple[str, ...]
    sources: tuple[int, ...]  # episode ids
    origin: str
    vector: npt.NDArray[np.float32]
    covers: tuple[int, ...] = ()  # diary entries this one compresses


class FactWriter(Protocol):
    """Fact changes made in one transaction: all of them are kept, or none."""

    def current(self, subject: str, attribute: str) -> list[Fact]:
        """Current facts of the subject and attribute, in every audience."""
        ...

    def stated_by(self, episode_id: int) -> list[Fact]: ...

    def add(self, new: NewFact) -> int: ...

    def add_source(self, fact_id: int, episode_id: int) -> bool:
        """Stated again: False when that episode was already a source."""
        ...

    def close(self, fact_id: int, valid_to: datetime, reason: str) -> None: ...

    def retire(self, fact_id: int, reason: str, actor: str | None) -> None:
        """Forget: out of recall and the profile, its value erased; the event is kept."""
        ...


class FactStore(Protocol):
    def fact_writer(self, namespace: str) -> AbstractContextManager[FactWriter]: ...

    def facts(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        subject: str | None = None,
        current_only: bool = True,
        ids: Sequence[int] | None = None,
    ) -> list[Fact]:
        """Facts not forgotten, by priority; with participants, only those they may see."""
        ...

    def fact_search(
        self,
        namespace: str,
        vector: npt.NDArray[np.float32],
        participants: Sequence[str],
        k: int,
        current_only: bool = True,
        asker: str | None = None,
    ) -> list[tuple[Fact, float]]:
        """Visible facts most similar to the vector, with their cosine; the asker's own
        facts are compared as the asker would state them too (the better cosine counts)."""
        ...

    def superseded_episodes(self, namespace: str, episode_ids: Sequence[int]) -> set[int]:
        """Those of the episodes that stated facts, none of which is current any more."""
        ...

    def fact_history(self, namespace: str, fact_id: int) -> list[tuple[str, str, datetime]]: ...


class DiaryStore(Protocol):
    def put_diary(self, namespace: str, new: NewDiaryEntry) -> DiaryEntry:
        """Write the entry, replacing the one of the same kind, key, level and audience."""
        ...

    def diary(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        kind: str | None = None,
        uncompressed: bool = False,
        before: datetime | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[DiaryEntry]: ...

    def diary_vectors(self, namespace: str, ids: Sequence[int]) -> npt.NDArray[np.float32]: ...


class JobStore(Protocol):
    def job_position(self, namespace: str, job: str) -> int:
        """How far a consolidation job got (an episode id; 0 before its first run)."""
        ...

    def set_job_position(self, namespace: str, job: str, position: int) -> None: ...

    def episodes_after(self, namespace: str, after: int, limit: int) -> list[Episode]:
        """Episodes with ids above `after`, in id order, in every audience (for jobs)."""
        ...

    def redact_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        """Replace the text with a redacted one; no earlier text survives in the history."""
        ...


class Store(EpisodeStore, SearchStore, EntityStore, FactStore, DiaryStore, JobStore, Protocol):
    """Everything the engine needs from a backend."""

    @property
    def embedder_name(self) -> str | None: ...

    def bind_embedder(self, name: str, dim: int) -> None:
        """Record the embedder on first use; refuse a different one later."""
        ...

    def compact(self) -> None:
        """Reclaim space; afterwards no index holds words of forgotten memories."""
        ...

    def close(self) -> None: ...
