"""`kuzya bench locomo --answer`: the F1 normaliser, the fixed sample, the BM25 ranking,
the whole-conversation cut, and the run's control flow with a scripted reader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kuzya.bench import locomo_answer
from kuzya.bench.locomo import TurnIndex
from kuzya.bench.locomo_answer import (
    Window,
    normalise,
    run,
    sample,
    token_f1,
    turns_shown,
    whole_context,
)
from kuzya.bench.locomo_data import LocomoConversation, Question, read_locomo
from kuzya.cli.app import app
from kuzya.errors import InvalidInput
from kuzya.model import Message
from kuzya.testing import HashEmbedder, ScriptedLLM
from tests.bench.test_benchmarks import _locomo_file


def test_normalise_drops_case_punctuation_and_articles() -> None:
    assert normalise("The  Cat, sat on a MAT!") == "cat sat on mat"
    assert normalise("An apple; the end.") == "apple end"
    assert normalise("theatre and anthem") == "theatre and anthem"  # whole words only


def test_token_f1() -> None:
    assert token_f1("Pickle", "pickle.") == 1.0
    assert token_f1("Pickle the cat", "Pickle") == pytest.approx(2 / 3)
    assert token_f1("7 May 2023", "May 7, 2023") == 1.0  # a bag of tokens
    assert token_f1("dog dog", "dog") == pytest.approx(2 / 3)  # repeats count once each
    assert token_f1("a dog", "cat") == 0.0
    assert token_f1("the", "") == 1.0  # both empty once normalised
    assert token_f1("", "cat") == 0.0


def _conversation(name: str, categories: list[int]) -> LocomoConversation:
    questions = [
        Question(f"{name} q{i}", category, (), "" if category == 5 else f"answer {i}")
        for i, category in enumerate(categories)
    ]
    when = datetime(2023, 5, 8)
    return LocomoConversation(name, ("a", "b"), [], [], questions, when)


def test_sample_is_fixed_spread_and_answerable() -> None:
    conversations = [_conversation("x", [1, 5, 2, 3, 4, 5]), _conversation("y", [4] * 6)]
    picked = sample(conversations, 5)
    assert picked == sample(conversations, 5)  # the same every run
    assert [q.text for _, q in picked] == ["x q0", "x q3", "y q0", "y q2", "y q4"]
    assert all(q.category != 5 for _, q in picked)
    assert [i for i, _ in picked] == sorted(i for i, _ in picked)  # grouped by conversation
    every = sample(conversations, 100)  # asked for more than there are: all of them
    assert len(every) == 10 and len({q.text for _, q in every}) == 10


def test_turn_index_ranks_by_bm25_and_packs_the_budget(tmp_path: Path) -> None:
    conv = read_locomo(_locomo_file(tmp_path / "tiny.json"))
    index = TurnIndex(conv)
    order = index.rank("What is the name of Ana's kitten?")
    assert conv.turn_ids[order[0]] in {"D1:1", "D1:3"}
    assert sorted(order) == list(range(len(conv.messages)))
    assert conv.turn_ids[index.rank("marathon in Oslo")[0]] == "D2:1"
    best = index.rank("marathon in Oslo")[0]
    kept, words = index.within("marathon in Oslo", 20)
    assert kept[0] == best and words <= 20
    assert words == sum(index.words[i] for i in kept)
    kept, words = index.within("marathon in Oslo", index.words[best] - 1)
    assert best not in kept and kept and words < index.words[best]  # a misfit is skipped


def test_whole_context_keeps_the_latest_turns_that_fit() -> None:
    when = datetime(2023, 5, 8, 12)
    messages = [
        Message(f"turn number {i} " + "word " * 10, "a" if i % 2 else "b", "c", ("a", "b"), when)
        for i in range(40)
    ]
    conv = LocomoConversation("c", ("a", "b"), messages, [f"D1:{i}" for i in range(40)], [], when)
    window = Window(300, lambda text: len(text.split()))
    context, tokens = whole_context(conv, window, ["short?", "a somewhat longer question?"])
    kept = [item.id for item in context.items]
    assert kept == list(range(40 - len(kept), 40)) and 0 < len(kept) < 40
    assert tokens == window.count(context.as_prompt())
    question = locomo_answer.prompt(conv, context.as_prompt(), "a somewhat longer question?")
    used = sum(window.count(m.content) for m in question)
    assert used + locomo_answer.MAX_TOKENS <= window.tokens
    one_more = turns_shown(conv, range(39 - len(kept), 40)).as_prompt()
    assert (
        window.count(one_more)
        + used
        - tokens
        + locomo_answer.MAX_TOKENS
        + (locomo_answer.TEMPLATE_TOKENS)
        > window.tokens
    )  # it would not have fitted
    with pytest.raises(InvalidInput, match="too small"):
        whole_context(conv, Window(40, window.count), ["short?"])


def test_run_asks_each_context_with_one_prompt_shape(tmp_path: Path) -> None:
    source = _locomo_file(tmp_path / "tiny.json")
    # whole conversation first (its prefix read once), then Kuzya's context, then BM25's
    script = ["Pickle", "19 May 2023", "kitten, running", "maybe"]
    script += ["Answer: Pickle\nmore", "19 May", "no idea", "maybe"]
    script += ["a cat", "19 May 2023", "kitten", "no"]
    reader = ScriptedLLM(script)
    report = run([source], HashEmbedder(), reader, questions=10, budget_words=60)

    assert reader.pending == 0 and len(reader.calls) == 12
    assert report["questions"] == 4  # category 5 left out
    contexts = report["contexts"]
    assert contexts["whole"]["overall"] == {"f1": 1.0, "n": 4}
    assert contexts["kuzya"]["by_category"]["single-hop"]["f1"] == 1.0  # "Answer:" dropped
    assert contexts["kuzya"]["by_category"]["temporal"]["f1"] == pytest.approx(0.8)
    assert contexts["bm25"]["by_category"]["single-hop"]["f1"] == 0.0
    assert contexts["bm25"]["by_category"]["multi-hop"]["f1"] == 0.6667
    assert contexts["bm25"]["context_words"] <= 60
    assert report["conversations"]["tiny"]["turns"] == 25  # it all fits
    assert report["window_estimated"] is True  # the scripted model cannot count tokens

    asked = [locomo_answer.QUESTION.format(question=q.text) for q in read_locomo(source).questions]
    for call in reader.calls:  # the same prompt but for the context
        assert call.max_tokens == locomo_answer.MAX_TOKENS and call.temperature == 0.0
        system, user = call.messages
        assert system == reader.calls[0].messages[0]
        assert user.content.startswith("Conversation:\n")
        assert any(user.content.endswith(tail) for tail in asked)
    prefix = reader.prefilled[0]
    assert len(reader.prefilled) == 1
    assert all(call.messages[1].content.startswith(prefix[1].content) for call in reader.calls[:4])
    by_question = {a["question"]: a for a in report["answers"]}
    kitten = by_question["What is the name of Ana's kitten?"]
    assert kitten["gold"] == "Pickle" and kitten["kuzya"]["answer"] == "Pickle"


def test_cli_answer_table_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _locomo_file(tmp_path / "tiny.json")
    monkeypatch.setattr(
        "kuzya.config.Settings.load_llm", lambda self, spec: ScriptedLLM(["Pickle"] * 6)
    )
    out = tmp_path / "answer.json"
    command = ["bench", "locomo", str(source), "--answer", "--llm", "smollm2"]
    command += ["--questions", "2", "--embedder", "hash", "--json", str(out)]
    result = CliRunner().invoke(
        app,
        command,
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "kuzya" in result.output and "seconds per answer" in result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["questions"] == 2 and set(report["contexts"]) == {"kuzya", "bm25", "whole"}


def test_cli_answer_mistakes_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _locomo_file(tmp_path / "tiny.json")
    monkeypatch.delenv("KUZYA_LLM", raising=False)
    with pytest.raises(InvalidInput, match="--answer needs a reader model"):
        CliRunner().invoke(
            app, ["bench", "locomo", str(source), "--answer"], catch_exceptions=False
        )
    with pytest.raises(InvalidInput, match="do not go together"):
        CliRunner().invoke(
            app,
            ["bench", "locomo", str(source), "--answer", "--sleep", "--llm", "smollm2"],
            catch_exceptions=False,
        )
    env = {key: value for key, value in os.environ.items() if key != "KUZYA_LLM"}
    env["PYTHONPATH"] = str(Path(locomo_answer.__file__).parents[2])
    done = subprocess.run(
        [sys.executable, "-m", "kuzya", "bench", "locomo", str(source), "--answer"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 2 and "Traceback" not in said
    assert said.splitlines() == ["error: --answer needs a reader model: add --llm qwen-1.5b "
                                 "(or smollm2)"]  # fmt: skip


@pytest.mark.llm
def test_smollm2_answers_three_questions_with_each_context(tmp_path: Path) -> None:
    from kuzya.llm.llama import LlamaCpp

    source = _locomo_file(tmp_path / "tiny.json")
    reader = LlamaCpp("smollm2", n_ctx=1024, threads=1)  # 1: faster on a busy machine
    report = run([source], HashEmbedder(), reader, questions=3, budget_words=60)

    assert report["reader"] == "llama:smollm2" and report["questions"] == 3
    assert report["window_tokens"] == 1024 and report["window_estimated"] is False
    whole = report["conversations"]["tiny"]
    assert 0 < whole["turns"] <= whole["of"] == 25
    assert whole["tokens"] == reader.count_tokens(
        turns_shown(read_locomo(source), range(25 - whole["turns"], 25)).as_prompt()
    )
    for name in locomo_answer.CONTEXTS:
        scores = report["contexts"][name]
        assert scores["overall"]["n"] == 3 and 0.0 <= scores["overall"]["f1"] <= 1.0
        assert scores["seconds_per_answer"] > 0 and scores["prompt_tokens"] > 0
    assert reader.meter.snapshot()["calls"] == 3 * 3 + 1  # and one reading of the prefix
    assert all(isinstance(a[n]["answer"], str) for a in report["answers"] for n in ("kuzya",))
