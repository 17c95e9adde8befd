"""`kuzya chat`, `kuzya sleep`, `kuzya profile` and answer-mode scenarios through the CLI
runner, on real store files and the real embedder (no model: extractive replies)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kuzya.bench.scenarios import evaluate
from kuzya.cli.app import app
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.testing import ScriptedLLM
from tests.cli.chatting import chat_once

runner = CliRunner()


def session(name: str, day: int, *texts: str) -> dict[str, object]:
    return {
        "id": name,
        "time": f"2026-03-{day:02d}T09:00:00",
        "participants": ["user"],
        "messages": [{"speaker": "user", "text": text} for text in texts],
    }


def probe(after: str, question: str, expect: list[str], none: list[str]) -> dict[str, object]:
    return {
        "after": after,
        "time": "2026-03-20T09:00:00",
        "participants": ["user"],
        "speaker": "user",
        "question": question,
        "expect_any": expect,
        "expect_none": none,
    }


def scenarios(folder: Path) -> Path:
    """Two scenarios in the shared format: a name that changed, and three facts at once."""
    conflict = {
        "name": "conflict",
        "sessions": [
            session("s1", 1, "My name is Alice."),
            session("s2", 10, "Big news: I changed my name to Bob."),
        ],
        "probes": [probe("s2", "What is my name?", ["Bob"], ["Alice"])],
    }
    multi = {
        "name": "multi",
        "sessions": [
            session("s1", 1, "I have a dog named Rex, I live in Lisbon, and I play the cello."),
            session("s2", 2, "Recommend me a podcast about history."),
        ],
        "probes": [
            probe("s2", "What is my dog's name?", ["Rex"], []),
            probe("s2", "Which city do I live in?", ["Lisbon"], []),
        ],
    }
    for scenario in (conflict, multi):
        (folder / f"{scenario['name']}.json").write_text(json.dumps(scenario), encoding="utf-8")
    return folder


def chat(db: Path, lines: list[str]) -> str:
    result = runner.invoke(
        app,
        ["chat", "--user", "ana", "--llm", "none", "--db", str(db)],
        input="\n".join(lines) + "\n",
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_chat_remembers_across_restarts_and_commands_work(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    out = chat(db, ["I have a cat named Luna and I live in Porto.", "/end", "/quit"])
    assert "assistant>" in out and "session ended" in out
    out = chat(db, ["What is my cat's name?", "/profile", "/recall Porto", "/quit"])
    assert "Luna" in out.split("assistant>")[1]
    assert "ana lives in Porto" in out  # the profile
    out = chat(db, ["/forget lives in", "/forget Porto", "/profile", "/quit"])
    assert "forgot 1 facts" in out
    assert "lives in Porto" not in out.split("forgot 1 facts")[-1]


def test_chat_without_a_model_greets_notes_and_lets_thanks_go(tmp_path: Path) -> None:
    out = chat(tmp_path / "chat.db", ["hi", "thanks", "I live in Porto.", "/quit"])
    assert out.count("assistant>") == 2
    assert "assistant> Hi!" in out and "assistant> Noted." in out


def test_sleep_and_profile_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "k.db")
    runner.invoke(
        app,
        ["remember", "I live in Lisbon.", "-s", "ana", "--db", db, "--time", "2026-03-01T09:00:00"],
        catch_exceptions=False,
    )
    runner.invoke(
        app,
        [
            "remember",
            "We moved to Austin.",
            "-s",
            "ana",
            "--db",
            db,
            "--time",
            "2026-04-01T09:00:00",
        ],
        catch_exceptions=False,
    )
    result = runner.invoke(app, ["sleep", "--db", db, "--now", "2026-04-02T09:00:00"])
    report = json.loads(result.output)
    assert report["episodes"] == 2 and report["claims"] == 2
    current = runner.invoke(app, ["profile", "ana", "--db", db]).output
    assert "ana lives in Austin" in current and "Lisbon" not in current
    past = runner.invoke(app, ["profile", "ana", "--past", "--db", db]).output
    assert "Lisbon" in past and "no longer true" in past


def test_eval_scenarios_answer_mode_without_a_model(tmp_path: Path) -> None:
    out = tmp_path / "answer.json"
    folder = tmp_path / "scenarios"
    folder.mkdir()
    result = runner.invoke(
        app,
        [
            "eval",
            "scenarios",
            str(scenarios(folder)),
            "--mode",
            "answer",
            "--llm",
            "none",
            "--json",
            str(out),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["mode"] == "answer" and report["llm"] == "none"
    assert report["total"] == 3 and report["accuracy"] == 1.0
    assert "Alice" not in report["probes"][0]["checked"]  # superseded: not even in the reply


def test_eval_scenarios_strict_recall(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["eval", "scenarios", str(scenarios(tmp_path)), "--strict"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "accuracy mean 1.000" in result.output


def test_sleep_with_ner_types_the_names(tmp_path: Path) -> None:
    db = str(tmp_path / "k.db")
    for text in (
        "Yesterday I had lunch with Angela Merkel in Berlin.",
        "Paris was lovely, we walked for hours.",  # a place the hot path leaves to NER
    ):
        runner.invoke(app, ["remember", text, "-s", "ana", "--db", db], catch_exceptions=False)
    result = runner.invoke(app, ["sleep", "--ner", "--db", db], catch_exceptions=False)
    report = json.loads(result.output)
    assert report["typed"] >= 1 and report["ner_mentions"] >= 1
    plain = json.loads(runner.invoke(app, ["sleep", "--db", db]).output)
    assert plain["ner_mentions"] == 0 and plain["episodes"] == 0


def test_answer_mode_prepares_each_chat_and_times_both_ways(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    # a session's questions with memory, one after another, then the same without memory
    llm = ScriptedLLM(["hi", "Bob.", "I don't know.", "Rex.", "Lisbon.", "No idea.", "?"])
    report = evaluate([scenarios(tmp_path)], use_embedder, llm=llm, answer_mode=True)
    assert report["accuracy"] == 1.0 and report["total"] == 3
    # per probe: its prefix read ahead and the reply; the bare model's prefix and reply
    assert len(llm.prefilled) == 6 and llm.pending == 0
    assert "Rex" in llm.calls[3].messages[0].content  # read ahead, in the system prompt
    with_memory = [c for c in llm.calls if "What you know about user" in c.messages[0].content]
    assert len(with_memory) == 3
    for call in with_memory:
        assert any(call.messages[: len(p)] == p for p in llm.prefilled)
    # cold: the first question after each session, its prefix read whole, then its reply
    assert report["cold_reply_seconds"] > 0 and report["reply_seconds"] > 0
    assert report["prepare_seconds"] > 0
    assert report["cold_latency_ratio"] > 0 and report["latency_ratio"] > 0


EXTRACTION = json.dumps(
    {
        "facts": [{"message": 0, "subject": "ana", "attribute": "pet", "value": "a ferret"}],
        "summaries": [],
        "forget": [],
    }
)


def scripted_chat(
    db: Path, monkeypatch: pytest.MonkeyPatch, llm: ScriptedLLM, *options: str
) -> str:
    """`kuzya chat --llm scripted` (the spec loads `llm`), one message, /end, /quit."""
    monkeypatch.setattr(
        "kuzya.config.load_llm", lambda spec, **_: llm if spec == "scripted" else None
    )
    monkeypatch.delenv("KUZYA_SLEEP_LLM", raising=False)
    return chat_once(db, "scripted", "I keep a small animal at home.", *options)


def test_chat_sleeps_with_its_own_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_embedder: Embedder
) -> None:
    llm = ScriptedLLM(["Noted.", EXTRACTION])
    out = scripted_chat(tmp_path / "c.db", monkeypatch, llm)
    assert "sleeping with scripted" in out
    assert "consolidated 2 messages with scripted (model calls: 1)" in out
    consolidating = [c for c in llm.calls if c.json_schema is not None]
    assert len(consolidating) == 1 and "small animal" in consolidating[0].messages[-1].content
    with Memory.open(tmp_path / "c.db", embedder=use_embedder, llm="none") as memory:
        facts = memory.facts(subject="ana", participants=["ana"])
    assert [(f.value, f.origin) for f in facts] == [("a ferret", "llm:scripted")]


def test_chat_sleep_llm_none_consolidates_by_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = ScriptedLLM(["Noted."])
    out = scripted_chat(tmp_path / "c.db", monkeypatch, llm, "--sleep-llm", "none")
    assert "sleeping with rules" in out and "consolidated 2 messages by rules" in out
    assert len(llm.calls) == 1 and llm.calls[0].json_schema is None  # the reply alone


def test_sleep_command_reads_kuzya_llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = ScriptedLLM([EXTRACTION])
    monkeypatch.setattr(
        "kuzya.config.load_llm", lambda spec, **_: llm if spec == "scripted" else None
    )
    monkeypatch.setenv("KUZYA_LLM", "scripted")
    monkeypatch.delenv("KUZYA_SLEEP_LLM", raising=False)
    db = str(tmp_path / "k.db")
    runner.invoke(app, ["remember", "I keep a small animal.", "-s", "ana", "--db", db])
    report = json.loads(runner.invoke(app, ["sleep", "--db", db], catch_exceptions=False).output)
    assert report["episodes"] == 1 and llm.pending == 0
