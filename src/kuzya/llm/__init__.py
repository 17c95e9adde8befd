"""The LLM port and its adapters, chosen by a spec string.

- ``none``: no model; Kuzya answers extractively from memory and extracts facts by rules;
- ``smollm2``, ``qwen-1.5b`` or a ``.gguf`` path: embedded llama.cpp (offline);
- ``openai:<model>``: any OpenAI-compatible server (Ollama, vLLM, llama.cpp server,
  LM Studio, OpenAI) at ``base_url`` with ``api_key``.
"""

from __future__ import annotations

from kuzya.errors import InvalidInput
from kuzya.llm.base import LLM, ChatMessage, Completion, Meter, Tool, ToolCall, Usage

__all__ = [
    "LLM",
    "ChatMessage",
    "Completion",
    "Meter",
    "Tool",
    "ToolCall",
    "Usage",
    "is_small",
    "load_llm",
]


def load_llm(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 120.0,
    threads: int | None = None,
) -> LLM | None:
    """The adapter a spec names; None for ``none``. `threads` is for an embedded model
    (default: every core)."""
    if spec == "none":
        return None
    if spec.startswith("openai:"):
        model = spec.removeprefix("openai:")
        if not base_url:
            raise InvalidInput(
                f"{spec} needs a server: set KUZYA_LLM_BASE_URL (e.g. http://localhost:11434/v1)"
            )
        from kuzya.llm.openai import OpenAICompatible

        return OpenAICompatible(model, base_url, api_key, timeout=timeout)
    from kuzya.llm.llama import LlamaCpp

    return LlamaCpp(spec.removeprefix("llama:"), threads=threads)


def is_small(llm: LLM | None) -> bool:
    """Whether `llm` is as small as SmolLM2 (135M), which rambles unless held to a short
    JSON answer and reads only what is next to the question (see `Assistant`). The Qwen
    reader and served models stop on their own."""
    return llm is not None and llm.name == "llama:smollm2"
