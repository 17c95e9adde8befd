"""The LLM port: chat messages in, a completion (text or tool calls) out, tokens counted."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kuzya.errors import InvalidInput


@dataclass(frozen=True)
class ToolCall:
    """A function the model asked to call, with its arguments parsed from JSON."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class Tool:
    """A function the model may call: a name, what it does, a JSON schema for its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True)
class ChatMessage:
    """One turn of a chat: role is "system", "user", "assistant" or "tool"."""

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # for role "tool": the call this answers
    images: tuple[str, ...] = ()  # for a vision model: data: URLs of images shown with it


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """What the model returned: text, or tool calls, and the tokens it took."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: str = "stop"  # "stop" | "length" | "tool_calls"


@dataclass
class Meter:
    """Calls and tokens spent through one adapter (thread-safe running totals)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, usage: Usage) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {
                "calls": self.calls,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
            }


def stop_strings(stop: Sequence[str]) -> tuple[str, ...]:
    """`stop` checked as the OpenAI API takes it: at most four strings, none empty."""
    if isinstance(stop, str) or len(stop) > 4 or not all(isinstance(s, str) and s for s in stop):
        raise InvalidInput(f"stop takes up to four non-empty strings, not {stop!r}")
    return tuple(stop)


@runtime_checkable
class LLM(Protocol):
    """A chat model. `name` says adapter and model ("openai:gpt-4o-mini", "llama:smollm2")."""

    name: str
    meter: Meter

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
        """One completion. With `json_schema` the model is asked (or constrained, where the
        runtime allows) to answer with one JSON value of that schema; the caller still
        validates it (see `kuzya.llm.structured`). Raises `LLMError` when it fails. The
        text ends before the first of the `stop` strings the model writes (at most four).

        With `on_text`, a plain completion (no tools, no schema) is streamed: each piece
        goes to `on_text` as the model writes it, and a failure after the first piece is
        final (a retry would repeat it). Otherwise `on_text` gets the whole text once."""
        ...

    def prefill(self, messages: Sequence[ChatMessage]) -> None:
        """Read `messages` now so that a following `chat` starting with them reads only
        the rest (a prompt cache). Adapters whose runtime caches on its own, or not at
        all, do nothing."""
        ...
