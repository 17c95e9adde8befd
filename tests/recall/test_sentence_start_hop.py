"""Multi-hop recall through a name that starts the sentence stating the fact, with the
real Memory and the real default embedder: "Leo lives in Oslo." ... "I'm visiting Leo next
month." ... "Which city am I flying to next month?" reaches Oslo through Leo only if the
hot path links "Leo" at the start of the fact (before, the fact ranked fifth, behind "I
bought new running shoes").
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kuzya import Memory
from kuzya.embed import Embedder

T0 = datetime(2024, 4, 1, 9, tzinfo=UTC)
TOP = 3

CASES = [
    pytest.param(
        "Leo lives in Oslo.",
        ["I bought new running shoes.", "Work was busy this week.",
         "My sister Anna lives in Lisbon.", "Made lasagna for dinner, it was great."],
        "I'm visiting Leo next month.",
        "Which city am I flying to next month?",
        "leo",
        id="en-leo-oslo",
    ),
    pytest.param(
        "Оля переехала в Казань.",
        ["Купил новые кроссовки для бега.", "На работе была тяжёлая неделя.",
         "Моя сестра Аня живёт в Самаре.", "Приготовил лазанью на ужин."],
        "В субботу еду к Оле.",
        "В какой город я еду в субботу?",
        "ол",
        id="ru-olya-kazan",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("fact", "distractors", "bridge", "question", "person"), CASES)
def test_a_name_that_starts_the_fact_carries_the_hop(
    tmp_path: Path,
    use_embedder: Embedder,
    fact: str,
    distractors: list[str],
    bridge: str,
    question: str,
    person: str,
) -> None:
    with Memory.open(tmp_path / "hop.db", namespace="hop", embedder=use_embedder) as memory:
        memory.remember(fact, speaker="me", conversation="c0", time=T0)
        for day, text in enumerate([*distractors, bridge], 1):
            memory.remember(text, speaker="me", conversation=f"c{day}",
                            time=T0 + timedelta(days=day))  # fmt: skip
        assert {e.key: e.mentions for e in memory.entities()}[person] == 2  # fact and bridge
        recalled = memory.recall(question, participants=["me"], now=T0 + timedelta(days=10),
                                 limit=TOP, budget_words=None)  # fmt: skip
        assert fact in [item.text for item in recalled]
