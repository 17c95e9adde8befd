"""LoCoMo evidence recall within a word budget, with a BM25-over-turns baseline.

The baseline ranks single turns ("speaker: text [image caption]", the same text Kuzya
shows) with Okapi BM25 (k1 1.5, b 0.75) on stemmed, stop-word-free terms, and packs them
under the same budget.

Each conversation is imported into a fresh store (turns only: text, speaker, session
time, image caption). For every question of categories 1-4 the question is recalled
with "now" a day after the last session; a question scores the fraction of its
evidence turns that the recalled items came from.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from rank_bm25 import BM25Okapi

from kuzya.bench.locomo_data import LocomoConversation, read_locomo
from kuzya.bench.stores import Place, places
from kuzya.embed import Embedder
from kuzya.language.text import terms
from kuzya.llm.base import LLM
from kuzya.memory import Memory
from kuzya.model import Episode, Kind, Recall
from kuzya.recall.pipeline import RecallSettings
from kuzya.sleep.sleeper import SleepReport

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

T = TypeVar("T")


@dataclass
class Tally:
    """Per-question scores, grouped by category."""

    budget: dict[str, list[float]] = field(default_factory=dict)
    at_10: dict[str, list[float]] = field(default_factory=dict)
    words: dict[str, list[int]] = field(default_factory=dict)

    def add(self, category: str, budget: float, at_10: float, words: int) -> None:
        self.budget.setdefault(category, []).append(budget)
        self.at_10.setdefault(category, []).append(at_10)
        self.words.setdefault(category, []).append(words)

    def summary(self) -> dict[str, Any]:
        def block(budget: list[float], at_10: list[float], words: list[int]) -> dict[str, Any]:
            return {
                "recall_budget": round(statistics.fmean(budget), 4) if budget else 0.0,
                "recall_at_10": round(statistics.fmean(at_10), 4) if at_10 else 0.0,
                "n": len(budget),
                "context_words": round(statistics.fmean(words), 1) if words else 0.0,
            }

        def every(table: dict[str, list[Any]]) -> list[Any]:
            return [v for c in CATEGORIES.values() for v in table.get(c, [])]

        return {
            "overall": block(every(self.budget), every(self.at_10), every(self.words)),
            "by_category": {
                name: block(
                    self.budget.get(name, []), self.at_10.get(name, []), self.words.get(name, [])
                )
                for name in CATEGORIES.values()
            },
        }


def coverage(evidence: Sequence[str], recalled: Iterable[str]) -> float:
    found = set(recalled)
    return sum(1 for turn in evidence if turn in found) / len(evidence)


def budget_prefix(lines: Sequence[tuple[T, int]], budget_words: int) -> tuple[list[T], int]:
    """The best items (with their word counts) that fit the budget, greedily skipping
    misfits, and the words they use."""
    kept, used = [], 0
    for item, words in lines:
        if used + words <= budget_words:
            kept.append(item)
            used += words
    return kept, used


def question_time(conv: LocomoConversation) -> datetime:
    """When the questions are asked: a day after the conversation's last session."""
    return conv.last_session + timedelta(days=1)


class TurnIndex:
    """Okapi BM25 over a conversation's turns ("speaker: text [image caption]", the text
    Kuzya shows), on the same stems and stop words as Kuzya's own full-text index."""

    def __init__(self, conv: LocomoConversation) -> None:
        documents = [f"{m.speaker}: {m.content}" for m in conv.messages]
        self._index = BM25Okapi([terms(doc) or ["-"] for doc in documents])
        self.words = [len(doc.split()) for doc in documents]

    def rank(self, query: str) -> list[int]:
        """Indices of the turns, best first (ties in conversation order)."""
        scores = self._index.get_scores(terms(query))
        return sorted(range(len(self.words)), key=lambda i: -scores[i])

    def within(self, query: str, budget_words: int) -> tuple[list[int], int]:
        """The best turns whose text fits `budget_words`, and the words they use."""
        return budget_prefix([(i, self.words[i]) for i in self.rank(query)], budget_words)


def _turns(recall: Recall, turn_of: dict[int, str]) -> list[str]:
    """Turns whose content the context states: episodes and the facts taken from them.
    A diary entry summarises many turns without stating them, so it counts for none."""
    return [
        turn_of[source]
        for item in recall.items
        if item.kind is not Kind.DIARY
        for source in item.sources
        if source in turn_of
    ]


def _bm25_baseline(conv: LocomoConversation, budget_words: int, tally: Tally) -> None:
    index = TurnIndex(conv)
    for question in conv.questions:
        category = CATEGORIES.get(question.category)
        if category is None or not question.evidence:
            continue
        order = index.rank(question.text)
        kept, words = index.within(question.text, budget_words)
        tally.add(
            category,
            coverage(question.evidence, [conv.turn_ids[i] for i in kept]),
            coverage(question.evidence, [conv.turn_ids[i] for i in order[:10]]),
            words,
        )


@contextmanager
def imported(
    conv: LocomoConversation,
    embedder: Embedder,
    place: Place,
    settings: RecallSettings,
    llm: LLM | None = None,
) -> Iterator[tuple[Memory, list[Episode], float]]:
    """A fresh store at `place(conv.name)` holding the conversation's turns: the memory, the
    episodes (in turn order) and the seconds the import took."""
    with Memory.open(
        place(conv.name),
        embedder=embedder,
        durable=False,
        settings=settings,
        llm=llm or "none",  # the environment does not choose a benchmark's model
    ) as memory:
        started = time.perf_counter()
        stored = memory.remember_many(conv.messages)
        yield memory, stored, time.perf_counter() - started


def _kuzya(
    conv: LocomoConversation,
    embedder: Embedder,
    budget_words: int,
    settings: RecallSettings,
    tally: Tally,
    latencies: list[float],
    place: Place,
    consolidation: Consolidation | None,
) -> float:
    """Import into a fresh store (and consolidate it), ask every question; returns import
    seconds."""
    llm = consolidation.llm if consolidation else None
    with imported(conv, embedder, place, settings, llm) as (memory, stored, elapsed):
        now = question_time(conv)
        if consolidation is not None:
            consolidation.add(memory.sleep(now=now))
        turn_of = {episode.id: turn for episode, turn in zip(stored, conv.turn_ids, strict=True)}
        for question in conv.questions:
            category = CATEGORIES.get(question.category)
            if category is None or not question.evidence:
                continue
            started = time.perf_counter()
            context = memory.recall(
                question.text,
                participants=conv.speakers,
                now=now,
                limit=100,
                budget_words=budget_words,
            )
            latencies.append(time.perf_counter() - started)
            top = memory.recall(
                question.text, participants=conv.speakers, now=now, limit=10, budget_words=None
            )
            tally.add(
                category,
                coverage(question.evidence, _turns(context, turn_of)),
                coverage(question.evidence, _turns(top, turn_of)),
                context.words,
            )
    return elapsed


@dataclass
class Consolidation:
    """Sleep after each import (with `llm` when given), and what it cost."""

    llm: LLM | None = None
    reports: list[SleepReport] = field(default_factory=list)

    def add(self, report: SleepReport) -> None:
        self.reports.append(report)

    def summary(self, messages: int) -> dict[str, Any]:
        calls = sum(r.llm.get("calls", 0) for r in self.reports)
        return {
            "llm": self.llm.name if self.llm else "none",
            "seconds": round(sum(r.seconds for r in self.reports), 1),
            "llm_calls": calls,
            "llm_calls_per_100_messages": round(100 * calls / messages, 2) if messages else 0.0,
            "prompt_tokens": sum(r.llm.get("prompt_tokens", 0) for r in self.reports),
            "completion_tokens": sum(r.llm.get("completion_tokens", 0) for r in self.reports),
            "claims": sum(r.claims for r in self.reports),
            "diary_entries": sum(r.diary for r in self.reports),
        }


def run(
    paths: Sequence[Path],
    embedder: Embedder,
    *,
    budget_words: int = 400,
    settings: RecallSettings | None = None,
    progress: Callable[[str], None] | None = None,
    consolidation: Consolidation | None = None,
    backend: str = "sqlite",
    db: str | None = None,
) -> dict[str, Any]:
    settings = settings or RecallSettings()
    embedder.embed(["warm up the model"])
    kuzya, baseline = Tally(), Tally()
    latencies: list[float] = []
    messages = 0
    import_seconds = 0.0
    issues: dict[str, int] = {}
    skipped = 0
    with (
        tempfile.TemporaryDirectory(prefix="kuzya-locomo-") as tmp,
        places(backend, Path(tmp), db) as place,
    ):
        for path in paths:
            conv = read_locomo(path)
            if progress:
                progress(
                    f"{conv.name}: {len(conv.messages)} turns, {len(conv.questions)} questions"
                )
            for key, count in conv.evidence_issues.items():
                issues[key] = issues.get(key, 0) + count
            skipped += sum(1 for q in conv.questions if q.category in CATEGORIES and not q.evidence)
            import_seconds += _kuzya(
                conv, embedder, budget_words, settings, kuzya, latencies, place, consolidation
            )
            messages += len(conv.messages)
            _bm25_baseline(conv, budget_words, baseline)
    ordered = sorted(latencies)
    result = kuzya.summary()
    result.update(
        baseline=baseline.summary(),
        latency_ms={
            "p50": round(1000 * ordered[len(ordered) // 2], 2),
            "p95": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        },
        import_msgs_per_s=round(messages / import_seconds, 1),
        messages=messages,
        budget_words=budget_words,
        embedder=embedder.name,
        backend=backend,
        evidence_issues=issues,
        questions_without_evidence=skipped,
    )
    if consolidation is not None:
        result["consolidation"] = consolidation.summary(messages)
    return result
