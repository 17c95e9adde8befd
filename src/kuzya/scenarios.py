"""Multi-session scenarios: replay sessions with a restart between each, then ask probes.

File format: see the project's `scenarios/README.md` (name, sessions with participants
and messages, probes with expect_any / expect_none / strict_recall).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kuzya import validate
from kuzya.embed import Embedder
from kuzya.errors import InvalidInput
from kuzya.memory import Memory

MESSAGE_SPACING = timedelta(seconds=30)


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ScenarioMessage(_Record):
    speaker: str
    text: str


class Session(_Record):
    id: str
    time: str
    participants: list[str] = Field(min_length=1)
    messages: list[ScenarioMessage]


class Probe(_Record):
    after: str
    time: str
    participants: list[str] = Field(min_length=1)
    speaker: str
    question: str
    expect_any: list[str] = []
    expect_none: list[str] = []
    strict_recall: bool = False


class Scenario(_Record):
    name: str
    description: str = ""
    language: str = "en"
    sessions: list[Session]
    probes: list[Probe]


@dataclass(frozen=True)
class ProbeResult:
    scenario: str
    question: str
    passed: bool
    checked: str


def load(path: Path) -> Scenario:
    try:
        scenario = Scenario.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise InvalidInput(f"{path} is not a scenario file: {exc}") from exc
    sessions = {s.id for s in scenario.sessions}
    for probe in scenario.probes:
        if probe.after not in sessions:
            raise InvalidInput(f"{path}: probe {probe.question!r} is after unknown {probe.after!r}")
    return scenario


def files(paths: Sequence[Path]) -> list[Path]:
    """Scenario files named directly or found in the given directories."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.glob("*.json")))
        elif path.exists():
            found.append(path)
        else:
            raise InvalidInput(f"no such scenario file or directory: {path}")
    return found


def judge(probe: Probe, text: str, *, answer_mode: bool) -> bool:
    lowered = text.lower()
    has_any = not probe.expect_any or any(s.lower() in lowered for s in probe.expect_any)
    check_none = answer_mode or probe.strict_recall
    has_none = check_none and any(s.lower() in lowered for s in probe.expect_none)
    return has_any and not has_none


def _probes_by_session(scenario: Scenario) -> Iterator[tuple[Session, list[Probe]]]:
    for session in scenario.sessions:
        yield session, [p for p in scenario.probes if p.after == session.id]


def run_recall(scenario: Scenario, embedder: Embedder, workdir: Path) -> list[ProbeResult]:
    """Recall mode: a probe passes when the memory context for its question passes."""
    path = workdir / f"{scenario.name}.db"
    results = []
    for session, probes in _probes_by_session(scenario):
        with Memory.open(path, namespace=scenario.name, embedder=embedder) as memory:
            start = validate.moment(session.time, "session time")
            memory.remember_many(
                {
                    "text": m.text,
                    "speaker": m.speaker,
                    "conversation": session.id,
                    "participants": session.participants,
                    "time": start + i * MESSAGE_SPACING,
                }
                for i, m in enumerate(session.messages)
            )
        for number, probe in enumerate(probes):
            with Memory.open(path, namespace=scenario.name, embedder=embedder) as memory:
                context = memory.recall(
                    probe.question,
                    participants=probe.participants,
                    now=probe.time,
                    conversation=f"probe-{session.id}-{number}",
                ).as_prompt()
            passed = judge(probe, context, answer_mode=False)
            results.append(ProbeResult(scenario.name, probe.question, passed, context))
    return results


def evaluate(
    paths: Sequence[Path],
    embedder: Embedder,
    progress: Callable[[ProbeResult], None] | None = None,
) -> dict[str, Any]:
    results: list[ProbeResult] = []
    with tempfile.TemporaryDirectory(prefix="kuzya-scenarios-") as tmp:
        for path in files(paths):
            for result in run_recall(load(path), embedder, Path(tmp)):
                results.append(result)
                if progress:
                    progress(result)
    passed = sum(r.passed for r in results)
    return {
        "mode": "recall",
        "accuracy": round(passed / len(results), 4) if results else 0.0,
        "passed": passed,
        "total": len(results),
        "probes": [
            {
                "scenario": r.scenario,
                "question": r.question,
                "passed": r.passed,
                "checked": r.checked,
            }
            for r in results
        ],
    }
