"""The LLM port on a local GGUF model through llama-cpp-python (`pip install kuzya[llama]`).

The model's own chat template formats the turns. A JSON schema becomes a grammar, so the
output is one JSON value of that shape. The embedded models have no dependable native tool
calling, so tools are a constrained choice: the model answers with one JSON object,
`{"tool": name, "arguments": {...}}` or `{"answer": "..."}`, whose grammar is built from the
tools' schemas. Every call runs on one thread of the process (see `_on_llama_thread`), which
also serialises them: llama.cpp is not re-entrant.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from kuzya.errors import InvalidInput, LLMError
from kuzya.llm.base import (
    ChatMessage,
    Completion,
    Meter,
    Tool,
    ToolCall,
    Usage,
    stop_strings,
)
from kuzya.llm.models import llama_cpp_module, model_path

T = TypeVar("T")

_runner: tuple[int, ThreadPoolExecutor] | None = None
_runner_lock = threading.Lock()
_inside = threading.local()


def _on_llama_thread(work: Callable[[], T]) -> T:
    """`work()` run on the process's one llama.cpp thread, waited for. A llama.cpp built
    with OpenMP (pip's default) gives each thread that calls it a team of workers of its
    own; with more workers than cores they stop spinning between steps and every token
    takes about 2.6 times as long (a reply after a background prefill did). One calling
    thread keeps one team."""
    global _runner
    if getattr(_inside, "active", False):
        raise LLMError("a local model cannot be called while it writes (from on_text)")
    with _runner_lock:
        if _runner is None or _runner[0] != os.getpid():  # a forked child starts its own
            _runner = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="kuzya-llama"))
        executor = _runner[1]

    def inside() -> T:
        _inside.active = True
        try:
            return work()
        finally:
            _inside.active = False

    return executor.submit(inside).result()


class _Engine(Protocol):
    """The part of `llama_cpp.Llama` used here (the package ships no usable stubs)."""

    def create_chat_completion(self, **kwargs: Any) -> Any: ...

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]: ...


class LlamaCpp:
    """A local GGUF chat model: `smollm2`, `qwen-1.5b` (see `kuzya.llm.models`) or a path."""

    def __init__(
        self,
        model: str = "smollm2",
        *,
        n_ctx: int = 4096,
        threads: int | None = None,
        seed: int = 0,
        cache_dir: Path | None = None,
    ) -> None:
        self.name = f"llama:{model}"
        self.meter = Meter()
        self.path = model_path(model, cache_dir)
        if n_ctx < 1:
            raise InvalidInput(f"n_ctx must be at least 1, not {n_ctx}")
        # llama.cpp pads the context to a multiple of 256 but llama-cpp-python sizes its
        # token buffer by the number asked for: ask for the padded size so they agree.
        self._n_ctx = -(-n_ctx // 256) * 256
        # llama.cpp would use half the cores; prompt reading is what memory adds, so use all
        self._threads = threads or os.cpu_count() or 1
        self._seed = seed
        self._engine: _Engine | None = None
        self._call_ids = itertools.count(1)

    def load(self) -> None:
        """Load the weights now rather than on the first `chat` (idempotent)."""
        _on_llama_thread(self._loaded)

    def _loaded(self) -> _Engine:
        if self._engine is None:
            try:
                engine = llama_cpp_module().Llama(
                    model_path=str(self.path),
                    n_ctx=self._n_ctx,
                    n_threads=self._threads,
                    n_threads_batch=self._threads,
                    seed=self._seed,
                    flash_attn=True,
                    verbose=False,
                )
            except LLMError:
                raise
            except Exception as e:
                raise LLMError(f"cannot load {self.path} with llama.cpp: {e}") from e
            self._engine = cast(_Engine, engine)
        return self._engine

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
        if max_tokens < 1:  # llama.cpp reads 0 as "until the context is full"
            raise InvalidInput(f"max_tokens must be at least 1, not {max_tokens}")
        turns, stops = _turns(messages), stop_strings(stop)
        schema: Mapping[str, Any] | None = json_schema
        if tools:
            turns = _with_tool_instructions(turns, tools)
            schema = _choice_schema(tools, json_schema)
        text, reason, usage = _on_llama_thread(
            lambda: self._complete(turns, schema, max_tokens, temperature, stops, on_text, tools)
        )
        self.meter.add(usage)
        finish = "length" if reason == "length" else "stop"
        if not tools:
            return Completion(text=text, usage=usage, finish_reason=finish)
        return _tool_completion(text, finish, usage, self._next_call_id, max_tokens)

    def _complete(
        self,
        turns: list[dict[str, str]],
        schema: Mapping[str, Any] | None,
        max_tokens: int,
        temperature: float,
        stops: Sequence[str],
        on_text: Callable[[str], None] | None,
        tools: Sequence[Tool],
    ) -> tuple[str, str | None, Usage]:
        """The model's text, why it stopped and its usage (on the llama.cpp thread)."""
        engine = self._loaded()
        options = {
            "messages": turns,
            "temperature": temperature,
            "max_tokens": max_tokens,
            # greedy decoding ignores the seed; sampling draws anew on every call,
            # reproducibly from the adapter's seed
            "seed": self._seed + self.meter.calls,
            "grammar": None if schema is None else _grammar(schema),
            "stop": list(stops) or None,
        }
        try:
            if on_text is not None and schema is None:
                return _streamed(engine, options, on_text)
            response = engine.create_chat_completion(**options)
        except LLMError:
            raise
        except Exception as e:
            hint = f"; raise n_ctx={self._n_ctx}" if "context window" in str(e) else ""
            raise LLMError(f"{self.name} failed: {e}{hint}") from e
        choice = response["choices"][0]
        text = choice["message"]["content"] or ""
        usage = Usage(
            prompt_tokens=int(response["usage"]["prompt_tokens"]),
            completion_tokens=int(response["usage"]["completion_tokens"]),
        )
        if on_text is not None and text and not tools:
            on_text(text)
        return text, choice.get("finish_reason"), usage

    def prefill(self, messages: Sequence[ChatMessage]) -> None:
        """Read the prompt that `messages` start: llama.cpp keeps the last prompt's keys
        and values, so the next `chat` reads only what follows the common start."""
        turns = _turns(messages)

        def read() -> Any:
            engine = self._loaded()
            try:
                return engine.create_chat_completion(messages=turns, max_tokens=1, temperature=0.0)
            except Exception as e:
                raise LLMError(f"{self.name} failed to read a prompt: {e}") from e

        response = _on_llama_thread(read)
        self.meter.add(Usage(int(response["usage"]["prompt_tokens"]), 1))

    @property
    def context_tokens(self) -> int:
        """The context window: prompt and completion together fit in this many tokens."""
        return self._n_ctx

    def count_tokens(self, text: str) -> int:
        """The tokens `text` takes in this model (its chat template's own tokens not
        included); loads the model if needed."""
        encoded = text.encode("utf-8")
        return _on_llama_thread(
            lambda: len(self._loaded().tokenize(encoded, add_bos=False, special=False))
        )

    def _next_call_id(self) -> str:
        return f"call_{next(self._call_ids)}"  # itertools.count is atomic under the GIL


def _streamed(
    engine: Any, options: dict[str, Any], on_text: Callable[[str], None]
) -> tuple[str, str | None, Usage]:
    """A completion read token by token, each piece passed on as it comes; a stream
    carries no usage, so the tokens are counted (one piece per token) and the prompt's
    are what the context holds besides them."""
    pieces: list[str] = []
    reason = None
    for chunk in engine.create_chat_completion(**options, stream=True):
        choice = chunk["choices"][0]
        text = choice["delta"].get("content") or ""
        reason = choice.get("finish_reason") or reason
        if text:
            pieces.append(text)
            on_text(text)
    completion = len(pieces)
    return "".join(pieces), reason, Usage(max(0, int(engine.n_tokens) - completion), completion)


def _grammar(schema: Mapping[str, Any]) -> Any:
    grammar_cls = llama_cpp_module().LlamaGrammar
    try:
        return grammar_cls.from_json_schema(json.dumps(schema), verbose=False)
    except Exception:  # a schema feature the converter lacks: any JSON, the caller validates
        return grammar_cls.from_string(llama_cpp_module().llama_grammar.JSON_GBNF, verbose=False)


def _turns(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """The chat as plain role/content turns every template accepts: a tool call is the JSON
    the model would have written, a tool result a user turn naming the call."""
    if any(m.images for m in messages):
        raise InvalidInput(
            "the embedded models read no images: name a vision model served the OpenAI way"
        )
    names = {call.id: call.name for m in messages for call in m.tool_calls}
    turns = []
    for m in messages:
        if m.role == "tool":
            name = names.get(m.tool_call_id or "", "tool")
            content = f"Result of {name} (call {m.tool_call_id}):\n{m.content}"
            turns.append({"role": "user", "content": content})
        elif m.tool_calls:
            calls = "\n".join(_call_json(c.name, c.arguments) for c in m.tool_calls)
            turns.append({"role": m.role, "content": f"{m.content}\n{calls}".strip()})
        else:
            turns.append({"role": m.role, "content": m.content})
    return turns


def _call_json(name: str, arguments: Mapping[str, Any]) -> str:
    return json.dumps({"tool": name, "arguments": dict(arguments)}, ensure_ascii=False)


def _with_tool_instructions(
    turns: list[dict[str, str]], tools: Sequence[Tool]
) -> list[dict[str, str]]:
    listing = "\n".join(
        f"- {t.name}: {t.description} Arguments (JSON schema): {json.dumps(dict(t.parameters))}"
        for t in tools
    )
    instructions = (
        "You have tools. Use one whenever the answer depends on information you were not "
        f"given here.\n{listing}\n"
        'To call a tool reply with {"tool": "<tool name>", "arguments": {...}}. '
        'To reply directly, {"answer": "<your reply>"}.'
    )
    if turns and turns[0]["role"] == "system":
        first = {"role": "system", "content": f"{turns[0]['content']}\n\n{instructions}"}
        return [first, *turns[1:]]
    return [{"role": "system", "content": instructions}, *turns]


def _choice_schema(tools: Sequence[Tool], answer: Mapping[str, Any] | None) -> dict[str, Any]:
    calls: Iterator[dict[str, Any]] = (
        {
            "type": "object",
            "properties": {"tool": {"const": t.name}, "arguments": dict(t.parameters)},
            "required": ["tool", "arguments"],
        }
        for t in tools
    )
    reply = {
        "type": "object",
        "properties": {"answer": dict(answer) if answer else {"type": "string"}},
        "required": ["answer"],
    }
    return {"anyOf": [*calls, reply]}


def _tool_completion(
    text: str, finish: str, usage: Usage, call_id: Callable[[], str], max_tokens: int
) -> Completion:
    try:
        choice = json.loads(text)
    except json.JSONDecodeError as e:
        partial = _ANSWER_START.match(text)
        if finish == "length" and partial:  # a text answer cut short: keep what was said
            return Completion(
                text=_partial_string(text[partial.end() :]), usage=usage, finish_reason=finish
            )
        cut = f" (cut off at max_tokens={max_tokens})" if finish == "length" else ""
        raise LLMError(f"the model's tool choice is not JSON{cut}: {text[:200]!r}") from e
    if isinstance(choice, dict) and "answer" in choice:
        answer = choice["answer"]
        reply = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        return Completion(text=reply, usage=usage, finish_reason=finish)
    if (
        isinstance(choice, dict)
        and isinstance(choice.get("tool"), str)
        and isinstance(choice.get("arguments"), dict)
    ):
        call = ToolCall(id=call_id(), name=choice["tool"], arguments=choice["arguments"])
        return Completion(text="", tool_calls=(call,), usage=usage, finish_reason="tool_calls")
    raise LLMError(f"the model's tool choice has neither a tool nor an answer: {text[:200]!r}")


_ANSWER_START = re.compile(r'\s*\{\s*"answer"\s*:\s*"')


def _partial_string(body: str) -> str:
    """The text of a JSON string literal cut off before its closing quote."""
    for end in range(len(body), max(len(body) - 6, -1), -1):  # drop a half-written escape
        try:
            return str(json.loads(f'"{body[:end]}"'))
        except json.JSONDecodeError:
            continue
    return ""
