"""Export and import keep recall: LoCoMo conversations imported into store A (as `kuzya
import` does), A exported and imported into an empty store B, and every question of every
conversation recalled in both, for its two speakers, a day after its last session. Items
are compared by what they are (a message by its key, a fact or diary entry by its words),
with their texts and scores; B exported again must give the file A gave."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kuzya.bench.locomo import question_time
from kuzya.bench.locomo_data import read_locomo
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import Kind, Recall
from kuzya.remember import BATCH
from kuzya.transfer.namespace import export, import_namespace, message_key


def _lines(path: Path) -> list[Any]:
    """The records of an export, its time of export left out."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    records[0].pop("exported_at")
    return records


def recalled(memory: Memory, recall: Recall) -> list[tuple[str, str, float]]:
    """(what the item is, its text, its score) in recall's order."""
    found = []
    for item in recall.items:
        identity = item.text
        if item.kind is Kind.EPISODE:
            (kept,) = memory.store.kept_episodes(memory.namespace, item.id - 1, 1)
            identity = message_key(memory.namespace, kept)
        found.append((f"{item.kind.value}:{identity}", item.text, item.score))
    return found


def run(
    files: list[Path],
    embedder: Embedder,
    workdir: Path,
    *,
    sleep: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    conversations = [read_locomo(path) for path in files]
    first, second = workdir / "a.db", workdir / "b.db"
    dumped, again = workdir / "a.jsonl", workdir / "b.jsonl"
    with Memory.open(first, embedder=embedder, llm="none") as memory:
        for conv in conversations:
            for start in range(0, len(conv.messages), BATCH):
                memory.remember_many(conv.messages[start : start + BATCH])
        if sleep:
            memory.sleep(now=max(question_time(c) for c in conversations))
        started = time.perf_counter()
        messages = export(memory, dumped)
        export_seconds = time.perf_counter() - started
    with Memory.open(second, embedder=embedder, llm="none") as memory:
        started = time.perf_counter()
        import_namespace(memory, dumped)
        import_seconds = time.perf_counter() - started
        export(memory, again)
    questions = differences = 0
    with (
        Memory.open(first, embedder=embedder, llm="none") as a,
        Memory.open(second, embedder=embedder, llm="none") as b,
    ):
        for conv in conversations:
            now = question_time(conv)
            for question in conv.questions:
                left = recalled(a, a.recall(question.text, participants=conv.speakers, now=now))
                right = recalled(b, b.recall(question.text, participants=conv.speakers, now=now))
                questions += 1
                differences += left != right
            if progress:
                progress(f"{conv.name}: {questions} questions so far, {differences} differ")
    return {
        "files": [str(path) for path in files],
        "embedder": embedder.name,
        "slept": sleep,
        "messages": messages,
        "export_bytes": dumped.stat().st_size,
        "export_s": round(export_seconds, 2),
        "import_s": round(import_seconds, 2),
        "questions": questions,
        "differences": differences,
        "same_export_again": _lines(dumped) == _lines(again),
    }
