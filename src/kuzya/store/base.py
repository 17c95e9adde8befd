"""The store port: small protocols the engine depends on, one per concern.

Every method takes the namespace explicitly; nothing crosses it. Adapters are
thread-safe: a background worker and the callers of recall share one store. Every search
takes a `Scope` (the namespace and the participants present, from `Store.scope`) and
returns only memories whose audience includes all of them: the privacy rule is the
store's job, done inside its query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from kuzya.model import (
    Conversation,
    DiaryEntry,
    Entity,
    EntityChange,
    Episode,
    HistoryEvent,
    Mention,
    Message,
    Span,
)

if TYPE_CHECKING:  # the rows a namespace moves in refer to NewEpisode
    from kuzya.store.portable import EntityGraph, KeptEpisode, RestoredEpisode

Hit = tuple[int, float]  # (memory id, score); higher is better


@dataclass(frozen=True)
class Scope:
    """Who is asking: a namespace and the participants present, with the audiences they
    may see resolved once by the store that issued it (`Store.scope`), so the searches of
    one recall do not resolve them again. A snapshot: an audience that appears after it
    was issued is not in it (it can only narrow what is seen); issue one per recall. A
    store refuses a scope another store issued."""

    namespace: str
    participants: frozenset[str]
    audiences: tuple[int, ...] = field(repr=False)
    issuer: object = field(repr=False, compare=False)


@dataclass(frozen=True)
class NewEpisode:
    """A message ready to store: validated, embedded and analysed."""

    message: Message
    vector: npt.NDArray[np.float32]
    terms: str  # space-separated index terms (see kuzya.language.text.terms)
    events: tuple[Span, ...] = ()  # time expressions resolved against the time said
    mentions: tuple[Mention, ...] = ()  # entity mentions found in the text


class Scopes(Protocol):
    def scope(self, namespace: str, participants: Sequence[str]) -> Scope:
        """The participants' view of the namespace (at least one participant)."""
        ...


class EpisodeStore(Scopes, Protocol):
    def add_episodes(self, namespace: str, batch: Sequence[NewEpisode]) -> list[Episode]:
        """Store all or nothing; returns once the transaction has committed, the episodes in
        the batch's order. A message whose key is already stored is not stored again: its
        stored episode takes its place."""
        ...

    def keyed(self, namespace: str, keys: Sequence[str]) -> dict[str, int]:
        """The ids of the episodes stored with these keys (`Message.key`), by key."""
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

    def history(
        self, namespace: str, episode_id: int, participants: Sequence[str] | None = None
    ) -> list[HistoryEvent]:
        """Changes to a memory; with participants, only if they may see it (or saw it)."""
        ...

    def derived_from(self, namespace: str, sources: Sequence[int]) -> list[int]:
        """Episodes made from any of these (assistant replies: `Message.derived_from`)."""
        ...

    def recent_turns(self, scope: Scope, conversation: str, limit: int) -> list[Episode]:
        """The last turns of a conversation that the participants may see, oldest first."""
        ...

    def stats(self, namespace: str) -> dict[str, Any]: ...

    def last_said_at(self, namespace: str) -> datetime | None:
        """When the namespace's newest message was said; None while it has none."""
        ...


class SearchStore(Scopes, Protocol):
    def dense_search(self, scope: Scope, vector: npt.NDArray[np.float32], k: int) -> list[Hit]: ...

    def text_search(self, scope: Scope, terms: Sequence[str], k: int) -> list[Hit]: ...

    def recent_search(self, scope: Scope, k: int) -> list[Hit]: ...

    def matching(self, scope: Scope, terms: Sequence[str]) -> list[int]:
        """Every visible episode whose index terms include all of `terms` (no limit)."""
        ...

    def window_search(self, scope: Scope, start: datetime, end: datetime, k: int) -> list[Hit]:
        """Episodes said in [start, end) or about events overlapping it, newest first."""
        ...

    def fetch(self, scope: Scope, ids: Sequence[int]) -> list[Episode]:
        """Episodes by id, dropping any the participants may not see."""
        ...

    def neighbours(self, scope: Scope, episodes: Sequence[Episode], span: int) -> list[Episode]:
        """Turns within `span` positions of the given ones in their conversations (visible
        to the participants), the given ones excluded."""
        ...

    def vector_of(
        self, namespace: str, ids: Sequence[int]
    ) -> dict[int, npt.NDArray[np.float32]]: ...


class EntityStore(Scopes, Protocol):
    """Every entity row (mention, alias, association, merge or split) carries the audience
    of the episodes it was learned from; every view for participants is computed from
    rows of audiences that include them all (non-interference), and deleting an episode
    takes back what it added."""

    def gazetteer(self, scope: Scope, speaker: str) -> dict[str, str]:
        """Names the participants' visible episodes mention (alias -> entity key), with
        the aliases those episodes taught on top (merged names, then the speaker's own
        "my sister"; the latest wins)."""
        ...

    def graph_search(
        self, scope: Scope, keys: Sequence[str], seeds: Mapping[int, float], now: datetime, k: int
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

    def faded(self, namespace: str, now: datetime, below: float) -> int:
        """How many associations `prune` would drop at `now`, without dropping them."""
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
        """Every audience of the namespace (of episodes, diary entries, recalls), in the
        order they first appeared."""
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
class NewClaim:
    """A claim found in a stored episode: its time and audience are the episode's."""

    episode_id: int
    subject: str
    attribute: str
    value: str
    value_key: str  # the value's index terms, to recognise a repeat said differently
    negated: bool
    statement: str
    origin: str  # "rules" or "llm:<model>"
    vector: npt.NDArray[np.float32]  # of the statement ("ana lives in Lisbon")
    own_vector: npt.NDArray[np.float32]  # as the subject says it ("I live in Lisbon")
    emphatic: bool = False  # said as a habit: "I always order ramen"
    recorded_at: datetime | None = None  # None: now (an import keeps the original time)


@dataclass(frozen=True)
class StoredClaim:
    """A claim as stored, with the time and audience of the episode that made it."""

    id: int
    episode_id: int
    subject: str
    attribute: str
    value: str
    value_key: str
    negated: bool
    statement: str
    said_at: datetime
    audience: frozenset[str]
    origin: str
    recorded_at: datetime
    emphatic: bool = False


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
    created_at: datetime | None = None  # None: now (an import keeps the original time)


class ClaimStore(Protocol):
    """Claims are the rows facts are folded from (`kuzya.facts.view`): each belongs to one
    episode and goes when it goes."""

    def add_claims(self, namespace: str, claims: Sequence[NewClaim]) -> int:
        """Store claims of episodes of the namespace (others are refused); a claim stored
        before (same episode, subject, attribute, value key and negation) is skipped.
        Returns how many were new."""
        ...

    def claims(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None,
        subject: str | None = None,
        episodes: Sequence[int] | None = None,
    ) -> list[StoredClaim]:
        """Claims the participants may see (None: every claim, for administration), in the
        order they were said."""
        ...

    def claim_vectors(
        self, namespace: str, ids: Sequence[int]
    ) -> dict[int, tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]:
        """(statement, own words) vectors of claims by id."""
        ...

    def forget_claims(
        self, namespace: str, ids: Sequence[int], reason: str, actor: str | None
    ) -> int:
        """Delete claims; each leaves a record of its attribute and audience, not its
        words (see `forgotten`). Returns how many were deleted."""
        ...

    def forgotten(
        self, namespace: str, claim_id: int, participants: Sequence[str] | None
    ) -> list[tuple[str, str, datetime]]:
        """("FORGET", reason, time) for a deleted claim the participants may see."""
        ...

    def claims_version(self, namespace: str) -> int:
        """A number that changes whenever the namespace's claims change (for caches)."""
        ...


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
        covering: Sequence[int] | None = None,
        compressed_into: int | None = None,
    ) -> list[DiaryEntry]:
        """Entries oldest first; `covering`: those summarising any of these episodes;
        `compressed_into`: the entries a period entry compresses."""
        ...

    def delete_diary(self, namespace: str, ids: Sequence[int]) -> None: ...

    def stale_diary_sources(self, namespace: str) -> list[int]:
        """The episodes that diary entries cite but that were deleted, or changed after the
        entry was written (a delete or redaction interrupted before its diary was
        rewritten)."""
        ...

    def diary_vectors(self, namespace: str, ids: Sequence[int]) -> npt.NDArray[np.float32]: ...


class JobStore(Protocol):
    def job_position(self, namespace: str, job: str) -> int:
        """How far a consolidation job got (an episode id; 0 before its first run)."""
        ...

    def set_job_position(self, namespace: str, job: str, position: int) -> None: ...

    def sleep_clock(self, namespace: str) -> datetime | None:
        """The time the namespace's latest sleep ran at; None before its first."""
        ...

    def set_sleep_clock(self, namespace: str, now: datetime) -> None:
        """Record the time a sleep runs at; an earlier time than the recorded one is ignored."""
        ...

    def take_lease(self, namespace: str, name: str, holder: str, seconds: float) -> str | None:
        """Hold the namespace's lease `name` for `seconds` (taking it, or renewing it for
        its `holder`); None when taken, else who holds it. A lease past its time, or held
        by a process of this host that is gone, is taken over."""
        ...

    def release_lease(self, namespace: str, name: str, holder: str) -> None: ...

    def episodes_after(self, namespace: str, after: int, limit: int) -> list[Episode]:
        """Episodes with ids above `after`, in id order, in every audience (for jobs)."""
        ...

    def redact_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        """Replace the text with a redacted one; no earlier text survives in the history."""
        ...


class TransferStore(Protocol):
    """A namespace read and written whole (`kuzya.transfer.namespace`), in backend-neutral rows."""

    def kept_episodes(self, namespace: str, after: int, limit: int) -> list[KeptEpisode]:
        """Episodes with ids above `after`, in id order, with their keys and sources."""
        ...

    def entity_graph(self, namespace: str) -> EntityGraph: ...

    def job_positions(self, namespace: str) -> dict[str, int]:
        """Every consolidation job's position, by job."""
        ...

    def add_audiences(self, namespace: str, audiences: Sequence[frozenset[str]]) -> None:
        """Make these audiences, in this order, where they are not yet."""
        ...

    def restore_episodes(self, namespace: str, batch: Sequence[RestoredEpisode]) -> list[int]:
        """Store all or nothing, as `add_episodes` does but with the given times and
        positions; returns the ids, in order (a key already stored keeps its episode)."""
        ...

    def put_entity_graph(self, namespace: str, graph: EntityGraph) -> None:
        """Add the graph's rows to the namespace (its episodes must be stored); rows it
        holds already are kept, so putting one graph twice is putting it once."""
        ...

    def put_conversations(self, namespace: str, conversations: Sequence[Conversation]) -> None:
        """Set these conversations' participants, times and message counts."""
        ...


@dataclass(frozen=True)
class Finding:
    """One check of a whole store: how many rows (or pages) are wrong, and the first
    problem seen."""

    check: str
    problems: int
    detail: str = ""


class Store(
    EpisodeStore, SearchStore, EntityStore, ClaimStore, DiaryStore, JobStore, TransferStore,
    Protocol,
):  # fmt: skip
    """Everything the engine needs from a backend."""

    @property
    def embedder_name(self) -> str | None: ...

    def bind_embedder(self, name: str, dim: int) -> None:
        """Record the embedder on first use; refuse a different one later."""
        ...

    def purge(self) -> None:
        """Afterwards no file of the store holds text of forgotten memories (called once
        at the end of each forgetting: delete, forget, redaction)."""
        ...

    def check(self) -> list[Finding]:
        """Whether the store is whole and its indexes and derived rows agree with the
        messages (every namespace); read-only."""
        ...

    def compact(self) -> None:
        """Purge, and rewrite the store to reclaim the space of deleted rows."""
        ...

    def close(self) -> None: ...
