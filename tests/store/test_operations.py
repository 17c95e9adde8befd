"""`kuzya check` finds what is wrong in a store file and `kuzya backup` copies it whole
while another process writes (real files, the real embedder, the real command)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from kuzya.embed import Embedder
from kuzya.errors import InvalidInput
from kuzya.memory import Memory
from kuzya.store.sqlite.store import SQLiteStore
from tests.conftest import PostgresBackend

SRC = Path(__file__).resolve().parents[2] / "src"


def kuzya(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "kuzya", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip


def lived_in(path: Path | str, embedder: Embedder) -> None:
    """A store that has remembered, slept, forgotten and deleted."""
    with Memory.open(path, embedder=embedder, llm="none") as memory:
        memory.remember_many(
            [{"text": text, "speaker": who, "participants": ["ana", "bo"]} for text, who in (
                ("I live in Oslo and my sister Kate lives in Bergen", "ana"),
                ("My cat Tom is allergic to fish", "bo"),
                ("I work at Equinor as an engineer", "ana"),
                ("Kate is coming to visit next week", "ana"),
            )]
        )  # fmt: skip
        memory.remember("My address is 12 Elm Street", speaker="ana", participants=["ana"])
        memory.sleep()
        memory.delete(2, actor="test")
        memory.forget("ana", attribute="address", participants=["ana"])


def test_a_lived_in_store_checks_clean(tmp_path: Path, use_embedder: Embedder) -> None:
    path = tmp_path / "kuzya.db"
    lived_in(path, use_embedder)
    store = SQLiteStore(path, create=False)
    findings = store.check()
    store.close()
    assert len(findings) == 13 and all(f.problems == 0 for f in findings), findings
    result = kuzya("check", "--db", path)
    assert result.returncode == 0 and "all 13 checks passed" in result.stdout, result.stdout


def test_rows_whose_message_is_gone_are_found(tmp_path: Path, use_embedder: Embedder) -> None:
    path = tmp_path / "kuzya.db"
    lived_in(path, use_embedder)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM episodes WHERE id = 1")  # behind Kuzya's back
    db.commit()
    db.close()
    store = SQLiteStore(path, create=False)
    found = {f.check: f.problems for f in store.check()}
    store.close()
    assert found["full-text rows without a message"] == 1
    assert found["claims of deleted messages"] >= 1  # "lives in Oslo", "sister Kate"
    assert found["mentions in deleted messages"] >= 1
    assert found["messages without a full-text row"] == 0
    result = kuzya("check", "--db", path)
    assert result.returncode == 1 and "checks found problems" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_lived_in_postgres_store_checks_clean_and_a_gap_is_found(
    postgres_server: Any, tmp_path: Path, use_embedder: Embedder
) -> None:
    store_backend = PostgresBackend(postgres_server, tmp_path)
    lived_in(store_backend.url, use_embedder)
    result = kuzya("check", "--db", store_backend.url)
    assert result.returncode == 0 and "all 16 checks passed" in result.stdout, result.stdout
    with psycopg.connect(store_backend.url, autocommit=True) as db:  # behind Kuzya's back
        db.execute("DELETE FROM episodes WHERE id = 1")
        db.execute("UPDATE term_stats SET documents = documents + 1 WHERE term = 'oslo'")
    store = store_backend.open()
    found = {f.check: f.problems for f in store.check()}
    store.close()
    assert found["full-text documents or postings without a message"] >= 1
    assert found["vectors without a message or of another audience"] == 1
    assert found["term statistics against the postings"] == 1
    assert found["claims of deleted messages"] >= 1
    assert found["messages without a vector"] == 0
    result = kuzya("check", "--db", store_backend.url)
    assert result.returncode == 1 and "checks found problems" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_checking_an_empty_postgres_database_creates_nothing(postgres_server: Any) -> None:
    url = postgres_server.database("t_check_empty")
    result = kuzya("check", "--db", url)
    said = (result.stdout + result.stderr).strip()
    assert result.returncode != 0 and "Traceback" not in said
    assert said.splitlines()[-1].startswith("error: no store in postgresql://")
    with psycopg.connect(url) as db:
        assert db.execute("SELECT to_regclass('migrations')").fetchone() == (None,)


def test_a_damaged_page_is_reported_not_raised(tmp_path: Path, use_embedder: Embedder) -> None:
    path = tmp_path / "kuzya.db"
    lived_in(path, use_embedder)
    db = sqlite3.connect(path)
    page = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'claims'").fetchone()[0]
    db.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * page)
        file.write(os.urandom(page))
    result = kuzya("check", "--db", path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "file integrity" in result.stdout and "checks found problems" in result.stdout


WRITER = """
import sys, time
from kuzya.memory import Memory
with Memory.open(sys.argv[1], llm="none") as memory:
    for n in range(10_000):
        memory.remember(f"note {n}: the tide was {n % 7} metres", speaker="ana")
        if n == 5:
            print("writing", flush=True)
"""


def test_a_backup_is_whole_while_another_process_writes(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    path = tmp_path / "kuzya.db"
    lived_in(path, use_embedder)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], env=env,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
        copies = []
        for n in range(3):
            copy = tmp_path / f"backup-{n}.db"
            result = kuzya("backup", copy, "--db", path)
            assert result.returncode == 0, result.stdout + result.stderr
            copies.append(copy)
            time.sleep(0.2)
        assert writer.poll() is None, "the writer should still be writing"
    finally:
        writer.kill()
        writer.wait()
    counts = []
    for copy in copies:
        assert sorted(p.name for p in tmp_path.glob(copy.name + "*")) == [copy.name]
        store = SQLiteStore(copy, create=False)
        assert all(f.problems == 0 for f in store.check()), copy
        counts.append(store.stats("default")["episodes"])
        store.close()
    assert counts == sorted(counts) and counts[-1] > counts[0] >= 10


def test_a_backup_never_overwrites(tmp_path: Path, use_embedder: Embedder) -> None:
    path = tmp_path / "kuzya.db"
    lived_in(path, use_embedder)
    taken = tmp_path / "taken.db"
    taken.write_text("someone's notes")
    store = SQLiteStore(path, create=False)
    with pytest.raises(InvalidInput, match="never overwrites"):
        store.backup(taken)
    store.close()
    assert taken.read_text() == "someone's notes"
