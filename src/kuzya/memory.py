"""`Memory`: the engine users touch. Ports in through the constructor, one namespace per object."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from kuzya import remember, validate
from kuzya.config import default_db
from kuzya.config import settings as read_settings
from kuzya.embed import Embedder, load_embedder
from kuzya.entities import merge
from kuzya.entities.ner import NER, ModelNER
from kuzya.errors import InvalidInput, NotFound
from kuzya.facts import profile
from kuzya.facts.claims import DIGEST
from kuzya.facts.claims import record as record_claims
from kuzya.facts.extract import rule_claims
from kuzya.facts.profile import Profile
from kuzya.facts.schema import Forget
from kuzya.facts.view import FactViews
from kuzya.forgetting import Eraser, Forgotten
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
from kuzya.recall import pipeline
from kuzya.recall.pipeline import RecallSettings
from kuzya.sleep import diary
from kuzya.sleep.sleeper import Sleeper, SleepReport
from kuzya.sleep.worker import Consolidation, SleepWorker
from kuzya.store.base import Store
from kuzya.store.opening import is_url, open_store

DEFAULT_CONVERSATION = "default"
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
        self.embedder = validate.instance(embedder, Embedder, "embedder")
        # used by sleep for facts and the diary; None: rules and extracts
        self.llm = None if llm is None else validate.instance(llm, LLM, "llm")
        # used by sleep to find and type names; None: the rules' names only
        self.ner = None if ner is None else validate.instance(ner, NER, "ner")
        self.namespace = validate.name(namespace, "namespace")
        self.settings = (
            RecallSettings()
            if settings is None
            else validate.instance(settings, RecallSettings, "settings")
        )
        self.worker: Consolidation | None = None
        store.bind_embedder(embedder.name, embedder.dim)
        self.views = FactViews(store, self.namespace)  # facts as each set of people sees them
        self.eraser = Eraser(store, embedder, self.namespace)

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        *,
        namespace: str | None = None,
        embedder: str | Embedder | None = None,
        durable: bool | None = None,
        settings: RecallSettings | None = None,
        llm: str | LLM | None = None,
        ner: bool | NER | None = None,
        create: bool = True,
        read_only: bool | None = None,
    ) -> Memory:
        """Open a store: a SQLite file (checked before any model loads), created if
        `create`, read-only if `read_only` or when it cannot be written; or a PostgreSQL
        database named by its URL (`postgresql://…`). What is not given
        comes from KUZYA_* variables (`kuzya.config`); `llm` is the model sleep uses
        (KUZYA_SLEEP_LLM, else KUZYA_LLM), `llm="none"` consolidates by rules."""
        url = path is not None and is_url(str(path))
        config = read_settings(
            db=None if url else path,
            namespace=namespace,
            embedder=embedder if isinstance(embedder, str) else None,
            durable=durable,
            sleep_llm=llm if isinstance(llm, str) else None,
            ner=ner if isinstance(ner, bool) else None,
        )
        location = config.store if path is None else str(path) if url else config.db
        if location == default_db() and create:
            config.db.parent.mkdir(parents=True, exist_ok=True)
        store = open_store(location, durable=config.durable, create=create, read_only=read_only)
        try:
            if embedder is None or isinstance(embedder, str):
                embedder = load_embedder(config.embedder)
            if llm is None or isinstance(llm, str):
                llm = config.load_llm(config.sleeps_with)
            if ner is None or isinstance(ner, bool):
                ner = ModelNER() if config.ner else None
            return cls(
                store, embedder, namespace=config.namespace, settings=settings, llm=llm, ner=ner
            )
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        """Stop the background worker (after its last run) and close the store."""
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc_info: object) -> None:
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
        derived_from: Sequence[int] | None = None,
    ) -> Episode:
        """Store one message; returns after it is committed. Participants default to the
        speaker. A request to forget ("forget my address") is carried out before this
        returns, and stored without the things it forgets. `derived_from`: the memories a
        reply was made from (they must be visible to its participants); forgetting one of
        them forgets the reply."""
        message = validate.message(
            text,
            speaker=speaker,
            conversation=conversation,
            participants=participants,
            time=time,
            attachments_=attachments,
            metadata_=metadata,
            derived_from=derived_from,
        )
        return self._store([message])[0]

    def remember_many(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[Episode]:
        """Store many messages, validated first, committed in batches of 256 (in order)."""
        return self._store(validate.messages(messages, DEFAULT_CONVERSATION))

    def _store(self, messages: Sequence[Message]) -> list[Episode]:
        stored = remember.store_messages(
            self.store, self.embedder, self.namespace, self.eraser, messages
        )
        if self.worker is not None:
            self.worker.notify(len(stored))
        return stored

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
        limit = validate.integer(limit, "limit", 1, MAX_LIMIT)
        if budget_words is not None:
            budget_words = validate.integer(budget_words, "budget_words", 1, 1_000_000)
        return pipeline.run(
            self.store,
            self.embedder,
            self.store.scope(self.namespace, present),
            text,
            now=validate.moment(now, "now"),
            conversation=None
            if conversation is None
            else validate.name(conversation, "conversation"),
            speaker=None if speaker is None else validate.name(speaker, "speaker"),
            limit=limit,
            budget_words=budget_words,
            settings=self.settings,
            facts=self.views.view(present),
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
        participants: Sequence[str] | None = None,
        conversation: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]:
        """Memories in time order that `user_id` (or all of `participants`) may see; with
        neither, every memory of the namespace (an administrator's listing)."""
        if user_id is not None:
            participants = [validate.name(user_id, "user_id")]
        return self.store.list_episodes(
            self.namespace,
            participants=None
            if participants is None
            else validate.names(participants, "participants"),
            conversation=None
            if conversation is None
            else validate.name(conversation, "conversation"),
            limit=validate.integer(limit, "limit", 1, 100_000),
            offset=validate.integer(offset, "offset", 0, validate.MAX_ID),
        )

    def update(self, memory_id: int, text: str, *, actor: str | None = None) -> Episode:
        """Replace a memory's text (re-indexed); the old text stays in its history. What
        was derived from it is derived again: its claims (by the rules, if sleep had read
        it) and the diary entries that summarised it."""
        who = validate.actor(actor)
        episode = self.get(memory_id)
        message = episode.retold(validate.text(text))
        old = self.store.claims(self.namespace, participants=None, episodes=[episode.id])
        self.store.forget_claims(
            self.namespace, [c.id for c in old], f"memory {episode.id} was updated", who
        )
        new = remember.analysed_one(self.store, self.embedder, self.namespace, message)
        updated = self.store.update_episode(self.namespace, episode.id, new, who)
        if episode.id <= self.store.job_position(self.namespace, DIGEST):
            record_claims(self.store, self.namespace, self.embedder, rule_claims([updated]))
        diary.rebuild(self.store, self.namespace, self.embedder, [episode.id])
        return updated

    def delete(self, memory_id: int, *, actor: str | None = None) -> None:
        """Forget a memory and everything made from it: its claims (the facts it alone
        stated), the diary's words about it, the assistant replies made from it. Its text
        leaves every index, and when this returns it is in none of the store's files; the
        history keeps only that it was deleted. A delete that was interrupted is finished
        by the next delete or forget."""
        self.eraser.mend()
        self.eraser.delete([validate.memory_id(memory_id)], validate.actor(actor))
        self.store.purge()

    def history(
        self, memory_id: int, *, participants: Sequence[str] | None = None
    ) -> list[HistoryEvent]:
        """Changes to a memory that the participants may see (without participants: an
        administrator's view)."""
        present = None if participants is None else validate.names(participants, "participants")
        return self.store.history(self.namespace, validate.memory_id(memory_id), present)

    def conversations(self, *, participants: Sequence[str] | None = None) -> list[Conversation]:
        """Conversations, most recent first; with participants, those they all took part in."""
        present = None if participants is None else validate.names(participants, "participants")
        return self.store.conversations(self.namespace, present)

    def reinforce(self, recall: Recall, *, participants: Sequence[str]) -> None:
        """Recalled together and used together: strengthen the associations among the
        entities of these items (call it when a reply used the recall)."""
        present = validate.names(participants, "participants")
        recalled = validate.instance(recall, Recall, "recall")
        ids = [source for item in recalled.items for source in item.sources]
        self.store.reinforce(self.namespace, ids, present, recall.now)

    def entities(self, *, participants: Sequence[str] | None = None) -> list[Entity]:
        """Entities the participants' visible memories mention, with the aliases and
        mention counts those show; without participants, an admin listing of everything
        in the namespace."""
        present = None if participants is None else validate.names(participants, "participants")
        return self.store.entities(self.namespace, present)

    def merge_entities(self, *, min_cosine: float = 0.25) -> list[EntityChange]:
        """Merge two names of one entity ("Mel" and "Melanie"); each merge is recorded."""
        threshold = validate.number(min_cosine, "min_cosine", -1.0, 1.0)
        return merge.merge_entities(self.store, self.namespace, threshold)

    def split_entities(self, *, margin: float = 0.35) -> list[EntityChange]:
        """Split a name used for two entities ("Sam from accounting", "my nephew Sam")."""
        apart = validate.number(margin, "margin", 0.0, 2.0)
        return merge.split_entities(self.store, self.namespace, self.embedder, apart)

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
        threshold = validate.number(below, "below", 0.0, validate.MAX_WEIGHT)
        return self.store.prune(self.namespace, validate.moment(now, "now"), threshold)

    # -- facts, profile, diary and sleep (the cold path) ---------------------------------

    def facts(
        self,
        *,
        subject: str | None = None,
        participants: Sequence[str] | None = None,
        include_past: bool = False,
    ) -> list[Fact]:
        """Facts as the participants see them (folded from the messages they may see), by
        priority; with `include_past`, also those a newer statement closed. Without
        participants: folded from every message, an administrator's view."""
        present = None if participants is None else validate.names(participants, "participants")
        who = None if subject is None else validate.name(subject, "subject")
        past = validate.flag(include_past, "include_past")
        return self.views.view(present).select(subject=who, current_only=not past)

    def fact_history(
        self, fact_id: int, *, participants: Sequence[str] | None = None
    ) -> list[tuple[str, str, datetime]]:
        """(event, detail, time) of a fact as the participants see it: ADD, STRENGTHEN,
        CLOSE, and FORGET once forgotten (without participants: an administrator's view)."""
        present = None if participants is None else validate.names(participants, "participants")
        number = validate.memory_id(fact_id)
        events = [
            *self.views.view(present).history(number),
            *self.store.forgotten(self.namespace, number, present),
        ]
        if not events:
            raise NotFound(f"no fact {number} in namespace {self.namespace!r}")
        return events

    def profile(
        self,
        subject: str,
        *,
        participants: Sequence[str] | None = None,
        now: datetime | str | None = None,
    ) -> Profile:
        """The subject's current facts, most important first, as the participants (by
        default the subject alone) see them at `now` (by default the current time): plans
        whose dates have passed are left out."""
        who = validate.name(subject, "subject")
        present = [who] if participants is None else validate.names(participants, "participants")
        moment = validate.moment(now, "now")
        return profile.build(who, self.views.view(present).select(subject=who, now=moment))

    def forget(
        self,
        subject: str,
        *,
        attribute: str | None = None,
        about: str | None = None,
        everything: bool = False,
        participants: Sequence[str] | None = None,
        actor: str | None = None,
    ) -> Forgotten:
        """Forget what `subject` said: their facts of an `attribute` ("address"), about
        something ("Tom"), both ("lives_in", "Lisbon"), or with `everything=True` every fact
        about them, wherever the participants (by default the subject alone, so every
        conversation they were in) may see it. The facts' claims are deleted, the sentences
        that stated them are cut from the subject's own messages and from the assistant's
        replies, and replies made from those messages are deleted; the history keeps only
        that something was forgotten. A forget that was interrupted is finished by running
        it again."""
        who = validate.name(subject, "subject")
        if attribute is None and about is None and not validate.flag(everything, "everything"):
            raise InvalidInput("forget needs attribute=, about=, or everything=True")
        request = Forget(
            who,
            None if attribute is None else validate.attribute(attribute),
            None if about is None else validate.text(about, "about"),
        )
        scope = [who] if participants is None else validate.names(participants, "participants")
        self.eraser.mend()
        done = self.eraser.forget(request, scope, validate.actor(actor))
        self.store.purge()
        return done

    def diary(self, *, participants: Sequence[str], kind: str | None = None) -> list[DiaryEntry]:
        """Diary entries the participants may see, oldest first ("conversation", "day",
        "period")."""
        present = validate.names(participants, "participants")
        chosen = None if kind is None else validate.choice(kind, "kind", diary.KINDS)
        return self.store.diary(self.namespace, participants=present, kind=chosen)

    def sleep(
        self, *, now: datetime | str | None = None, jump: bool = False, wait: bool = False
    ) -> SleepReport:
        """Consolidate what was remembered since the last sleep: facts, forget requests,
        diary, names found by the NER model (if any), entity merge and split, decay and
        pruning, compression of old entries. `now` (by default the current time) moves
        forward only; one more than a year past the newest message or sleep needs `jump`.
        While another sleep of the namespace runs, this one waits for it if `wait`, else
        returns at once (`report.skipped` says why)."""
        sleeper = Sleeper(
            self.store, self.embedder, self.namespace, self.eraser, self.llm, self.ner
        )
        when = None if now is None else validate.moment(now, "now")
        report = sleeper.run(
            when, jump=validate.flag(jump, "jump"), wait=validate.flag(wait, "wait")
        )
        if report.forgotten:
            self.store.purge()
        return report

    def start_worker(self, *, every: int = 50, idle_seconds: float = 30.0) -> SleepWorker:
        """Sleep in a background thread after `every` messages, or after `idle_seconds`
        without messages while some are pending. `close()` stops it."""
        if not isinstance(self.worker, SleepWorker):
            every = validate.integer(every, "every", 1, 1_000_000)
            idle = validate.number(idle_seconds, "idle_seconds", 0.1, 86_400.0)
            self.consolidate_through(SleepWorker(self.sleep, every=every, idle_seconds=idle))
        return cast(SleepWorker, self.worker)

    def consolidate_through(self, worker: Consolidation) -> None:
        """Tell `worker` of every batch remembered from now on (instead of any worker
        before it, which is stopped); `close()` stops it."""
        if self.worker is not None:
            self.worker.stop()
        self.worker = worker

    def compact(self) -> None:
        """Rewrite indexes and the file (all namespaces): forgotten words are purged."""
        self.store.compact()

    def stats(self) -> dict[str, Any]:
        return self.store.stats(self.namespace)

    def with_settings(self, **changes: Any) -> Memory:
        """The same store and embedder with other recall settings (for tuning and benchmarks)."""
        clone = object.__new__(Memory)
        clone.__dict__.update(self.__dict__)
        clone.settings = validate.changed(self.settings, changes, "recall setting")
        return clone
