"""A delete or forget interrupted half-way (the process killed between two of its
transactions) leaves the store whole, and running it again finishes it: no diary entry
keeps a deleted message, no message keeps what was forgotten."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kuzya.forgetting import Eraser
from kuzya.memory import Memory
from kuzya.sleep import diary
from kuzya.store.sqlite.store import SQLiteStore
from kuzya.testing import HashEmbedder


class Killed(BaseException):
    """Stands for SIGKILL: the operation stops here, what it committed stays."""


def slept(path: Path) -> Memory:
    memory = Memory.open(path, embedder=HashEmbedder(), llm="none")
    memory.remember_many(
        [{"text": text, "speaker": "ana", "participants": ["ana", "bo"], "time": f"2025-01-0{n}"}
         for n, text in enumerate((
             "My address is 12 Elm Street. I like ramen.",
             "I live in Oslo.",
             "Still at 12 Elm Street, come by. The tram is slow.",
         ), start=1)]
    )  # fmt: skip
    memory.sleep(now="2025-01-05")
    return memory


def clean(path: Path) -> bool:
    store = SQLiteStore(path, create=False)
    try:
        return all(f.problems == 0 for f in store.check())
    finally:
        store.close()


def kill_on(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, call: int) -> None:
    """Raise Killed at the `call`-th call of `owner.name`."""
    real, calls = getattr(owner, name), []

    def dying(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == call:
            raise Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, dying)


def said(memory: Memory, words: str) -> list[str]:
    texts = [e.text for e in memory.get_all()]
    texts += [d.text for d in memory.diary(participants=["ana", "bo"])]
    texts += [f.statement for f in memory.facts(include_past=True)]
    return [text for text in texts if words in text]


@pytest.mark.parametrize("step", [("Eraser", "redact", 2), ("diary", "rebuild", 1)])
def test_a_forget_killed_half_way_is_finished_by_running_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: tuple[str, str, int]
) -> None:
    memory = slept(tmp_path / "kuzya.db")
    with monkeypatch.context() as patch:
        owner, name, call = step
        kill_on(patch, Eraser if owner == "Eraser" else diary, name, call)
        with pytest.raises(Killed):
            memory.forget("ana", attribute="address", participants=["ana", "bo"])
    assert said(memory, "12 Elm Street")  # not done yet
    assert clean(tmp_path / "kuzya.db")
    memory.forget("ana", attribute="address", participants=["ana", "bo"])
    assert said(memory, "12 Elm Street") == []
    assert [e.text for e in memory.get_all()] == ["I like ramen.", "I live in Oslo.",
                                                  "The tram is slow."]  # fmt: skip
    assert clean(tmp_path / "kuzya.db")
    memory.close()


@pytest.mark.parametrize("owner", [diary, SQLiteStore])
def test_a_delete_killed_half_way_leaves_no_diary_entry_citing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, owner: Any
) -> None:
    path = tmp_path / "kuzya.db"
    memory = slept(path)
    first = memory.get_all()[0].id
    with monkeypatch.context() as patch:
        kill_on(patch, owner, "rebuild" if owner is diary else "delete_episode", 1)
        with pytest.raises(Killed):
            memory.delete(first)
    assert clean(path)
    memory.delete(first)
    assert clean(path)
    assert [d for d in memory.diary(participants=["ana", "bo"]) if first in d.sources] == []
    memory.close()
