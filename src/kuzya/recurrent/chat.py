"""The sketch's chat over recurrent memory (`kuzya chat --memory recurrent`): the top
sessions recalled from the slots go into the system prompt; a session ends with /end or
after `idle_seconds` without a message, and is then encoded into a slot and saved, so it
is there after a restart. Without a model, the reply quotes what was recalled."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from kuzya.embed import Embedder
from kuzya.language.sentences import sentences
from kuzya.llm.base import LLM, ChatMessage
from kuzya.recurrent.memory import RecurrentMemory

SYSTEM = "You are a helpful assistant. Answer briefly. You have the following memories:"


class RecurrentChat:
    def __init__(
        self,
        llm: LLM | None,
        embedder: Embedder,
        path: Path,
        *,
        user: str = "user",
        k: int = 3,
        idle_seconds: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.llm, self.embedder, self.path, self.user, self.k = llm, embedder, path, user, k
        self.idle, self.clock = idle_seconds, clock
        exists = path.with_suffix(".json").exists()
        self.memory = RecurrentMemory.load(path) if exists else RecurrentMemory.pretrained()
        self.turns: list[tuple[str, str]] = []  # (role, text) of the session under way
        self.last = clock()

    def reply(self, text: str) -> str:
        """Answer `text`; a session idle for too long is ended first."""
        if self.turns and self.clock() - self.last > self.idle:
            self.end()
        self.last = self.clock()
        recalled = self.memory.retrieve(self.embedder.embed([text]), k=self.k)
        notes = "\n".join(f"- {slot.text}" for slot in recalled)
        if self.llm is None:
            answer = f"From memory: {recalled[0].text}" if recalled else "Noted."
        else:
            history = [ChatMessage(role, said) for role, said in self.turns]
            prompt = [ChatMessage("system", f"{SYSTEM}\n{notes}".strip()), *history,
                      ChatMessage("user", text)]  # fmt: skip
            answer = self.llm.chat(prompt, max_tokens=200).text.strip()
        self.turns += [("user", text), ("assistant", answer)]
        return answer

    def end(self) -> int | None:
        """Encode the session's own words into a slot and save; the slot, or None when
        nothing was said."""
        said = [text for role, text in self.turns if role == "user"]
        self.turns = []
        lines = [s for text in said for s in sentences(text)]
        if not lines:
            return None
        slot = self.memory.update(self.embedder.embed(lines), f"{self.user}: {' '.join(said)}")
        self.memory.save(self.path)
        return slot
