"""The memories the scenario runner compares with Kuzya's engine, each kept on disk and
opened again for every session and probe (a restart between them):

- `recurrent`: `kuzya.recurrent.RecurrentMemory` with the shipped encoder; each session's
  sentences go into a slot, a question reads back the three nearest sessions;
- `rag`: ChromaDB (`kuzya.bench.rag`), the retrieval people build first;
- `none`: no memory at all.

Each gives the text a prompt would hold (`context`); in answer mode the same model answers
from it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from kuzya import validate
from kuzya.embed import Embedder
from kuzya.language.sentences import sentences

KINDS = ("engine", "recurrent", "rag", "none")


class Turn(Protocol):
    speaker: str
    text: str


class Remembering(Protocol):
    """A memory that sessions are replayed into and probes ask."""

    def replay(self, session_id: str, when: str, participants: Sequence[str],
               turns: Sequence[Turn]) -> None: ...  # fmt: skip

    def context(self, question: str, participants: Sequence[str]) -> str: ...


class Recurrent:
    """Slots of whole sessions, kept as safetensors and JSON in `folder`."""

    def __init__(self, folder: Path, embedder: Embedder) -> None:
        from kuzya.recurrent.memory import RecurrentMemory

        self.path, self.embedder = folder / "recurrent", embedder
        exists = self.path.with_suffix(".json").exists()
        self.memory = RecurrentMemory.load(self.path) if exists else RecurrentMemory.pretrained()

    def replay(
        self, session_id: str, when: str, participants: Sequence[str], turns: Sequence[Turn]
    ) -> None:
        lines = [s for turn in turns for s in sentences(turn.text)]
        if not lines:
            return
        text = " ".join(f"{turn.speaker}: {turn.text}" for turn in turns)
        day = validate.moment(when, "session time").date().isoformat()
        self.memory.update(self.embedder.embed(lines), f"({day}) {text}")
        self.memory.save(self.path)

    def context(self, question: str, participants: Sequence[str]) -> str:
        found = self.memory.retrieve(self.embedder.embed([question]), k=3)
        return "\n".join(f"- {slot.text}" for slot in found)


class Nothing:
    def replay(
        self, session_id: str, when: str, participants: Sequence[str], turns: Sequence[Turn]
    ) -> None:
        pass

    def context(self, question: str, participants: Sequence[str]) -> str:
        return ""


def opened(kind: str, folder: Path, embedder: Embedder) -> Remembering:
    """The memory of `kind` kept in `folder` (made if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "recurrent":
        return Recurrent(folder, embedder)
    if kind == "rag":
        from kuzya.bench.rag import Rag  # chromadb only when asked for

        return Rag(folder, embedder)
    if kind == "none":
        return Nothing()
    raise ValueError(f"no memory kind {kind!r} here")
