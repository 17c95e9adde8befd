"""Settings come from explicit values, else KUZYA_* variables, else defaults, in the
Python API (`Memory.open`) as in the CLI; a bad value is one clear `InvalidInput`."""

from __future__ import annotations

from pathlib import Path

import pytest

from kuzya.config import Settings, settings
from kuzya.embed import Embedder
from kuzya.entities.ner import ModelNER
from kuzya.errors import InvalidInput
from kuzya.llm.openai import OpenAICompatible
from kuzya.memory import Memory

SERVER = "http://127.0.0.1:9/v1"  # never called: opening a memory does not reach the model


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in Settings.model_fields:
        monkeypatch.delenv(f"KUZYA_{name.upper()}", raising=False)
    return monkeypatch


def test_memory_open_reads_every_setting_from_the_environment(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("KUZYA_DB", str(tmp_path / "env.db"))
    clean_env.setenv("KUZYA_NAMESPACE", "from-env")
    clean_env.setenv("KUZYA_EMBEDDER", "hash")
    clean_env.setenv("KUZYA_DURABLE", "false")
    clean_env.setenv("KUZYA_LLM", "openai:served-model")
    clean_env.setenv("KUZYA_LLM_BASE_URL", SERVER)
    clean_env.setenv("KUZYA_NER", "true")
    with Memory.open() as memory:
        memory.remember("I live in Porto.", speaker="ana")
        assert memory.namespace == "from-env" and memory.embedder.name == "hash"
        assert isinstance(memory.llm, OpenAICompatible)
        assert memory.llm.base_url == SERVER and memory.llm.name == "openai:served-model"
        assert isinstance(memory.ner, ModelNER)
        synchronous = memory.store._db.execute("PRAGMA synchronous").fetchone()[0]  # type: ignore[attr-defined]
        assert synchronous == 1  # NORMAL, not FULL
    assert (tmp_path / "env.db").is_file()


def test_explicit_arguments_beat_the_environment(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, use_embedder: Embedder
) -> None:
    clean_env.setenv("KUZYA_DB", str(tmp_path / "env.db"))
    clean_env.setenv("KUZYA_NAMESPACE", "from-env")
    clean_env.setenv("KUZYA_LLM", "openai:served-model")
    clean_env.setenv("KUZYA_LLM_BASE_URL", SERVER)
    clean_env.setenv("KUZYA_NER", "true")
    path = tmp_path / "given.db"
    with Memory.open(
        path, namespace="given", embedder=use_embedder, llm="none", ner=False
    ) as memory:
        memory.remember("I live in Porto.", speaker="ana")
        assert memory.namespace == "given" and memory.embedder is use_embedder
        assert memory.llm is None and memory.ner is None
    assert path.is_file() and not (tmp_path / "env.db").exists()


def test_sleep_llm_outranks_llm_for_the_model_memory_sleeps_with(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, use_embedder: Embedder
) -> None:
    clean_env.setenv("KUZYA_LLM", "openai:chat-model")
    clean_env.setenv("KUZYA_SLEEP_LLM", "none")
    clean_env.setenv("KUZYA_LLM_BASE_URL", SERVER)
    with Memory.open(tmp_path / "k.db", embedder=use_embedder) as memory:
        assert memory.llm is None
    config = settings(llm="smollm2")
    assert config.llm == "smollm2" and config.sleeps_with == "none"
    clean_env.delenv("KUZYA_SLEEP_LLM")
    assert settings(llm="smollm2").sleeps_with == "smollm2"


def test_a_bad_setting_is_one_clear_error(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, use_embedder: Embedder
) -> None:
    clean_env.setenv("KUZYA_DURABLE", "sometimes")
    with pytest.raises(InvalidInput, match=r"durable \(KUZYA_DURABLE\)"):
        Memory.open(tmp_path / "k.db", embedder=use_embedder)
    clean_env.delenv("KUZYA_DURABLE")
    clean_env.setenv("KUZYA_LLM", "openai:served-model")
    with pytest.raises(InvalidInput, match="KUZYA_LLM_BASE_URL"):
        Memory.open(tmp_path / "k.db", embedder=use_embedder)
