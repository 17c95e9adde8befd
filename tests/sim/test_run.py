"""Whole runs: reproducible from the seed, the targets met on a short run, a model's bad
JSON falls back to the rules, and the CLI's files and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kuzya.cli.app import app
from kuzya.embed import Embedder
from kuzya.errors import InvalidInput
from kuzya.memory import Memory
from kuzya.sim import plot
from kuzya.sim.customers import script
from kuzya.sim.run import NAMESPACE, play, run
from kuzya.testing import ScriptedLLM
from tests.llm.scripted_server import ok, running

SRC = Path(__file__).resolve().parents[2] / "src"
REQUIRED = ("preference_recall", "stale_rate", "allergy_violations", "leaks",
            "prompt_words_slope", "visits")  # fmt: skip


def _without_time(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


def test_the_same_seed_gives_the_same_totals(use_embedder: Embedder) -> None:
    one = run(days=8, customers=10, seed=3, embedder=use_embedder)
    again = run(days=8, customers=10, seed=3, embedder=use_embedder)
    assert one.totals == again.totals
    assert _without_time(one.days) == _without_time(again.days)
    other = run(days=8, customers=10, seed=4, embedder=use_embedder)
    assert other.totals != one.totals


@pytest.mark.parametrize("seed", [11, 12])
def test_a_short_run_meets_the_targets(seed: int, use_embedder: Embedder) -> None:
    totals = run(days=21, customers=16, seed=seed, embedder=use_embedder).totals
    assert totals["return_proposals"] > 20 and totals["proposals_after_a_change"] > 0
    assert totals["preference_recall"] >= 0.95
    assert totals["stale_rate"] <= 0.05
    assert totals["allergy_violations"] == 0 and totals["leaks"] == 0
    assert totals["prompt_words_slope"] < totals["naive_prompt_words_slope"] / 10


def test_bad_model_output_falls_back_to_the_rules(tmp_path: Path, use_embedder: Embedder) -> None:
    # never usable JSON for the diary, and a line that loses every name for the waiter
    junk = ScriptedLLM(['{"event": "nothing, "preference"'] * 10_000)
    with Memory.open(tmp_path / "j.db", namespace=NAMESPACE, embedder=use_embedder,
                     llm="none") as memory:  # fmt: skip
        totals = play(memory, script(2, 8, 4), llm=junk).totals
        entries = memory.diary(participants=["waiter"], kind="conversation")
    assert junk.calls and junk.pending  # asked, and the script did not run dry
    assert totals["diary_fallbacks"] == totals["diary_written"] > 0
    assert totals["line_fallbacks"] > 0
    for entry in entries:
        assert entry.origin == "rules"
        note = json.loads(entry.text.split(": ", 1)[1])
        assert set(note) == {"event", "preference", "action"} and note["event"]


def test_the_cli_writes_the_json_and_the_plot(tmp_path: Path) -> None:
    out, png = tmp_path / "run" / "totals.json", tmp_path / "run" / "shop.png"
    result = CliRunner().invoke(
        app,
        ["sim", "noodle-shop", "--days", "3", "--customers", "4", "--seed", "2",
         "--json", str(out), "--plot", str(png)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "preference recall" in result.output and f"wrote {png}" in result.output
    report = json.loads(out.read_text())
    assert all(key in report for key in REQUIRED)
    assert report["days"] == 3 and len(report["per_day"]) == 3
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--days", "0"], "error: --days takes 1 to 3,650, not 0"),
        (["--customers", "1"], "error: --customers takes 2 to 1,000, not 1"),
        (["--llm", "openai:some-model"], "error: openai:some-model needs a server"),
    ],
)
def test_a_bad_option_is_one_error_line(options: list[str], said: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUZYA_")}
    env.update(PYTHONPATH=str(SRC), COLUMNS="200")
    done = subprocess.run(
        [sys.executable, "-m", "kuzya", "sim", "noodle-shop", *options],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith(said)


def test_plot_names_the_extra_when_matplotlib_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plot.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(InvalidInput, match=r"pip install 'kuzya\[report\]'"):
        plot.require()


def test_an_openai_compatible_server_writes_the_diary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = json.dumps({"event": "mika, jun, ana, bo and leo ate noodles",
                       "preference": "spicy", "action": "served"})  # fmt: skip
    out, db = tmp_path / "totals.json", tmp_path / "shop.db"
    with running() as server:
        server.script(*(ok(note) for _ in range(200)))
        monkeypatch.setenv("KUZYA_LLM_BASE_URL", server.base_url)
        result = CliRunner().invoke(
            app,
            ["sim", "noodle-shop", "--days", "3", "--customers", "5", "--llm", "openai:fake",
             "--json", str(out), "--db", str(db)],
            catch_exceptions=False,
        )  # fmt: skip
        asked = [r.body for r in server.requests]
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["llm"] == "openai:fake" and report["diary_fallbacks"] == 0
    assert report["line_fallbacks"] > 0  # a JSON note is no line for a customer
    assert any("response_format" in body for body in asked)  # the diary asks for JSON
    with Memory.open(db, namespace=NAMESPACE, llm="none") as memory:
        entries = memory.diary(participants=["waiter"], kind="conversation")
    assert entries and all(e.origin == "llm:openai:fake" for e in entries)
    assert all(json.loads(e.text.split(": ", 1)[1]) == json.loads(note) for e in entries)
