"""Synthetic scale benchmark: import throughput and recall latency at N episodes.

Messages come from templates over people, places, foods and activities, spread over
DMs and group chats, so that full text, vectors and the privacy filter all do real work.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.bench.stores import places
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import Message

PEOPLE = [f"user{i:03d}" for i in range(200)]
NAMES = [
    "Ana",
    "Ben",
    "Chen",
    "Dara",
    "Eli",
    "Femi",
    "Gus",
    "Hana",
    "Ivan",
    "Juno",
    "Kofi",
    "Lena",
    "Maya",
    "Nils",
    "Omar",
    "Pia",
    "Quin",
    "Rosa",
    "Sami",
    "Tara",
]
PLACES = [
    "Lisbon",
    "Oslo",
    "Kyoto",
    "Lima",
    "Cairo",
    "Austin",
    "Porto",
    "Tbilisi",
    "Hanoi",
    "Dublin",
    "Quito",
    "Riga",
    "Perth",
    "Accra",
    "Bergen",
    "Turin",
]
THINGS = [
    "ramen",
    "the cello",
    "chess",
    "a red bike",
    "sourdough",
    "climbing",
    "jazz records",
    "a tabby cat",
    "pottery",
    "salsa dancing",
    "the marathon",
    "a camper van",
    "tomatoes",
    "board games",
    "watercolours",
    "a new laptop",
    "tennis",
    "the garden",
    "sushi",
]
TEMPLATES = [
    "I went to {place} with {name} last weekend and we talked about {thing}.",
    "{name} told me she started learning {thing} in {place}.",
    "My favourite thing this month is {thing}; {name} thinks it's silly.",
    "We are planning a trip to {place} in the spring, maybe with {name}.",
    "Can you remind me what {name} said about {thing}?",
    "I finally bought {thing} and it cost more than I expected.",
    "{name} moved to {place} for a job and misses {thing}.",
    "Я ездил в {place} с {name}, и мы говорили про {thing}.",
]
QUERIES = [
    "What did {name} say about {thing}?",
    "When did I go to {place}?",
    "Who moved to {place}?",
    "What did I buy recently?",
    "Что я делал в {place}?",
]


def messages(count: int, seed: int = 7) -> Iterator[Message]:
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for i in range(count):
        owner = rng.choice(PEOPLE)
        if rng.random() < 0.7:  # a DM with the assistant
            present: tuple[str, ...] = (owner, "assistant")
            conversation = f"dm-{owner}"
        else:  # a group of 3-12
            group = rng.randrange(40)
            members = random.Random(group).sample(PEOPLE, 3 + group % 10)
            present = (*members, "assistant")
            owner = rng.choice(members)
            conversation = f"group-{group}"
        text = rng.choice(TEMPLATES).format(
            name=rng.choice(NAMES), place=rng.choice(PLACES), thing=rng.choice(THINGS)
        )
        yield Message(text, owner, conversation, present, start + timedelta(minutes=7 * i))


def queries(count: int, seed: int = 11) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Asked in a DM (70 %) or in one of the group chats (30 %)."""
    rng = random.Random(seed)
    for _ in range(count):
        query = rng.choice(QUERIES).format(
            name=rng.choice(NAMES), place=rng.choice(PLACES), thing=rng.choice(THINGS)
        )
        if rng.random() < 0.7:
            yield query, (rng.choice(PEOPLE), "assistant")
        else:
            group = rng.randrange(40)
            members = random.Random(group).sample(PEOPLE, 3 + group % 10)
            yield query, (*members, "assistant")


def percentiles(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "max": round(ordered[-1], 2),
    }


def run(
    episodes: int,
    embedder: Embedder,
    workdir: Path,
    *,
    queries_n: int = 200,
    batch: int = 1000,
    progress: Callable[[int], None] | None = None,
    backend: str = "sqlite",
    db: str | None = None,
) -> dict[str, Any]:
    embedder.embed(["warm up the model"])
    with places(backend, workdir, db) as place:
        location = place("scale")
        with Memory.open(
            location, namespace="scale", embedder=embedder, durable=False, llm="none"
        ) as memory:
            started = time.perf_counter()
            pending: list[Message] = []
            for message in messages(episodes):
                pending.append(message)
                if len(pending) == batch:
                    memory.remember_many(pending)
                    if progress:
                        progress(len(pending))
                    pending = []
            if pending:
                memory.remember_many(pending)
                if progress:
                    progress(len(pending))
            import_seconds = time.perf_counter() - started
        with Memory.open(location, namespace="scale", embedder=embedder, llm="none") as memory:
            started = time.perf_counter()
            memory.recall("warm up after reopening", participants=["assistant"])
            first_recall = time.perf_counter() - started
            latencies, sizes, everything = [], [], []
            for query, present in queries(queries_n):
                started = time.perf_counter()
                result = memory.recall(query, participants=present, budget_words=400)
                latencies.append(1000 * (time.perf_counter() - started))
                sizes.append(len(result))
            # The assistant alone may see every memory: the widest privacy filter.
            for query, _ in queries(max(queries_n // 4, 1), seed=13):
                started = time.perf_counter()
                memory.recall(query, participants=["assistant"], budget_words=400)
                everything.append(1000 * (time.perf_counter() - started))
            dense = dense_recall(memory)
            size = memory.store.stats("scale").get("bytes")
    return {
        "episodes": episodes,
        "backend": backend,
        "embedder": embedder.name,
        "import_msgs_per_s": round(episodes / import_seconds, 1),
        "reopen_first_recall_s": round(first_recall, 2),
        "latency_ms": percentiles(latencies),
        "latency_all_visible_ms": percentiles(everything),
        "mean_items": round(statistics.fmean(sizes), 1),
        "dense_recall_at_10": dense,
        "db_bytes": size,
    }


def dense_recall(memory: Memory, k: int = 10) -> dict[str, Any]:
    """The store's dense search against exact search over the same visible vectors:
    recall@k for group queries whose privacy filter keeps under 5 % of the rows, and for
    queries of the assistant, who sees every row."""
    store, namespace = memory.store, memory.namespace
    ids: list[int] = []
    audience_of: dict[int, frozenset[str]] = {}
    while page := store.episodes_after(namespace, ids[-1] if ids else 0, 5000):
        ids.extend(e.id for e in page)
        audience_of.update((e.id, e.audience) for e in page)
    vectors: dict[int, npt.NDArray[np.float32]] = {}
    for start in range(0, len(ids), 5000):
        vectors.update(store.vector_of(namespace, ids[start : start + 5000]))
    matrix = np.stack([vectors[i] for i in ids])

    row_of = {episode_id: n for n, episode_id in enumerate(ids)}

    def overlap(query: str, present: Sequence[str], rows: npt.NDArray[np.int64]) -> float:
        """The share of the exact top k the store returned; a result that ties with the
        exact k-th (the same text twice) counts as found."""
        vector = memory.embedder.embed([query])[0]
        scores = np.sort(matrix[rows] @ vector)[::-1]
        kth = scores[min(k, len(scores)) - 1]
        got = [hit[0] for hit in store.dense_search(store.scope(namespace, present), vector, k)]
        right = sum(1 for i in got if float(matrix[row_of[i]] @ vector) >= kth - 1e-5)
        return right / min(k, len(scores))

    found: dict[str, list[float]] = {"selective_groups": [], "everything_visible": []}
    for query, present in queries(200, seed=17):
        rows = np.array([n for n, i in enumerate(ids) if set(present) <= audience_of[i]])
        if len(present) >= 3 and 0 < len(rows) < 0.05 * len(ids):
            found["selective_groups"].append(overlap(query, present, rows))
    for query, _ in queries(20, seed=19):
        found["everything_visible"].append(overlap(query, ["assistant"], np.arange(len(ids))))
    return {
        name: {"queries": len(values), "recall": round(statistics.fmean(values), 4)}
        for name, values in found.items()
        if values
    }
