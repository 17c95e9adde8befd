"""`kuzya chat --llm smollm2` consolidates with SmolLM2 at /end (the real model through
llama.cpp, the real embedder, a real store file), and with rules when told to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.cli.chatting import chat_once

pytestmark = pytest.mark.llm


def chat(db: Path, *options: str) -> str:
    return chat_once(db, "smollm2", "I have a dog named Rex and I live in Lisbon.", *options)


def test_chat_sleeps_with_its_model_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUZYA_SLEEP_LLM", raising=False)
    out = chat(tmp_path / "a.db")
    assert "with llama:smollm2, sleeping with llama:smollm2" in out
    ended = re.search(r"consolidated (\d+) messages with llama:smollm2 \(model calls: (\d+)\)", out)
    assert ended is not None, out
    assert int(ended[1]) == 2 and int(ended[2]) >= 1  # the model read the session
    out = chat(tmp_path / "b.db", "--sleep-llm", "none")
    assert "sleeping with rules" in out and "consolidated 2 messages by rules" in out
