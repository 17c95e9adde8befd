"""Opening a file as a store: refused unchanged when it is not ours or newer, never
created by reading, read-only when it cannot be written; the real `kuzya` command
prints one line for each, no traceback."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kuzya.embed import Embedder
from kuzya.errors import StoreError
from kuzya.memory import Memory
from kuzya.store.sqlite.schema import APPLICATION_ID, SCHEMA_VERSION
from kuzya.store.sqlite.store import SQLiteStore

SRC = Path(__file__).resolve().parents[2] / "src"


def kuzya(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The real command line."""
    command = [sys.executable, "-m", "kuzya", *map(str, args)]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    output = (result.stdout + result.stderr).strip()
    assert result.returncode != 0, output
    assert "Traceback" not in output, output
    assert output.startswith("error:") and len(output.splitlines()) <= 3, output
    flat = " ".join(output.split())
    assert all(word in flat for word in words), output


def digest(folder: Path) -> dict[str, str]:
    """Every file in the folder with a hash of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def holding_oslo(path: Path, embedder: Embedder) -> Path:
    """`path` made a store with one memory, "I live in Oslo"."""
    with Memory.open(path, embedder=embedder, llm="none") as memory:
        memory.remember("I live in Oslo", speaker="ana", participants=["ana"])
    return path


def behind_our_back(path: Path, *statements: str) -> None:
    """Change the file with plain SQLite, as another program would."""
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def other_app(path: Path) -> None:
    behind_our_back(
        path,
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)",
        "INSERT INTO invoices (total) VALUES (12.5)",
    )


def test_another_applications_database_is_left_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "other_app.db"
    other_app(path)
    before = digest(tmp_path)
    for command in (("stats",), ("recall", "invoices", "-p", "ana"), ("remember", "hi", "-s", "a")):
        one_line_error(kuzya(*command, "--db", path), "not a Kuzya store")
    assert digest(tmp_path) == before  # no WAL switch, no tables, no -wal file
    with pytest.raises(StoreError, match="another application"):
        SQLiteStore(path)
    assert digest(tmp_path) == before


def test_a_foreign_application_id_and_a_file_that_is_not_sqlite_are_refused(
    tmp_path: Path,
) -> None:
    marked = tmp_path / "marked.db"
    # even with a table of Kuzya's name
    behind_our_back(marked, "PRAGMA application_id = 1234", "CREATE TABLE migrations (name TEXT)")
    text = tmp_path / "notes.txt"
    text.write_text("shopping list: eggs, milk\n" * 100)
    before = digest(tmp_path)
    for path in (marked, text):
        with pytest.raises(StoreError, match="not a Kuzya store"):
            SQLiteStore(path)
    one_line_error(kuzya("stats", "--db", text), "not a SQLite file")
    assert digest(tmp_path) == before


def test_a_store_from_a_newer_kuzya_is_refused_unchanged(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    path = tmp_path / "new.db"
    holding_oslo(path, use_embedder)
    behind_our_back(path, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = digest(tmp_path)
    with pytest.raises(StoreError, match="newer Kuzya"):
        SQLiteStore(path)
    one_line_error(kuzya("remember", "hi", "-s", "ana", "--db", path), "newer Kuzya", "upgrade")
    assert digest(tmp_path) == before


def test_an_unknown_migration_means_a_newer_kuzya(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SQLiteStore(path).close()
    behind_our_back(path, "INSERT INTO migrations VALUES ('m999_from_the_future', 0)")
    with pytest.raises(StoreError, match="newer Kuzya"):
        SQLiteStore(path)


def test_a_store_from_before_the_mark_opens_and_gets_it(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    path = tmp_path / "old.db"
    holding_oslo(path, use_embedder)
    behind_our_back(path, "PRAGMA application_id = 0", "PRAGMA user_version = 0")
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        assert memory.recall("where does Ana live?", participants=["ana"]).items
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_reading_commands_never_create_a_store(tmp_path: Path) -> None:
    path = tmp_path / "typo" / "kuzya.db"
    for command in (("stats",), ("recall", "anything", "-p", "ana"), ("profile", "ana")):
        one_line_error(kuzya(*command, "--db", path), "no store at")
    missing = tmp_path / "kuzya.db"
    one_line_error(kuzya("stats", "--db", missing), "no store at", "nothing was created")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(StoreError, match="no store"):
        SQLiteStore(missing, create=False)
    assert not missing.exists()


def test_a_missing_folder_is_made_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "kuzya.db"
    one_line_error(kuzya("remember", "I live in Oslo", "-s", "ana", "--db", path), "--create")
    assert not (tmp_path / "new").exists()
    made = kuzya("remember", "I live in Oslo", "-s", "ana", "--db", path, "--create")
    assert made.returncode == 0 and "remembered #1" in made.stdout, made.stderr
    found = kuzya("recall", "where does Ana live?", "-p", "ana", "--db", path, "--json")
    assert found.returncode == 0 and "Oslo" in found.stdout, found.stderr


def test_a_path_with_a_nul_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="NUL"):
        SQLiteStore(f"{tmp_path}/a\x00b.db")


def test_a_folder_in_the_way_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    one_line_error(kuzya("stats", "--db", tmp_path), "is a folder")
    one_line_error(
        kuzya("remember", "hi", "-s", "ana", "--db", tmp_path / "file" / "k.db", "--create"),
        "cannot make folder",
    )


@contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """`path` (a file or a folder) cannot be written while inside: by its mode bits, or,
    for root, whom they do not stop, by the file system's immutable attribute."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    assert made.returncode == 0, f"chattr +i {path}: {made.stderr}"
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.fixture
def stored(tmp_path: Path, use_embedder: Embedder) -> Path:
    """A store with one memory."""
    path = tmp_path / "store" / "kuzya.db"
    path.parent.mkdir()
    return holding_oslo(path, use_embedder)


def test_a_store_that_cannot_be_written_still_serves_reads(stored: Path) -> None:
    with unwritable(stored):
        before = stored.read_bytes()
        found = kuzya("recall", "where does Ana live?", "-p", "ana", "--db", stored)
        assert found.returncode == 0 and "Oslo" in found.stdout, found.stdout + found.stderr
        stats = kuzya("stats", "--db", stored)
        assert stats.returncode == 0 and "episodes" in stats.stdout, stats.stderr
        one_line_error(kuzya("remember", "I moved", "-s", "ana", "--db", stored), "not writable")
        assert stored.read_bytes() == before  # SQLite may leave its empty -wal and -shm beside


def test_a_folder_that_cannot_be_written_still_serves_reads(stored: Path) -> None:
    with unwritable(stored.parent):
        found = kuzya("recall", "where?", "-p", "ana", "--db", stored)
        assert found.returncode == 0 and "Oslo" in found.stdout, found.stdout + found.stderr
        assert sorted(p.name for p in stored.parent.iterdir()) == ["kuzya.db"]


def test_read_only_on_request(tmp_path: Path, use_embedder: Embedder) -> None:
    path = tmp_path / "kuzya.db"
    holding_oslo(path, use_embedder)
    with Memory.open(path, embedder=use_embedder, llm="none", read_only=True) as memory:
        assert memory.recall("where does Ana live?", participants=["ana"]).items
        with pytest.raises(StoreError, match="read-only"):
            memory.remember("I moved to Rome", speaker="ana", participants=["ana"])
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        assert memory.stats()["episodes"] == 1
    assert kuzya("stats", "--db", path, "--read-only").returncode == 0


def _damage(path: Path, table: str) -> None:
    """Overwrite the root page of `table` with noise, as a failing disk would."""
    db = sqlite3.connect(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(os.urandom(page_size))


@pytest.mark.parametrize(
    ("table", "recall_reads_it"),
    [("episodes", True), ("episodes_fts_data", True), ("conversations", False)],
)
def test_a_damaged_page_is_one_line_and_no_write_goes_through(
    tmp_path: Path, use_embedder: Embedder, table: str, recall_reads_it: bool
) -> None:
    path = tmp_path / "kuzya.db"
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        memory.remember_many(
            [{"text": f"Note {i}: I live in Oslo", "speaker": "ana", "participants": ["ana"]}
             for i in range(40)]
        )  # fmt: skip
    _damage(path, table)
    before = path.read_bytes()
    with (
        Memory.open(path, embedder=use_embedder, llm="none") as memory,
        pytest.raises(StoreError, match="is damaged"),
    ):
        memory.remember("I moved to Rome", speaker="ana", participants=["ana"])
    assert path.read_bytes() == before
    one_line_error(kuzya("remember", "I moved", "-s", "ana", "--db", path), "is damaged")
    recall = kuzya("recall", "where does Ana live?", "-p", "ana", "--db", path)
    if recall_reads_it:
        one_line_error(recall, "is damaged")
    else:  # what is intact stays readable
        assert recall.returncode == 0 and "Oslo" in recall.stdout, recall.stderr
    assert path.read_bytes() == before


def test_a_full_disk_is_one_line_and_the_write_changes_nothing(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    path = tmp_path / "kuzya.db"
    with Memory.open(path, embedder=use_embedder, llm="none") as memory:
        memory.remember("I live in Oslo", speaker="ana", participants=["ana"])
        pages = memory.store._db.execute("PRAGMA page_count").fetchone()[0]  # type: ignore[attr-defined]
        memory.store._db.execute(f"PRAGMA max_page_count = {pages}")  # type: ignore[attr-defined]
        before = memory.stats()["episodes"]
        with pytest.raises(StoreError, match="the disk is full"):
            memory.remember_many(
                [{"text": f"note {n}: " + "words " * 300, "speaker": "ana"} for n in range(50)]
            )
        assert memory.stats()["episodes"] == before
        assert memory.recall("where does Ana live?", participants=["ana"]).items


def test_a_folder_that_cannot_be_made_is_one_line(stored: Path) -> None:
    target = stored.parent / "new" / "kuzya.db"
    with unwritable(stored.parent):
        one_line_error(
            kuzya("remember", "hi", "-s", "ana", "--db", target, "--create"), "cannot make folder"
        )
    assert not target.parent.exists()
