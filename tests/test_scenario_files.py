"""The multi-session scenarios in scenarios/ load with Kuzya's loader and are well formed."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from kuzya.bench.scenarios import Runner, files, load
from kuzya.memory import Memory
from kuzya.model import is_assistant

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
PATHS = files([SCENARIOS])


def _loaded():
    return [load(path) for path in PATHS]


def test_enough_files_and_probes() -> None:
    scenarios = _loaded()
    assert len(scenarios) >= 40
    assert sum(len(s.probes) for s in scenarios) >= 200


def test_both_languages_present() -> None:
    by_language: dict[str, int] = {}
    for scenario in _loaded():
        by_language[scenario.language] = by_language.get(scenario.language, 0) + 1
    assert by_language.get("en", 0) >= 15
    assert by_language.get("ru", 0) >= 15


def test_names_are_unique() -> None:
    names = [s.name for s in _loaded()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_sessions_and_probes_are_consistent(path: Path) -> None:
    scenario = load(path)
    assert scenario.sessions and scenario.probes
    times: dict[str, datetime] = {}
    previous: datetime | None = None
    for session in scenario.sessions:
        assert session.id not in times, f"duplicate session id {session.id}"
        when = datetime.fromisoformat(session.time)
        assert previous is None or when > previous, (
            f"session {session.id} is not after the one before"
        )
        previous = when
        times[session.id] = when
        assert session.messages
        for message in session.messages:
            assert message.speaker in session.participants or message.role == "assistant"
            assert message.text.strip()
    for probe in scenario.probes:
        assert probe.after in times, (
            f"probe {probe.question!r} names unknown session {probe.after!r}"
        )
        assert datetime.fromisoformat(probe.time) > times[probe.after], (
            f"probe {probe.question!r} is not after session {probe.after}"
        )
        assert probe.speaker in probe.participants
        assert probe.question.strip()
        assert probe.expect_any or probe.expect_none, f"probe {probe.question!r} checks nothing"
        if not probe.expect_any:
            assert probe.strict_recall, (
                f"probe {probe.question!r} only forbids text but is not strict"
            )


def test_the_assistants_replies_are_replayed_as_its_words(tmp_path: Path, use_embedder) -> None:
    scenario = load(SCENARIOS / "mistakes-en-wife-pilot.json")
    runner = Runner(use_embedder, lambda label: tmp_path / f"{label}.db")
    results = runner.run(scenario)
    assert len(results) == len(scenario.probes)
    with Memory.open(tmp_path / f"{scenario.name}-0.db", namespace=scenario.name,
                     embedder=use_embedder) as memory:  # fmt: skip
        replies = [e for e in memory.store.episodes_after(memory.namespace, 0, 100)
                   if e.speaker == "assistant"]  # fmt: skip
        assert len(replies) == 4 and all(is_assistant(e) for e in replies)
        values = " ".join(f.value for f in memory.profile("ana").facts).lower()
        assert "teacher" not in values and "pizza" not in values
