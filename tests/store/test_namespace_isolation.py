"""The namespace is the partition key: on PostgreSQL, what a namespace is shown — recall
with its scores, facts, entities, diary — is the same whether or not another namespace
shares the database and writes between its writes. So no query reads (or ranks by)
another namespace's rows, and the namespace can distribute the tables (see
docs/deployment.md)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kuzya.memory import Memory
from kuzya.store.postgres.embedded import EmbeddedServer
from kuzya.testing import HashEmbedder

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PEOPLE = ["ana", "ben", "chloe", "dmitri"]
LINES = [
    "I moved to Lisbon in March, my dog Bruno loves the beach",
    "My sister Olga works as a nurse in Kazan",
    "I'm allergic to peanuts, please remember that",
    "We are planning a trip to Spain in July with Marco",
    "Я живу в Томске и работаю инженером",
    "Мой брат Лёша купил новую машину",
    "The book club meets at Café Lume on Thursdays",
    "I always order ramen with an extra egg",
    "Leo started a new job at Google last week",
    "Вчера мы ходили в кино с Машей",
]
QUESTIONS = ["where do I live?", "what am I allergic to?", "где живёт Ольга?", "Bruno", "кино"]


def _messages(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    found = []
    for i in range(count):
        speaker = rng.choice(PEOPLE)
        present = sorted({speaker, *rng.sample(PEOPLE, rng.randint(0, 2))})
        words = rng.choice(LINES).split()
        if rng.random() < 0.3:
            rng.shuffle(words)
        found.append(
            {
                "text": " ".join(words),
                "speaker": speaker,
                "participants": present,
                "conversation": "-".join(present),
                "time": START + timedelta(hours=3 * i),
            }
        )
    return found


def _shown(memory: Memory) -> dict[str, Any]:
    now = START + timedelta(days=60)
    memory.sleep(now=now)
    seen: dict[str, Any] = {}
    for group in (["ana"], ["ana", "ben"], ["chloe", "dmitri"], PEOPLE):
        for question in QUESTIONS:
            recall = memory.recall(question, participants=group, now=now, limit=10)
            seen[f"{group} {question}"] = [(i.text, round(i.score, 6)) for i in recall.items]
        seen[f"{group} entities"] = sorted(
            (e.key, e.mentions) for e in memory.entities(participants=group)
        )
        seen[f"{group} diary"] = sorted(e.text for e in memory.diary(participants=group))
    for person in PEOPLE:
        profile = memory.profile(person, participants=[person], now=now)
        seen[f"{person} profile"] = sorted((f.attribute, f.value) for f in profile.facts)
    return seen


@pytest.mark.parametrize("seed", [1, 2])
def test_a_namespace_is_shown_the_same_with_or_without_its_neighbour(
    postgres_server: EmbeddedServer, seed: int
) -> None:
    embedder = HashEmbedder()
    ours, theirs = _messages(seed, 60), _messages(seed + 100, 60)
    alone = postgres_server.database(f"isolation_alone_{seed}")
    shared = postgres_server.database(f"isolation_shared_{seed}")
    with Memory.open(alone, namespace="ours", embedder=embedder, llm="none") as memory:
        for message in ours:
            memory.remember(**message)
        expected = _shown(memory)
    with (
        Memory.open(shared, namespace="ours", embedder=embedder, llm="none") as memory,
        Memory.open(shared, namespace="theirs", embedder=embedder, llm="none") as neighbour,
    ):
        for mine, other in zip(ours, theirs, strict=True):
            neighbour.remember(**other)
            memory.remember(**mine)
            neighbour.remember(**mine)  # the same words and people, next door
        neighbour.sleep(now=START + timedelta(days=60))
        assert _shown(memory) == expected
    assert any(expected.values())  # the namespace was shown something to compare
