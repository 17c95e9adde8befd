"""`Memory`: the engine users touch. Ports in through the constructor, one namespace per object."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from kuzya import consolidate, dates, entities, profile, validate
from kuzya import recall as recall_pipeline
from kuzya.embed import DEFAULT_EMBEDDER, Embedder, load_embedder
from kuzya.errors import InvalidInput
from kuzya.facts.forget import Forgotten, forget
from kuzya.facts.schema import ATTRIBUTES, Forget
from kuzya.llm.base import LLM
from kuzya.model import (
    Attachment,
    Conversation,
    DiaryEntry,
    Entity,
    EntityChange,
    Episode,
    Fact,
    HistoryEvent,
    Message,
    Recall,
    RecallItem,
)
from kuzya.ner import NER
from kuzya.profile import Profile
from kuzya.recall import RecallSettings
from kuzya.sleep import Sleeper, SleepReport
from kuzya.store.base import NewEpisode, Store
from kuzya.store.sqlite import SQLiteStore
from kuzya.text import terms
from kuzya.worker import SleepWorker

DEFAULT_CONVERSATION = "default"
BATCH = 256  # messages per transaction in remember_many
MAX_LIMIT = 1000


class Memory:
    """Long-term memory for one namespace: remember messages, recall what matters.

    >>> with Memory.open("kuzya.db", namespace="demo") as memory:   # doctest: +SKIP
    ...     memory.remember("I moved to Lisbon", speaker="ana", participants=["ana"])
    ...     memory.recall("where does Ana live?", participants=["ana"]).as_prompt()
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        namespace: str = "default",
        settings: RecallSettings | None = None,
        llm: LLM | None = None,
        ner: NER | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.llm = llm  # used by sleep for facts and the diary; None: rules and extracts
        self.ner = ner  # used by sleep to find and type names; None: the rules' names only
        self.namespace = validate.name(namespace, "namespace")
        self.settings = settings or RecallSettings()
        self.worker: SleepWorker | None = None
        store.bind_embedder(embedder.name, embedder.dim)

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        namespace: str = "default",
        embedder: str | Embedder = DEFAULT_EMBEDDER,
        durable: bool = True,
        settings: RecallSettings | None = None,
        llm: LLM | None = None,
        ner: NER | None = None,
    ) -> Memory:
        """Open (or create) a SQLite store file with the default multilingual embedder."""
        model = load_embedder(embedder) if isinstance(embedder, str) else embedder
        return cls(
            SQLiteStore(path, durable=durable),
            model,
            namespace=namespace,
            settings=settings,
            llm=llm,
            ner=ner,
        )

    def close(self) -> None:
        """Stop the background worker (after its last run) and close the store."""
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- remember ------------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        speaker: str,
        conversation: str = DEFAULT_CONVERSATION,
        participants: Sequence[str] | None = None,
        time: datetime | str | None = None,
        attachments: Sequence[Attachment | Mapping[str, Any]] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Episode:
        """Store one message; returns after it is committed. Participants default to the speaker."""
        message = validate.message(
            text,
            speaker=speaker,
            conversation=conversation,
            participants=participants,
            time=time,
            attachments_=attachments,
            metadata_=metadata,
        )
        return self._store([message])[0]

    def remember_many(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[Episode]:
        """Store many messages, validated first, committed in batches of 256 (in order)."""
        checked = [self._message(m, i) for i, m in enumerate(messages)]
        stored: list[Episode] = []
        for start in range(0, len(checked), BATCH):
            stored.extend(self._store(checked[start : start + BATCH]))
        return stored

    def _message(self, value: Message | Mapping[str, Any], index: int) -> Message:
        try:
            if isinstance(value, Message):
                return validate.message(
                    value.text,
                    speaker=value.speaker,
                    conversation=value.conversation,
                    participants=value.participants or None,
                    time=value.time,
                    attachments_=value.attachments,
                    metadata_=value.metadata,
                )
            if not isinstance(value, Mapping):
                raise InvalidInput(f"expected a Message or a dict, not {type(value).__name__}")
            unknown = set(value) - {
                "text",
                "speaker",
                "conversation",
                "participants",
                "time",
                "attachments",
                "metadata",
            }
            if unknown:
                raise InvalidInput(f"unknown fields {sorted(unknown)}")
            if "speaker" not in value or "text" not in value:
                raise InvalidInput("a message needs 'text' and 'speaker'")
            return validate.message(
                value["text"],
                speaker=value["speaker"],
                conversation=value.get("conversation", DEFAULT_CONVERSATION),
                participants=value.get("participants"),
                time=value.get("time"),
                attachments_=value.get("attachments"),
                metadata_=value.get("metadata"),
            )
        except InvalidInput as exc:
            raise InvalidInput(f"message {index}: {exc}") from exc

    def _store(self, messages: Sequence[Message]) -> list[Episode]:
        vectors = self.embedder.embed([m.content for m in messages])
        # The names each speaker's messages may resolve: those visible to the message's
        # own audience, and those later messages of the batch said before them.
        known: dict[tuple[str, frozenset[str]], dict[str, str]] = {}
        batch = []
        for message, vector in zip(messages, vectors, strict=True):
            audience = frozenset(message.participants)
            if (message.speaker, audience) not in known:
                known[message.speaker, audience] = self.store.gazetteer(
                    self.namespace, message.speaker, sorted(audience)
                )
            new = self._analysed(message, vector, known[message.speaker, audience])
            batch.append(new)
            for (speaker, viewers), names in known.items():
                if not viewers <= audience:
                    continue
                for mention in new.mentions:
                    names.setdefault(mention.key, mention.key)
                    if mention.relation and speaker == message.speaker:
                        names[f"my {mention.relation}"] = mention.key
        stored = self.store.add_episodes(self.namespace, batch)
        if self.worker is not None:
            self.worker.notify(len(stored))
        return stored

    @staticmethod
    def _analysed(message: Message, vector: Any, known: Mapping[str, str]) -> NewEpisode:
        """What the hot path derives from a message: terms, dates and entity mentions."""
        return NewEpisode(
            message,
            vector,
            " ".join(terms(message.content)),
            tuple(dates.find(message.text, message.time)),
            tuple(entities.mentions(message.content, known)),
        )

    # -- recall --------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        participants: Sequence[str],
        now: datetime | str | None = None,
        conversation: str | None = None,
        speaker: str | None = None,
        limit: int = 20,
        budget_words: int | None = 400,
    ) -> Recall:
        """What the participants present may be reminded of, best first, within a word budget.

        Only memories whose audience includes every participant are considered. With a
        `conversation`, its last turns (working memory) give short or pronoun-only
        queries their context and are left out of the result. `speaker`, the one asking,
        resolves their own aliases ("my sister").
        """
        text = validate.text(query, "query")
        present = validate.names(participants, "participants")
        limit = validate.positive(limit, "limit", MAX_LIMIT)
        if budget_words is not None:
            budget_words = validate.positive(budget_words, "budget_words", 1_000_000)
        return recall_pipeline.run(
            self.store,
            self.embedder,
            self.namespace,
            text,
            participants=present,
            now=validate.moment(now, "now"),
            conversation=None
            if conversation is None
            else validate.name(conversation, "conversation"),
            speaker=None if speaker is None else validate.name(speaker, "speaker"),
            limit=limit,
            budget_words=budget_words,
            settings=self.settings,
        )

    # -- Mem0-style surface over the same engine ---------------------------------------

    def add(
        self,
        text: str,
        *,
        user_id: str,
        conversation: str | None = None,
        time: datetime | str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Episode:
        """Remember something a user said, visible to that user alone."""
        return self.remember(
            text,
            speaker=user_id,
            conversation=conversation or f"user:{user_id}",
            participants=[user_id],
            time=time,
            metadata=metadata,
        )

    def search(self, query: str, *, user_id: str, limit: int = 10) -> list[RecallItem]:
        """The user's memories best matching the query (no word budget)."""
        return list(self.recall(query, participants=[user_id], limit=limit, budget_words=None))

    def get(self, memory_id: int) -> Episode:
        return self.store.get_episode(self.namespace, validate.memory_id(memory_id))

    def get_all(
        self,
        *,
        user_id: str | None = None,
        conversation: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]:
        """Memories in time order; with `user_id`, only those that user may see."""
        return self.store.list_episodes(
            self.namespace,
            participants=None if user_id is None else [validate.name(user_id, "user_id")],
            conversation=None
            if conversation is None
            else validate.name(conversation, "conversation"),
            limit=validate.positive(limit, "limit", 100_000),
            offset=validate.offset(offset),
        )

    def update(self, memory_id: int, text: str, *, actor: str | None = None) -> Episode:
        """Replace a memory's text (re-indexed); the old text stays in its history."""
        who = validate.actor(actor)
        episode = self.get(memory_id)
        message = Message(
            text=validate.text(text),
            speaker=episode.speaker,
            conversation=episode.conversation,
            participants=tuple(episode.audience),
            time=episode.said_at,
            attachments=episode.attachments,
        )
        new = self._analysed(
            message,
            self.embedder.embed([message.content])[0],
            self.store.gazetteer(self.namespace, message.speaker, message.participants),
        )
        return self.store.update_episode(self.namespace, episode.id, new, who)

    def delete(self, memory_id: int, *, actor: str | None = None) -> None:
        """Forget a memory: its text leaves every index and the history keeps only the event.
        (The full-text index drops the words from its old segments at `compact()`.)"""
        self.store.delete_episode(
            self.namespace, validate.memory_id(memory_id), validate.actor(actor)
        )

    def history(self, memory_id: int) -> list[HistoryEvent]:
        return self.store.history(self.namespace, validate.memory_id(memory_id))

    def conversations(self, *, participants: Sequence[str] | None = None) -> list[Conversation]:
        """Conversations, most recent first; with participants, those they all took part in."""
        present = None if participants is None else validate.names(participants, "participants")
        return self.store.conversations(self.namespace, present)

    def reinforce(self, recall: Recall, *, participants: Sequence[str]) -> None:
        """Recalled together and used together: strengthen the associations among the
        entities of these items (call it when a reply used the recall)."""
        present = validate.names(participants, "participants")
        ids = [source for item in recall.items for source in item.sources]
        self.store.reinforce(self.namespace, ids, present, recall.now)

    def entities(self, *, participants: Sequence[str] | None = None) -> list[Entity]:
        """Entities the participants' visible memories mention, with the aliases and
        mention counts those show; without participants, an admin listing of everything
        in the namespace."""
        present = None if participants is None else validate.names(participants, "participants")
        return self.store.entities(self.namespace, present)

    def merge_entities(self, *, min_cosine: float = 0.25) -> list[EntityChange]:
        """Merge two names of one entity ("Mel" and "Melanie"); each merge is recorded."""
        return consolidate.merge_entities(self.store, self.namespace, min_cosine)

    def split_entities(self, *, margin: float = 0.35) -> list[EntityChange]:
        """Split a name used for two entities ("Sam from accounting", "my nephew Sam")."""
        return consolidate.split_entities(self.store, self.namespace, self.embedder, margin)

    def merge_entity_into(self, source: int, target: int, *, reason: str) -> EntityChange:
        """Merge one entity into another by hand (also undoes a split)."""
        return self.store.merge_entities(
            self.namespace,
            validate.memory_id(source),
            validate.memory_id(target),
            validate.text(reason, "reason"),
        )

    def unmerge_entities(self, change_id: int) -> EntityChange:
        """Undo a merge made by `merge_entities`."""
        return self.store.unmerge_entities(self.namespace, validate.memory_id(change_id))

    def prune(self, *, now: datetime | str | None = None, below: float = 0.05) -> int:
        """Drop associations that decayed below `below`; returns how many were dropped."""
        return self.store.prune(self.namespace, validate.moment(now, "now"), below)

    # -- facts, profile, diary and sleep (the cold path) ---------------------------------

    def facts(
        self,
        *,
        subject: str | None = None,
        participants: Sequence[str] | None = None,
        include_past: bool = False,
    ) -> list[Fact]:
        """Facts found so far (see `sleep`), by priority; with participants, those they may
        see; with `include_past`, also those a newer statement closed."""
        return self.store.facts(
            self.namespace,
            participants=None
            if participants is None
            else validate.names(participants, "participants"),
            subject=None if subject is None else validate.name(subject, "subject"),
            current_only=not include_past,
        )

    def fact_history(self, fact_id: int) -> list[tuple[str, str, datetime]]:
        """(event, detail, time) of a fact: ADD, STRENGTHEN, CLOSE, FORGET."""
        return self.store.fact_history(self.namespace, validate.memory_id(fact_id))

    def profile(self, subject: str, *, participants: Sequence[str] | None = None) -> Profile:
        """The subject's current facts, most important first, that the participants
        (by default the subject alone) may see."""
        who = validate.name(subject, "subject")
        present = [who] if participants is None else validate.names(participants, "participants")
        return profile.build(who, self.store.facts(self.namespace, participants=present))

    def forget(
        self,
        subject: str,
        *,
        attribute: str | None = None,
        about: str | None = None,
        everything: bool = False,
        actor: str | None = None,
    ) -> Forgotten:
        """Forget what `subject` said: their facts of an `attribute` ("address"), about
        something ("Tom"), both ("lives_in", "Lisbon"), or with `everything=True` every fact
        about them. The facts are retired and the sentences that stated them cut from the
        subject's own messages; the history keeps only that something was forgotten."""
        who = validate.name(subject, "subject")
        if attribute is None and about is None and not everything:
            raise InvalidInput("forget needs attribute=, about=, or everything=True")
        if attribute is not None and attribute not in ATTRIBUTES:
            raise InvalidInput(f"unknown attribute {attribute!r}; known: {', '.join(ATTRIBUTES)}")
        request = Forget(who, attribute, None if about is None else validate.text(about, "about"))
        return forget(
            self.store, self.namespace, request, [who], validate.actor(actor), self._redact
        )

    def _redact(self, episode: Episode, text: str) -> None:
        message = Message(
            text=text,
            speaker=episode.speaker,
            conversation=episode.conversation,
            participants=tuple(episode.audience),
            time=episode.said_at,
        )
        new = self._analysed(
            message,
            self.embedder.embed([text])[0],
            self.store.gazetteer(self.namespace, episode.speaker, message.participants),
        )
        self.store.redact_episode(self.namespace, episode.id, new, None)

    def diary(self, *, participants: Sequence[str], kind: str | None = None) -> list[DiaryEntry]:
        """Diary entries the participants may see, oldest first ("conversation", "day",
        "period")."""
        return self.store.diary(
            self.namespace, participants=validate.names(participants, "participants"), kind=kind
        )

    def sleep(self, *, now: datetime | str | None = None) -> SleepReport:
        """Consolidate what was remembered since the last sleep: facts, forget requests,
        diary, names found by the NER model (if any), entity merge and split, decay and
        pruning, compression of old entries."""
        sleeper = Sleeper(
            self.store, self.embedder, self.namespace, self._redact, self.llm, self.ner
        )
        return sleeper.run(validate.moment(now, "now"))

    def start_worker(self, *, every: int = 50, idle_seconds: float = 30.0) -> SleepWorker:
        """Sleep in a background thread after `every` messages, or after `idle_seconds`
        without messages while some are pending. `close()` stops it."""
        if self.worker is None:
            self.worker = SleepWorker(
                lambda now: self.sleep(now=now), every=every, idle_seconds=idle_seconds
            )
        return self.worker

    def compact(self) -> None:
        """Rewrite indexes and the file (all namespaces): forgotten words are purged."""
        self.store.compact()

    def stats(self) -> dict[str, Any]:
        return self.store.stats(self.namespace)

    def with_settings(self, **changes: Any) -> Memory:
        """The same store and embedder with other recall settings (for tuning and benchmarks)."""
        clone = object.__new__(Memory)
        clone.__dict__.update(self.__dict__)
        clone.settings = replace(self.settings, **changes)
        return clone
