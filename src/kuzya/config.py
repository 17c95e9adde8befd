"""Typed settings, read at entry points only (environment variables prefixed KUZYA_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_db() -> Path:
    return Path.home() / ".local" / "share" / "kuzya" / "kuzya.db"


class Settings(BaseSettings):
    """Where the memory lives, which embedder reads it and which LLM (if any) talks."""

    model_config = SettingsConfigDict(env_prefix="KUZYA_", extra="forbid")

    db: Path = Field(default_factory=default_db)
    namespace: str = "default"
    embedder: str = "use"
    durable: bool = True
    llm: str = "none"  # "none", "smollm2", "qwen-1.5b", a .gguf path, or "openai:<model>"
    llm_base_url: str | None = None  # for openai:<model>, e.g. http://localhost:11434/v1
    llm_api_key: str | None = None
    # threads of an embedded model (default: every core); 1 is faster on a busy machine,
    # where llama.cpp's threads wait for each other
    llm_threads: int | None = Field(default=None, ge=1)
    ner: bool = False  # sleep runs spaCy / natasha NER (pip install 'kuzya[ner]')
