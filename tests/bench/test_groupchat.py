"""The group-chat benchmark: a deterministic corpus, the documented JSON shape, no leaks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kuzya.bench import groupchat
from kuzya.cli.app import app
from kuzya.embed import load_embedder

TOPIC_KEYS = {"precision_at_10", "n", "key_recall_400"}


def _assert_shape(report: dict[str, Any], messages: int, participants: int, subsets: int) -> None:
    assert report["messages"] == messages
    assert report["participants"] == participants
    assert set(report["topics"]) == {topic.name for topic in groupchat.TOPICS}
    for topic in report["topics"].values():
        assert set(topic) >= TOPIC_KEYS
        assert topic["n"] >= 20
        assert 0.0 <= topic["precision_at_10"] <= 1.0
    assert 0.0 <= report["mean_precision_at_10"] <= 1.0
    privacy = report["privacy"]
    assert privacy["subsets"] == subsets
    assert privacy["checks"] > 0
    assert privacy["violations"] == 0, privacy["examples"]
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0
    assert report["import_msgs_per_s"] > 0


def test_corpus_is_deterministic_and_well_formed() -> None:
    chat = groupchat.generate(300, 12, seed=5)
    again = groupchat.generate(300, 12, seed=5)
    assert [line.message for line in chat.lines] == [line.message for line in again.lines]
    assert chat.group_messages == 300
    assert chat.members[groupchat.GROUP] == {*chat.participants, groupchat.ASSISTANT}
    times = [line.message.time for line in chat.lines]
    assert times == sorted(times)
    assert (times[-1] - times[0]).days >= 3
    for line in chat.lines:  # every message is said to exactly its conversation's members
        assert set(line.message.participants) == chat.members[line.message.conversation]
    # Every side conversation holds markers; each marker is unique and said once.
    sides = set(chat.members) - {groupchat.GROUP}
    assert set(chat.codes.values()) == sides
    for code in chat.codes:
        assert sum(code in line.message.text for line in chat.lines) == 1
    assert any(len(chat.members[c]) == 12 for c in sides)  # everyone but one, + assistant
    keyed = {(line.topic, line.key) for line in chat.lines if line.key is not None}
    assert len(keyed) == sum(len(topic.keys) for topic in groupchat.TOPICS)
    questions = groupchat.questions()
    for topic in groupchat.TOPICS:
        mine = [q for q in questions if q.topic == topic.name]
        assert len(mine) >= 20
        assert sum(not q.keywords for q in mine) > len(mine) // 2  # mostly paraphrased


def test_groupchat_small_with_the_real_embedder(tmp_path: Path) -> None:
    report = groupchat.run(load_embedder("use"), tmp_path, messages=300, subsets=10)
    _assert_shape(report, 300, 12, 10)
    assert report["mean_precision_at_10"] > 0.5  # chance is about a third
    controls = report["privacy"]["secrets_found_by_their_audience"]
    assert controls["total"] > 0 and controls["found"] == controls["total"]


def test_groupchat_cli_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "groupchat.json"
    small = ["--messages", "60", "--participants", "5", "--subsets", "3", "--embedder", "hash"]
    result = CliRunner().invoke(
        app, ["bench", "groupchat", *small, "--json", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    _assert_shape(json.loads(out.read_text(encoding="utf-8")), 60, 5, 3)
