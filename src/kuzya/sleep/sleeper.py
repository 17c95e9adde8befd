"""Sleep: the cold path. Idempotent jobs over what was remembered since the last run:
claims (rules, plus one LLM call per chunk when a model is given) from which facts are
folded, diary entries, names found by a NER model (when one is given), entity merge and split,
association decay and pruning, and compression of old diary entries.
Remember and recall never wait for it.

Sleep's time moves forward only, and a jump of more than a year past what the memory has
seen must be asked for: decay and compression at that time cannot be undone."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from kuzya.clock import utcnow
from kuzya.embed.base import Embedder
from kuzya.entities import merge
from kuzya.entities.ner import NER
from kuzya.entities.recognise import recognise
from kuzya.errors import InvalidInput
from kuzya.facts import extract
from kuzya.facts.claims import DIGEST, record
from kuzya.forgetting import Eraser
from kuzya.llm.base import LLM
from kuzya.model import Episode, is_assistant
from kuzya.sleep import diary
from kuzya.store.base import Store

SPLIT = "split"  # the last episode id whose names were checked for two bearers
BATCH = 500
PRUNE_BELOW = 0.05  # an association whose decayed weight falls below this is dropped
JUMP = timedelta(days=366)  # a sleep further past the memory's present needs `jump`
LEASE = "sleep"  # one sleep at a time per namespace
LEASE_SECONDS = 3600.0  # renewed after each batch; a crashed holder's is taken over


@dataclass
class SleepReport:
    """What one sleep did, and what it cost."""

    episodes: int = 0
    claims: int = 0  # new claims, from which facts are folded
    forgotten: int = 0  # messages redacted or deleted by forget requests the model found
    diary: int = 0
    merged: int = 0
    split: int = 0
    pruned: int = 0
    compressed: int = 0
    ner_mentions: int = 0  # links to names the rules missed, added by the NER job
    typed: int = 0  # entities the NER job told to be a person, place or organisation
    llm: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    skipped: str = ""  # why this sleep did nothing (another one was running)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Sleeper:
    store: Store
    embedder: Embedder
    namespace: str
    eraser: Eraser  # carries out the forget requests the model finds
    llm: LLM | None = None
    ner: NER | None = None  # None: the entities job is skipped

    def run(self, now: datetime | None, *, jump: bool = False, wait: bool = False) -> SleepReport:
        """Sleep at `now`, by default the current time (or the last sleep's, if that is
        later). A given `now` earlier than the last sleep's is refused, and so is one more
        than a year past the newest message or sleep unless `jump` says so; the refusal
        tells what such a sleep would prune and compress. Nothing is written before.
        One sleep runs at a time per namespace: while another runs, this one waits for
        it if `wait`, else returns at once, its report saying so."""
        holder = uuid.uuid4().hex
        while busy := self.store.take_lease(self.namespace, LEASE, holder, LEASE_SECONDS):
            if not wait:
                return SleepReport(
                    skipped=f"another sleep of namespace {self.namespace!r} is running ({busy})"
                )
            time.sleep(0.5)
        try:
            return self._run(now, jump, holder)
        finally:
            self.store.release_lease(self.namespace, LEASE, holder)

    def _run(self, now: datetime | None, jump: bool, holder: str) -> SleepReport:
        now = self._clock(now, jump)
        started, report = time.monotonic(), SleepReport()
        before = self.llm.meter.snapshot() if self.llm else {}
        while episodes := self.store.episodes_after(
            self.namespace, self.store.job_position(self.namespace, DIGEST), BATCH
        ):
            self._digest(episodes, report)
            self.store.set_job_position(self.namespace, DIGEST, episodes[-1].id)
            report.episodes += len(episodes)
            self.store.take_lease(self.namespace, LEASE, holder, LEASE_SECONDS)
        if self.ner is not None:
            report.ner_mentions, report.typed = recognise(self.store, self.namespace, self.ner)
        report.merged = len(merge.merge_entities(self.store, self.namespace, 0.25))
        report.split = self._split()
        report.pruned = self.store.prune(self.namespace, now, PRUNE_BELOW)
        report.compressed = len(
            diary.compress(self.store, self.namespace, self.embedder, self.llm, now)
        )
        if self.llm:
            after = self.llm.meter.snapshot()
            report.llm = {key: after[key] - before.get(key, 0) for key in after}
        report.seconds = round(time.monotonic() - started, 3)
        return report

    def _clock(self, now: datetime | None, jump: bool) -> datetime:
        """The time this sleep runs at, recorded before anything is written with it."""
        last = self.store.sleep_clock(self.namespace)
        if now is None:
            now = utcnow() if last is None else max(utcnow(), last)
        elif last is not None and now < last:
            raise InvalidInput(
                f"sleep's now {_shown(now)} is earlier than the last sleep of namespace "
                f"{self.namespace!r} ({_shown(last)}): sleep's time moves forward only"
            )
        elif not jump:
            self._refuse_jump(now, last)
        self.store.set_sleep_clock(self.namespace, now)
        return now

    def _refuse_jump(self, now: datetime, last: datetime | None) -> None:
        """Refuse a `now` more than a year past the newest message or sleep, telling how
        many associations would be pruned and diary entries (of those written so far)
        compressed: counted, not done."""
        seen = [t for t in (self.store.last_said_at(self.namespace), last) if t is not None]
        present = max(seen, default=now)
        if now - present <= JUMP:
            return
        pruned = self.store.faded(self.namespace, now, PRUNE_BELOW)
        compressed = len(diary.compressible(self.store, self.namespace, now))
        raise InvalidInput(
            f"sleep's now {_shown(now)} is {(now - present).days:,} days after the newest "
            f"message or sleep of namespace {self.namespace!r} ({_shown(present)}): it would "
            f"prune {pruned} associations and compress {compressed} diary entries for good; "
            "to sleep at that time anyway, pass jump=True (kuzya sleep --jump)"
        )

    def _split(self) -> int:
        """Check the names mentioned since the last check for two bearers."""
        checked = self.store.job_position(self.namespace, SPLIT)
        latest = self.store.job_position(self.namespace, DIGEST)
        changes = merge.split_entities(
            self.store, self.namespace, self.embedder, 0.35, since=checked
        )
        self.store.set_job_position(self.namespace, SPLIT, latest)
        return len(changes)

    def _digest(self, episodes: Sequence[Episode], report: SleepReport) -> None:
        by_audience: dict[frozenset[str], list[Episode]] = defaultdict(list)
        for episode in episodes:
            by_audience[episode.audience].append(episode)
        days: set[tuple[str, frozenset[str]]] = set()
        for audience, group in by_audience.items():
            first = {c: i for i, c in enumerate(dict.fromkeys(e.conversation for e in group))}
            group.sort(key=lambda e: (first[e.conversation], e.id))  # conversations together
            summaries: dict[str, list[str]] = defaultdict(list)
            for chunk in extract.chunks(group):
                spoken = [e for e in chunk if not is_assistant(e)]
                result = extract.digest(spoken, self.llm)
                report.claims += record(self.store, self.namespace, self.embedder, result.found)
                for episode, request in result.forget:
                    done = self.eraser.forget(
                        request, sorted(episode.audience), episode.speaker, episode
                    )
                    report.forgotten += done.redacted + done.deleted
                for conversation, summary in result.summaries.items():
                    summaries[conversation].append(summary)
            for conversation in dict.fromkeys(e.conversation for e in group):
                self._write_diary(conversation, audience, summaries.get(conversation, []))
                report.diary += 1
            days.update((e.said_at.strftime("%Y-%m-%d"), audience) for e in group)
        for day, audience in sorted(days, key=lambda d: d[0]):
            diary.write_day(self.store, self.namespace, self.embedder, day, audience)

    def _write_diary(
        self, conversation: str, audience: frozenset[str], summaries: list[str]
    ) -> None:
        everything = [
            e
            for e in self.store.list_episodes(
                self.namespace,
                participants=sorted(audience),
                conversation=conversation,
                limit=100_000,
            )
            if e.audience == audience
        ]
        if not everything:
            return
        summary, origin = None, diary.EXTRACTIVE
        if summaries and self.llm is not None:
            earlier = [
                e.text.split(": ", 1)[-1]
                for e in self.store.diary(
                    self.namespace, kind="conversation", participants=sorted(audience)
                )
                if e.key == conversation and e.audience == audience and e.origin != diary.EXTRACTIVE
            ]
            summary, origin = " ".join([*earlier, *summaries]), f"llm:{self.llm.name}"
        diary.write_conversation(
            self.store, self.namespace, self.embedder, everything, summary, origin
        )


def _shown(moment: datetime) -> str:
    return moment.isoformat(sep=" ", timespec="seconds")
