"""The benchmarks run end to end on small inputs and report the documented JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kuzya.bench import forget, scale
from kuzya.cli.app import app
from kuzya.embed import load_embedder

KEYS = {"recall_budget", "recall_at_10", "n", "context_words"}
CATEGORY_NAMES = {"multi-hop", "temporal", "open-domain", "single-hop"}


def _locomo_file(path: Path) -> Path:
    filler = [
        "I watched a movie about space last night.",
        "The weather has been cold and grey all week.",
        "My brother fixed the old bicycle in the garage.",
        "We had noodles for dinner at the corner shop.",
    ]
    session_1 = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "Hey Ben, guess what, I adopted a kitten!"},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "No way! What did you name it?"},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "Her name is Pickle, she is orange."},
    ] + [
        {"speaker": "Ben" if i % 2 else "Ana", "dia_id": f"D1:{i + 4}", "text": text}
        for i, text in enumerate(filler * 5)
    ]
    session_2 = [
        {
            "speaker": "Ben",
            "dia_id": "D2:1",
            "text": "I ran my first marathon in Oslo yesterday.",
            "blip_caption": "a man running with a medal",
        },
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Congratulations, that is huge!"},
    ]
    data = {
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": session_1,
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": session_2,
        },
        "qa": [
            {
                "question": "What is the name of Ana's kitten?",
                "answer": "Pickle",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {
                "question": "When did Ben run a marathon?",
                "answer": "19 May 2023",
                "evidence": ["D2:01"],
                "category": 2,
            },
            {
                "question": "What pets and sports do Ana and Ben have?",
                "answer": "kitten, running",
                "evidence": ["D1:1; D2:1"],
                "category": 1,
            },
            {"question": "Would Ana like a dog?", "answer": "maybe", "evidence": [], "category": 3},
            {
                "question": "Unanswerable",
                "adversarial_answer": "x",
                "evidence": ["D1:1"],
                "category": 5,
            },
        ],
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_bench_locomo_cli_json_shape(tmp_path: Path) -> None:
    source = _locomo_file(tmp_path / "tiny.json")
    out = tmp_path / "locomo.json"
    result = CliRunner().invoke(
        app,
        ["bench", "locomo", str(source), "--budget-words", "60", "--json", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    for block in (report, report["baseline"]):
        assert set(block["overall"]) >= KEYS
        assert set(block["by_category"]) == CATEGORY_NAMES
        assert block["overall"]["n"] == 3  # category 5 and the evidence-less question left out
        assert 0.0 <= block["overall"]["recall_budget"] <= 1.0
        assert block["overall"]["context_words"] <= 60
    assert report["by_category"]["single-hop"]["recall_budget"] == 1.0
    assert report["by_category"]["temporal"]["recall_at_10"] == 1.0
    assert report["questions_without_evidence"] == 1
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0
    assert report["import_msgs_per_s"] > 0


def test_bench_scale_small(tmp_path: Path) -> None:
    report = scale.run(300, load_embedder("use"), tmp_path, queries_n=20, batch=100)
    assert report["episodes"] == 300
    assert report["import_msgs_per_s"] > 0
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0
    assert report["mean_items"] > 0


def test_bench_forget_small(tmp_path: Path) -> None:
    report = forget.run(300, load_embedder("hash"), tmp_path, deletes=5, batch=100)
    assert report["episodes"] == 300 and report["deletes"] == 5
    assert report["secret_words_left_in_files"] == 0
    assert report["delete_ms"]["p95"] >= report["delete_ms"]["p50"] > 0
    assert report["delete_without_purge_ms"]["p50"] > 0 and report["compact_s"] >= 0
    assert 0 < report["index_bytes"] < report["db_bytes"]
