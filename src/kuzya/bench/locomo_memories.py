"""LoCoMo evidence recall for the other kinds of memory, scored as `kuzya bench locomo`
scores the engine: the fraction of a question's evidence turns within a word budget.

- `rag`: every turn a ChromaDB document (Kuzya's embedder); the nearest turns fill the
  budget, best first.
- `recurrent`: each session a slot (ten: the latest ten sessions stay); the three
  sessions nearest the question fill the budget, each with its turns in order."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kuzya.bench.locomo import CATEGORIES, Tally, budget_prefix, coverage
from kuzya.bench.locomo_data import LocomoConversation, read_locomo
from kuzya.embed import Embedder
from kuzya.language.sentences import sentences


def _turn_text(conv: LocomoConversation, index: int) -> str:
    message = conv.messages[index]
    return f"{message.speaker}: {message.text}"


def _rag(
    conv: LocomoConversation, embedder: Embedder, folder: Path, budget: int, tally: Tally
) -> None:
    from kuzya.bench.rag import Rag

    store = Rag(folder, embedder, top=50)
    texts = [_turn_text(conv, i) for i in range(len(conv.messages))]
    for start in range(0, len(texts), 500):
        store.collection.add(
            ids=[str(i) for i in range(start, min(start + 500, len(texts)))],
            documents=texts[start : start + 500],
        )
    for question in conv.questions:
        category = CATEGORIES.get(question.category)
        if category is None or not question.evidence:
            continue
        found = store.collection.query(query_texts=[question.text], n_results=50)
        order = [int(i) for i in (found.get("ids") or [[]])[0]]
        kept, words = budget_prefix([(i, len(texts[i].split())) for i in order], budget)
        tally.add(
            category,
            coverage(question.evidence, [conv.turn_ids[i] for i in kept]),
            coverage(question.evidence, [conv.turn_ids[i] for i in order[:10]]),
            words,
        )


def _recurrent(conv: LocomoConversation, embedder: Embedder, budget: int, tally: Tally) -> None:
    from kuzya.recurrent.memory import RecurrentMemory

    memory = RecurrentMemory.pretrained()
    sessions: dict[str, list[int]] = {}
    for index, message in enumerate(conv.messages):
        sessions.setdefault(message.conversation, []).append(index)
    slot_turns: dict[int, list[int]] = {}
    for turns in sessions.values():
        lines = [s for i in turns for s in sentences(conv.messages[i].text)] or ["(empty)"]
        slot = memory.update(embedder.embed(lines), " ".join(_turn_text(conv, i) for i in turns))
        slot_turns[slot] = turns
    for question in conv.questions:
        category = CATEGORIES.get(question.category)
        if category is None or not question.evidence:
            continue
        found = memory.retrieve(embedder.embed([question.text]), k=3)
        order = [i for slot in found for i in slot_turns[slot.slot]]
        kept, words = budget_prefix([(i, len(_turn_text(conv, i).split())) for i in order], budget)
        tally.add(
            category,
            coverage(question.evidence, [conv.turn_ids[i] for i in kept]),
            coverage(question.evidence, [conv.turn_ids[i] for i in order[:10]]),
            words,
        )


def compare(paths: Sequence[Path], embedder: Embedder, budget_words: int = 400) -> dict[str, Any]:
    """Per kind (`rag`, `recurrent`): recall within the budget and at ten turns, overall
    and per category, over the questions of every file."""
    tallies = {"rag": Tally(), "recurrent": Tally()}
    with tempfile.TemporaryDirectory(prefix="kuzya-locomo-memories-") as tmp:
        for n, path in enumerate(paths):
            conv = read_locomo(path)
            _rag(conv, embedder, Path(tmp) / f"rag-{n}", budget_words, tallies["rag"])
            _recurrent(conv, embedder, budget_words, tallies["recurrent"])
    return {kind: tally.summary() for kind, tally in tallies.items()}
