"""Random command lines against a real store: every run ends in a result or one line of
error, never a traceback, and a command that fails leaves the store as it was."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kuzya import memory as memory_module
from kuzya.cli.app import app
from kuzya.embed import Embedder
from kuzya.errors import KuzyaError
from kuzya.memory import Memory

runner = CliRunner()

# plausible values most of the time, anything at all (surrogates, controls) otherwise
wild = st.text(st.characters(blacklist_categories=()), max_size=40)
words = st.one_of(
    st.sampled_from(["I moved to Rome", "где живёт Ана?", "my cat", "Tom", "lives_in", "x"]),
    st.text(max_size=30),
    wild,
)
ids = st.one_of(st.sampled_from(["ana", "bo", "assistant", "José", "Jose\u0301"]), wild)
people = st.lists(ids, min_size=1, max_size=4).map(",".join)
numbers = st.one_of(
    st.integers(1, 5), st.integers(-(2**70), 2**70), st.sampled_from(["0", "nan", "1e9", "x"])
)
moments = st.one_of(
    st.datetimes().map(lambda d: d.isoformat()),
    st.sampled_from(["2026-05-01T10:00:00", "0001-01-01", "9999-12-31T23:59:59", "2026-02-30"]),
    wild,
)


def option(name: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [name, str(v)]))


def command(name: str, *parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.tuples(*parts).map(lambda chosen: [name, *(a for part in chosen for a in part)])


def one(values: st.SearchStrategy[Any]) -> st.SearchStrategy[list[str]]:
    return values.map(lambda v: [str(v)])


COMMANDS = st.one_of(
    command("remember", one(words), ids.map(lambda v: ["-s", v]), option("-p", people),
            option("-c", ids), option("--time", moments)),
    command("recall", one(words), people.map(lambda v: ["-p", v]), option("--now", moments),
            option("--limit", numbers), option("--budget-words", numbers), option("-c", ids)),
    command("history", one(numbers), option("-p", people)),
    command("forget", one(numbers), option("-p", people)),
    command("forget", option("-s", ids), option("--attribute", words), option("--about", words),
            st.sampled_from([[], ["--everything"]])),
    command("profile", one(ids), option("-p", people), st.sampled_from([[], ["--past"]])),
    command("sleep", option("--now", moments), st.sampled_from([[], ["--jump"]])),
    command("stats"),
    command("check"),
    command("import", one(st.sampled_from(["good.jsonl", "bad.jsonl", "noise.json"]))),
)  # fmt: skip


def fingerprint(path: Path) -> dict[str, int]:
    """Rows in every table: what a failed command must leave as it was."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    counts = {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    db.close()
    return counts


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, use_embedder: Embedder) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "kuzya.db"
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        memory.remember("I live in Oslo", speaker="ana", participants=["ana", "bo"])
        memory.remember("My cat is Tom", speaker="bo", participants=["bo"])
    lines = [{"text": "hi there", "speaker": "ana", "id": 1}, {"text": "привет", "speaker": "bo"}]
    (folder / "good.jsonl").write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    (folder / "bad.jsonl").write_text('{"text": "x", "speaker": "a"}\n{"text": 5}\n', "utf-8")
    (folder / "noise.json").write_bytes(bytes(range(256)) * 4)
    return path


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(args=COMMANDS)
def test_random_command_lines_end_cleanly(
    args: list[str], store: Path, use_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_module, "load_embedder", lambda spec: use_embedder)
    monkeypatch.chdir(store.parent)
    before = fingerprint(store)
    result = runner.invoke(app, [*args, "--db", str(store)])
    failure = result.exception
    if isinstance(failure, SystemExit):
        failure = None
    assert failure is None or isinstance(failure, KuzyaError), (args, repr(failure))
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        assert fingerprint(store) == before, args
    event(f"{args[0]} exit {result.exit_code}")
