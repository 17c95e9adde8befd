"""Typed settings, read at entry points only (environment variables prefixed KUZYA_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_db() -> Path:
    return Path.home() / ".local" / "share" / "kuzya" / "kuzya.db"


class Settings(BaseSettings):
    """Where the memory lives and which embedder reads it."""

    model_config = SettingsConfigDict(env_prefix="KUZYA_", extra="forbid")

    db: Path = Field(default_factory=default_db)
    namespace: str = "default"
    embedder: str = "use"
    durable: bool = True
