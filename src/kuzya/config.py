"""Typed settings: the one place that reads the environment (variables prefixed KUZYA_),
called at entry points only (the CLI, `Memory.open`). A value given explicitly beats
the environment, which beats the default."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kuzya.embed import DEFAULT_EMBEDDER
from kuzya.errors import InvalidInput
from kuzya.llm import LLM, load_llm


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "kuzya"


def default_db() -> Path:
    return default_data_dir() / "kuzya.db"


class Settings(BaseSettings):
    """Where the memory lives, which embedder reads it and which LLM (if any) talks."""

    model_config = SettingsConfigDict(env_prefix="KUZYA_", extra="forbid")

    data_dir: Path = Field(default_factory=default_data_dir)  # the store file, images
    db: Path = Field(default_factory=default_db)  # unset: kuzya.db in `data_dir`
    database_url: str | None = None  # a PostgreSQL server (postgresql://…) instead of `db`
    namespace: str = "default"
    embedder: str = DEFAULT_EMBEDDER  # "use" or "st:<sentence-transformers model>"
    durable: bool = True  # every write is synced to disk before it returns
    llm: str = "none"  # "none", "smollm2", "qwen-1.5b", a .gguf path, or "openai:<model>"
    sleep_llm: str | None = None  # the model sleep consolidates with; unset: `llm`
    llm_base_url: str | None = None  # for openai:<model>, e.g. http://localhost:11434/v1
    llm_model: str | None = None  # with llm "openai": the served model's name
    llm_api_key: str | None = None
    # threads of an embedded model (default: every core); 1 is faster on a busy machine,
    # where llama.cpp's threads wait for each other
    llm_threads: int | None = Field(default=None, ge=1)
    ner: bool = False  # sleep runs spaCy / natasha NER (pip install 'kuzya[ner]')
    # a vision model served the OpenAI way (at vision_base_url, else llm_base_url) that
    # describes the images people send; unset: the caption they send with it
    vision_model: str | None = None
    vision_base_url: str | None = None

    @model_validator(mode="after")
    def _resolved(self) -> Settings:
        """The store file follows `data_dir` unless named; `llm="openai"` takes its
        model from `llm_model`."""
        if "db" not in self.model_fields_set:
            self.db = self.data_dir / "kuzya.db"
        for field in ("llm", "sleep_llm"):
            if getattr(self, field) == "openai":
                if not self.llm_model:
                    raise ValueError(f"{field} 'openai' needs KUZYA_LLM_MODEL (the model's name)")
                setattr(self, field, f"openai:{self.llm_model}")
        return self

    @property
    def store(self) -> str | Path:
        """Where the memory lives: the PostgreSQL URL if one is set, else the file."""
        return self.database_url or self.db

    @property
    def images_dir(self) -> Path:
        """Where image files live: beside the store file, or in `data_dir` for PostgreSQL."""
        if self.database_url:
            return self.data_dir / "images"
        return self.db.parent / f"{self.db.stem}-images"

    @property
    def vision(self) -> LLM | None:
        """The vision model, if one is named."""
        if not self.vision_model:
            return None
        return load_llm(
            f"openai:{self.vision_model}",
            base_url=self.vision_base_url or self.llm_base_url,
            api_key=self.llm_api_key,
        )

    @property
    def sleeps_with(self) -> str:
        """The spec of the model sleep consolidates with."""
        return self.sleep_llm or self.llm

    def load_llm(self, spec: str) -> LLM | None:
        """The model `spec` names (None for "none"), served at `llm_base_url` if it is
        an OpenAI-compatible one."""
        return load_llm(
            spec, base_url=self.llm_base_url, api_key=self.llm_api_key, threads=self.llm_threads
        )


def settings(**given: Any) -> Settings:
    """The settings: each value given (None: not given), else its KUZYA_ variable, else
    the default. A bad value is an `InvalidInput` naming the variable."""
    return built(Settings, given)


Built = TypeVar("Built", bound=Settings)


def built(kind: type[Built], given: dict[str, Any]) -> Built:
    """`kind` from the values given (None: not given) and the environment."""
    try:
        return kind(**{key: value for key, value in given.items() if value is not None})
    except ValidationError as exc:
        names = ("_".join(map(str, e["loc"])) for e in exc.errors())
        problems = "; ".join(
            f"{name} (KUZYA_{name.upper()}): {e['msg']}" if name else e["msg"]
            for name, e in zip(names, exc.errors(), strict=True)
        )
        raise InvalidInput(f"bad setting: {problems}") from None
