"""`kuzya import`: a file is checked whole before anything is written, errors name the
file and line, and running an import again stores nothing twice and finishes what an
interrupted one began (real store files, the real embedder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from kuzya.cli.app import app
from kuzya.embed import Embedder
from kuzya.errors import InvalidInput
from kuzya.memory import Memory

runner = CliRunner()
SRC = Path(__file__).resolve().parents[2] / "src"


def chat_lines(count: int) -> list[str]:
    people = ("ana", "bo", "chen")
    return [
        json.dumps(
            {
                "text": f"Visit {i}: {people[i % 3]} ordered dish number {i * 7 % 101}",
                "speaker": people[i % 3],
                "participants": list(people),
                "time": f"2026-0{1 + i % 9}-1{i % 10}T12:{i % 60:02d}:00Z",
            }
        )
        for i in range(count)
    ]


def write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args: str | Path) -> str:
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def episodes(db: Path, embedder: Embedder) -> list[str]:
    """The texts stored, in order."""
    with Memory.open(db, embedder=embedder, llm="none", read_only=True) as memory:
        return [e.text for e in memory.get_all(limit=100_000)]


def test_an_import_run_twice_stores_everything_once(tmp_path: Path, use_embedder: Embedder) -> None:
    db, lines = tmp_path / "kuzya.db", chat_lines(300)
    chat = write(tmp_path / "chat.jsonl", lines)
    assert "300 messages imported, 0 already stored" in run("import", chat, "--db", db)
    assert "0 messages imported, 300 already stored" in run("import", chat, "--db", db)
    texts = episodes(db, use_embedder)
    assert len(texts) == 300 and len(set(texts)) == 300


def test_an_interrupted_import_is_finished_by_running_it_again(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    db, lines = tmp_path / "kuzya.db", chat_lines(700)
    begun = write(tmp_path / "first" / "chat.jsonl", lines[:260])  # what got in before a crash
    run("import", begun, "--db", db)
    whole = write(tmp_path / "chat.jsonl", lines)
    assert "440 messages imported, 260 already stored" in run("import", whole, "--db", db)
    texts = episodes(db, use_embedder)
    assert sorted(texts) == sorted(json.loads(line)["text"] for line in lines)


def test_ids_in_the_file_are_the_keys(tmp_path: Path, use_embedder: Embedder) -> None:
    db = tmp_path / "kuzya.db"
    first = [json.dumps({"id": n, "text": f"message {n}", "speaker": "ana"}) for n in (1, 2)]
    run("import", write(tmp_path / "a" / "chat.jsonl", first), "--db", db)
    fixed = [json.dumps({"id": 2, "text": "message 2, typo fixed", "speaker": "ana"}),
             json.dumps({"id": 3, "text": "message 3", "speaker": "ana"})]  # fmt: skip
    assert "1 messages imported, 1 already stored" in run(
        "import", write(tmp_path / "chat.jsonl", fixed), "--db", db
    )
    assert episodes(db, use_embedder) == ["message 1", "message 2", "message 3"]


def test_a_bad_line_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    db, lines = tmp_path / "kuzya.db", chat_lines(700)
    lines[600] = json.dumps({"text": "no speaker here"})
    chat = write(tmp_path / "chat.jsonl", lines)
    result = runner.invoke(app, ["import", str(chat), "--db", str(db)])
    assert isinstance(result.exception, InvalidInput)
    assert str(result.exception).startswith(f"{chat}:601: ")
    assert not db.exists()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cli = subprocess.run(
        [sys.executable, "-m", "kuzya", "import", str(chat), "--db", str(db)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert cli.returncode != 0 and "Traceback" not in cli.stdout + cli.stderr
    assert cli.stdout.strip().startswith("error:") and "chat.jsonl:601:" in cli.stdout
    assert not db.exists()


def test_dry_run_checks_and_counts_and_writes_nothing(tmp_path: Path) -> None:
    db, lines = tmp_path / "kuzya.db", chat_lines(50)
    chat = write(tmp_path / "chat.jsonl", lines)
    assert "50 messages, all valid; no store yet" in run("import", chat, "--db", db, "--dry-run")
    assert not db.exists()
    run("import", write(tmp_path / "part" / "chat.jsonl", lines[:20]), "--db", db)
    before = db.read_bytes()
    out = run("import", chat, "--db", db, "--dry-run")
    assert "20 already stored, 30 to import" in out
    assert db.read_bytes() == before
