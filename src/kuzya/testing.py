"""Test doubles shipped with the library: a fast deterministic embedder, a scripted chat model."""

from __future__ import annotations

import hashlib
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kuzya.embed.base import Vectors, normalise
from kuzya.errors import LLMError
from kuzya.language.text import terms
from kuzya.llm.base import ChatMessage, Completion, Meter, Tool, Usage, stop_strings


class HashEmbedder:
    """Feature-hashing bag of stems: same text, same vector; shared words, higher cosine.

    For unit tests that need speed and determinism, not semantic quality.
    """

    name = "hash"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in terms(text) or text.split():
                digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                matrix[row, bucket] += sign
        return normalise(matrix)


@dataclass(frozen=True)
class ScriptedCall:
    """What a `ScriptedLLM` was asked: the messages and the options of one `chat` call."""

    messages: tuple[ChatMessage, ...]
    json_schema: Mapping[str, Any] | None
    tools: tuple[Tool, ...]
    max_tokens: int
    temperature: float
    stop: tuple[str, ...] = ()


class ScriptedLLM:
    """A chat model that answers from a script, in order, and records what it was asked.

    Answers are texts or whole `Completion`s (for tool calls, `finish_reason`, usage).
    Running out of answers raises `LLMError`, as a model that cannot be reached would.
    """

    name = "scripted"

    def __init__(self, answers: Iterable[str | Completion] = ()) -> None:
        self.meter = Meter()
        self.calls: list[ScriptedCall] = []
        self.prefilled: list[tuple[ChatMessage, ...]] = []
        self._answers: deque[str | Completion] = deque(answers)
        self._lock = threading.Lock()

    def add(self, *answers: str | Completion) -> None:
        with self._lock:
            self._answers.extend(answers)

    @property
    def pending(self) -> int:
        """Answers not given yet."""
        return len(self._answers)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None = None,
        tools: Sequence[Tool] = (),
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_text: Callable[[str], None] | None = None,
        stop: Sequence[str] = (),
    ) -> Completion:
        call = ScriptedCall(
            tuple(messages), json_schema, tuple(tools), max_tokens, temperature, stop_strings(stop)
        )
        with self._lock:
            self.calls.append(call)
            if not self._answers:
                raise LLMError(f"ScriptedLLM ran out of answers at call {len(self.calls)}")
            answer = self._answers.popleft()
        if isinstance(answer, str):  # cut where a runtime stops
            answer = min((answer.split(s, 1)[0] for s in stop), key=len, default=answer)
        completion = answer if isinstance(answer, Completion) else _completion(messages, answer)
        self.meter.add(completion.usage)
        if on_text is not None and completion.text:  # word by word, as a model streams
            streamed = not tools and json_schema is None
            for piece in (
                re.findall(r"\S+\s*|\s+", completion.text) if streamed else [completion.text]
            ):
                on_text(piece)
        return completion

    def prefill(self, messages: Sequence[ChatMessage]) -> None:
        with self._lock:
            self.prefilled.append(tuple(messages))


def _completion(messages: Sequence[ChatMessage], text: str) -> Completion:
    """A text answer with word counts standing in for tokens."""
    prompt = sum(len(message.content.split()) for message in messages)
    return Completion(text=text, usage=Usage(prompt, len(text.split())))
