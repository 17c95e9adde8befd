"""The `kuzya` command through typer's CLI runner, on a real store file and the real embedder."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kuzya.cli.app import app
from kuzya.errors import InvalidInput
from kuzya.memory import Memory

runner = CliRunner()
SRC = Path(__file__).resolve().parents[2] / "src"
T_FAR = datetime(9999, 12, 31, tzinfo=UTC)


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_remember_then_recall_json(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    out = invoke(
        "remember", "I'm allergic to peanuts", "-s", "mika", "-p", "mika,waiter", "--db", db
    )
    assert "remembered #1" in out and "mika, waiter" in out
    invoke("remember", "The weather was rainy", "-s", "jun", "-p", "jun", "--db", db)
    items = json.loads(
        invoke("recall", "what is Mika allergic to?", "-p", "mika,waiter", "--json", "--db", db)
    )
    assert items[0]["text"] == "I'm allergic to peanuts"
    assert items[0]["sources"] == [1]
    assert all(item["speaker"] != "jun" for item in items)  # jun's DM is not visible


def test_privacy_in_group_recall(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    invoke(
        "remember",
        "Secret: I am interviewing at the bakery",
        "-s",
        "mika",
        "-p",
        "mika,waiter",
        "--db",
        db,
    )
    invoke(
        "remember",
        "We passed the sushi course",
        "-s",
        "jun",
        "-p",
        "mika,jun,waiter",
        "-c",
        "group",
        "--db",
        db,
    )
    items = json.loads(
        invoke(
            "recall", "where is Mika interviewing?", "-p", "mika,jun,waiter", "--json", "--db", db
        )
    )
    assert [item["text"] for item in items] == ["We passed the sushi course"]


def test_import_jsonl_stats_history_forget(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        "\n".join(
            json.dumps(
                {
                    "text": f"message number {i} about ramen",
                    "speaker": "ana",
                    "participants": ["ana", "bot"],
                    "time": f"2026-01-0{i + 1}T10:00:00",
                }
            )
            for i in range(3)
        ),
        encoding="utf-8",
    )
    invoke("import", str(chat), "--db", db)
    assert re.search(r"episodes\W+3\b", invoke("stats", "--db", db))
    invoke("forget", "2", "--db", db)
    history = invoke("history", "2", "--db", db)
    assert "ADD" in history and "DELETE" in history and "ramen" not in history
    assert re.search(r"episodes\W+2\b", invoke("stats", "--db", db))


def test_forget_purges_the_file_and_compact_reports_its_size(tmp_path: Path) -> None:
    path = tmp_path / "cli.db"
    chat = tmp_path / "chat.jsonl"
    notes = [f"ordinary note number {i} about lemons" for i in range(30)]
    chat.write_text(
        "\n".join(
            json.dumps({"text": text, "speaker": "ana"})
            for text in ["my locker code is Zanzibarquux", *notes]
        ),
        encoding="utf-8",
    )
    invoke("import", str(chat), "--db", str(path), "-n", "home")
    invoke("forget", "1", "--db", str(path), "-n", "home")
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("cli.db*") if p.is_file())
    assert b"anzibarquux" not in raw and b"ordinary note number 7" in raw
    out = " ".join(invoke("compact", "--db", str(path), "-n", "home").split())
    found = re.fullmatch(r"compacted (\S+): ([\d,]+) -> ([\d,]+) bytes", out)
    assert found is not None, out
    before, after = (int(found[i].replace(",", "")) for i in (2, 3))
    assert Path(found[1]) == path and after == path.stat().st_size and after <= before


def test_bad_input_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    with pytest.raises(InvalidInput):
        runner.invoke(app, ["remember", "   ", "-s", "ana", "--db", db], catch_exceptions=False)


def test_demo_runs_offline_and_shows_privacy() -> None:
    out = invoke("demo")
    assert "13 messages" in out and "namespace noodle-shop" in out
    first = out.split("Does Mika have any food allergies?")[1].split("Where is Mika")[0]
    assert first.index("allergic to peanuts") < first.index("Spicy miso")  # the answer on top
    assert "jun is present" in out
    assert "[health] mika is allergic to peanuts" in out  # the profile after sleep
    assert "kuzya demo --db" in out  # how to keep the temporary store


def test_demo_says_where_it_wrote_and_its_follow_up_commands_work(tmp_path: Path) -> None:
    db = tmp_path / "demo store.db"
    out = invoke("demo", "--db", str(db))
    assert f"Writing to {db}, namespace noodle-shop" in " ".join(out.split("\n")[:2])
    commands = [shlex.split(line) for line in out.splitlines() if line.startswith("  kuzya ")]
    assert [c[1] for c in commands] == ["profile", "recall"]
    profile = invoke(*commands[0][1:])
    assert "[health] mika is allergic to peanuts" in profile
    recall = invoke(*commands[1][1:])
    assert "allergic to peanuts" in recall
    again = runner.invoke(app, ["demo", "--db", str(db)])
    assert isinstance(again.exception, InvalidInput) and "another --db" in str(again.exception)


def test_eval_scenarios_recall_mode(tmp_path: Path) -> None:
    scenario = {
        "name": "t-name",
        "sessions": [
            {
                "id": "s1",
                "time": "2026-03-01T10:00:00",
                "participants": ["u"],
                "messages": [{"speaker": "u", "text": "My name is Alice."}],
            },
            {
                "id": "s2",
                "time": "2026-03-02T10:00:00",
                "participants": ["u", "v"],
                "messages": [{"speaker": "v", "text": "I have a cat named Tom."}],
            },
        ],
        "probes": [
            {
                "after": "s2",
                "time": "2026-03-03T10:00:00",
                "participants": ["u"],
                "speaker": "u",
                "question": "What is my name?",
                "expect_any": ["Alice"],
            },
            {
                "after": "s2",
                "time": "2026-03-03T10:00:00",
                "participants": ["v"],
                "speaker": "v",
                "question": "What is u's name?",
                "expect_any": [],
                "expect_none": ["Alice"],
                "strict_recall": True,
            },
        ],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    out_json = tmp_path / "out.json"
    invoke("eval", "scenarios", str(tmp_path), "--mode", "recall", "--json", str(out_json))
    result = json.loads(out_json.read_text(encoding="utf-8"))
    assert result["total"] == 2 and result["passed"] == 2 and result["accuracy"] == 1.0
    assert "Alice" in result["probes"][0]["checked"]
    assert "Alice" not in result["probes"][1]["checked"]


def test_profile_shows_what_those_present_may_see(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    invoke("remember", "I work at Google.", "-s", "mika", "-p", "mika,jun", "--db", db)
    invoke("remember", "I quit Google, don't tell Jun.", "-s", "mika", "--db", db)
    invoke("sleep", "--db", db)
    assert "mika works at Google" not in invoke("profile", "mika", "--db", db)
    assert "mika works at Google" in invoke("profile", "mika", "-p", "mika,jun", "--db", db)
    assert "mika works at Google" in invoke("profile", "mika", "-p", "jun", "--db", db)
    assert "nothing known" in invoke("profile", "mika", "-p", "bo", "--db", db)


def test_forget_a_memory_or_a_subjects_facts(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    invoke("remember", "My address is 12 Oak Street. I love jazz.", "-s", "mika", "--db", db)
    invoke("remember", "Rainy today.", "-s", "mika", "--db", db)
    invoke("sleep", "--db", db)
    out = invoke("forget", "-s", "mika", "--attribute", "address", "--db", db)
    assert "forgot 1 facts; 1 messages redacted" in out
    assert "Oak" not in invoke("recall", "address", "-p", "mika", "--db", db)
    assert "forgot #2" in invoke("forget", "2", "--db", db)
    assert "#2" not in invoke("recall", "rainy", "-p", "mika", "--json", "--db", db)
    with pytest.raises(InvalidInput, match="give a memory id"):
        runner.invoke(app, ["forget", "--db", db], catch_exceptions=False)


def test_a_bad_setting_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "KUZYA_DURABLE": "sometimes", "PYTHONPATH": str(SRC), "COLUMNS": "60"}
    done = subprocess.run(
        [sys.executable, "-m", "kuzya", "stats", "--db", str(tmp_path / "k.db")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: bad setting: durable (KUZYA_DURABLE)")


def test_help_names_each_options_environment_variable() -> None:
    shown = " ".join(invoke("chat", "--help").split())
    for name in ("KUZYA_LLM", "KUZYA_SLEEP_LLM", "KUZYA_NER", "KUZYA_DB", "KUZYA_NAMESPACE"):
        assert name in shown
    assert "KUZYA_SLEEP_LLM" in invoke("sleep", "--help")


def test_a_far_sleep_is_one_error_line_and_changes_nothing(tmp_path: Path, use_embedder) -> None:
    db = tmp_path / "k.db"
    with Memory.open(db, embedder=use_embedder) as memory:
        memory.remember("Ana, Bob and Carla hiked near Sintra.", speaker="ana", time="2026-03-01")
        memory.sleep(now="2026-03-02")
        entries = memory.diary(participants=["ana"])
        fading = memory.store.faded(memory.namespace, T_FAR, 0.05)
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "60"}
    done = subprocess.run(
        [sys.executable, "-m", "kuzya", "sleep", "--now", "9999-12-31", "--db", str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: sleep's now 9999-12-31 00:00:00+00:00 is ")
    assert f"it would prune {fading} associations and compress 1 diary entries" in lines[0]
    with Memory.open(db, embedder=use_embedder) as memory:
        assert memory.diary(participants=["ana"]) == entries
        assert memory.store.faded(memory.namespace, T_FAR, 0.05) == fading > 0
    report = json.loads(invoke("sleep", "--now", "9999-12-31", "--jump", "--db", str(db)))
    assert report["pruned"] == fading and report["compressed"] == 1
