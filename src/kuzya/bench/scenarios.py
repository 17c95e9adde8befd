"""Multi-session scenarios: replay sessions with a restart between each, then ask probes.

File format: see the project's `scenarios/README.md` (name, sessions with participants
and messages, probes with expect_any / expect_none / strict_recall).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kuzya import validate
from kuzya.assistant import ANSWER, SMALL_STOP, Assistant, answer_text
from kuzya.bench.memories import KINDS, opened
from kuzya.bench.stores import Place, places
from kuzya.embed import Embedder
from kuzya.errors import InvalidInput
from kuzya.llm.base import LLM, ChatMessage
from kuzya.memory import Memory
from kuzya.prompt_notes import briefly

MESSAGE_SPACING = timedelta(seconds=30)
OTHER_SYSTEM = "You are a helpful assistant with long-term memory. Answer briefly."


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ScenarioMessage(_Record):
    speaker: str
    text: str
    role: Literal["person", "assistant"] = "person"  # "assistant": the assistant's reply


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
class Timing:
    """Answer mode: seconds to reply with memory and with none (the same model), each
    after its prefix was prepared, and the seconds that preparing took; `first` marks the
    first question after a session, whose prefix was read whole (the replies without
    memory in between leave nothing of it in the model's cache)."""

    reply: float = 0.0
    prepare: float = 0.0
    bare_reply: float = 0.0
    bare_prepare: float = 0.0
    first: bool = False


@dataclass(frozen=True)
class ProbeResult:
    scenario: str
    question: str
    passed: bool
    checked: str  # the memory context (recall mode) or the reply (answer mode)
    timing: Timing = Timing()


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


def _replay(memory: Memory, session: Session) -> None:
    """Store a session's messages, then consolidate as a session end does."""
    start = validate.moment(session.time, "session time")
    memory.remember_many(
        {
            "text": m.text,
            "speaker": m.speaker,
            "conversation": session.id,
            "participants": session.participants,
            "time": start + i * MESSAGE_SPACING,
            "metadata": {"role": "assistant"} if m.role == "assistant" else {},
        }
        for i, m in enumerate(session.messages)
    )
    memory.sleep(now=start + len(session.messages) * MESSAGE_SPACING)


@dataclass(frozen=True)
class Runner:
    """Replays scenarios into fresh stores; `llm` None means recall mode."""

    embedder: Embedder
    place: Place  # a store's label -> its location (`kuzya.bench.stores`)
    llm: LLM | None = None
    answer_mode: bool = False
    strict: bool = False  # recall mode: every probe's expect_none is checked
    temperature: float = 0.0
    small_model: bool = False  # answer mode: see `Assistant`
    memory: str = "engine"  # or another kind of `kuzya.bench.memories`, kept in `workdir`
    workdir: Path = Path(".")

    def run(self, scenario: Scenario, run: int = 0) -> list[ProbeResult]:
        if self.memory != "engine":
            return self._run_other(scenario, self.workdir / f"{scenario.name}-{run}")
        path = self.place(f"{scenario.name}-{run}")
        results = []
        for session, probes in _probes_by_session(scenario):
            with self._open(path, scenario) as memory:
                _replay(memory, session)
            asked = []
            for number, probe in enumerate(probes):
                with self._open(path, scenario) as memory:
                    asked.append(self._probe(memory, scenario, probe, f"{session.id}-{number}"))
            # one after another, as in a chat: each question's prefix is mostly read already
            with self._open(path, scenario) as memory:
                results.extend(self._without_memory(memory, probes, asked))
        return results

    def _without_memory(
        self, memory: Memory, probes: Sequence[Probe], asked: Sequence[ProbeResult]
    ) -> list[ProbeResult]:
        """The results with the same model's time to answer each question without memory,
        taken after the session's questions with memory."""
        if self.llm is None or not self.answer_mode:
            return list(asked)
        assistant = Assistant(
            memory, self.llm, temperature=self.temperature, small_model=self.small_model
        )
        timed = []
        for number, (probe, result) in enumerate(zip(probes, asked, strict=True)):
            reply, prepare = _bare_seconds(self.llm, probe, assistant)
            timing = replace(result.timing, bare_reply=reply, bare_prepare=prepare)
            timed.append(replace(result, timing=replace(timing, first=number == 0)))
        assistant.close()
        return timed

    def _run_other(self, scenario: Scenario, folder: Path) -> list[ProbeResult]:
        """The same replay and probes with another kind of memory, opened anew for each
        session and probe; in answer mode the same model answers from its context."""
        results = []
        for session, probes in _probes_by_session(scenario):
            memory = opened(self.memory, folder, self.embedder)
            memory.replay(session.id, session.time, session.participants, session.messages)
            for probe in probes:
                context = opened(self.memory, folder, self.embedder).context(
                    probe.question, probe.participants
                )
                if not self.answer_mode or self.llm is None:
                    strict = probe.strict_recall or self.strict
                    checked = probe.model_copy(update={"strict_recall": strict})
                    passed = judge(checked, context, answer_mode=False)
                    results.append(ProbeResult(scenario.name, probe.question, passed, context))
                    continue
                reply, seconds, bare = self._answer_from(context, probe)
                passed = judge(probe, reply, answer_mode=True)
                timing = Timing(seconds, 0.0, bare, 0.0, first=True)  # nothing is cached
                results.append(ProbeResult(scenario.name, probe.question, passed, reply, timing))
        return results

    def _answer_from(self, context: str, probe: Probe) -> tuple[str, float, float]:
        """The model's answer from another memory's context, laid out as the assistant
        lays out its notes (next to the question, a short JSON answer for a small
        model), so only the memory differs; and the seconds it took, with and without
        the notes."""
        assert self.llm is not None
        small = self.small_model
        options: dict[str, Any] = {
            "json_schema": ANSWER if small else None,
            "max_tokens": 48 if small else 200,
            "temperature": self.temperature,
            "stop": SMALL_STOP if small else (),
        }
        system = ChatMessage("system", OTHER_SYSTEM)
        asked = f"{probe.speaker}: {probe.question}\n{briefly(probe.question)}"
        noted = f"Notes from memory:\n{context}\n\n{asked}" if context else asked
        started = time.perf_counter()
        text = self.llm.chat([system, ChatMessage("user", noted)], **options).text
        seconds = time.perf_counter() - started
        started = time.perf_counter()
        self.llm.chat([system, ChatMessage("user", asked)], **options)
        bare = time.perf_counter() - started
        return (answer_text(text) if self.small_model else text), seconds, bare

    def _open(self, path: str | Path, scenario: Scenario) -> Memory:
        """The scenario's store; sessions are consolidated by rules, whatever the
        environment names."""
        return Memory.open(path, namespace=scenario.name, embedder=self.embedder, llm="none")

    def _probe(self, memory: Memory, scenario: Scenario, probe: Probe, tag: str) -> ProbeResult:
        conversation = f"probe-{tag}"
        if not self.answer_mode:
            context = memory.recall(
                probe.question,
                participants=probe.participants,
                now=probe.time,
                conversation=conversation,
                speaker=probe.speaker,
            ).as_prompt()
            strict = probe.model_copy(update={"strict_recall": probe.strict_recall or self.strict})
            return ProbeResult(
                scenario.name, probe.question, judge(strict, context, answer_mode=False), context
            )
        assistant = Assistant(
            memory, self.llm, temperature=self.temperature, small_model=self.small_model
        )
        try:
            # a chat prepares its prefix when it opens, before the first message arrives
            started = time.perf_counter()
            assistant.prepare(conversation, probe.participants, probe.speaker, probe.time)
            assistant.flush()
            prepared = time.perf_counter() - started
            reply = assistant.reply(
                probe.question,
                conversation=conversation,
                participants=probe.participants,
                speaker=probe.speaker,
                now=probe.time,
            )
        finally:
            assistant.close()
        return ProbeResult(
            scenario.name,
            probe.question,
            judge(probe, reply.text, answer_mode=True),
            reply.text,
            Timing(reply.seconds, prepared),
        )


def _bare_seconds(llm: LLM, probe: Probe, assistant: Assistant) -> tuple[float, float]:
    """The same model with the same settings answering the same question with no memory
    at all: the seconds to prepare its prefix (the system prompt), then to reply. The
    question is asked as it is with notes, one short sentence wanted: asked bare, a small
    model fills its 48 tokens and makes memory look free."""
    system = [ChatMessage("system", assistant.system_prompt(probe.participants))]
    started = time.perf_counter()
    llm.prefill(system)
    prepared = time.perf_counter()
    llm.chat(
        [*system, ChatMessage("user", f"{probe.question}\n{briefly(probe.question)}")],
        json_schema=ANSWER if assistant.small_model else None,
        max_tokens=assistant.max_tokens,
        temperature=assistant.temperature,
        stop=assistant.stop,
    )
    return time.perf_counter() - prepared, prepared - started


def evaluate(
    paths: Sequence[Path],
    embedder: Embedder,
    progress: Callable[[ProbeResult], None] | None = None,
    *,
    llm: LLM | None = None,
    answer_mode: bool = False,
    strict: bool = False,
    runs: int = 1,
    small_model: bool = False,
    temperature: float = 0.0,
    backend: str = "sqlite",
    db: str | None = None,
    memory: str = "engine",
) -> dict[str, Any]:
    """Accuracy over every probe of every file, per run, with Kuzya's engine or another
    `memory` (`kuzya.bench.memories`); answer mode also times replies with memory against
    the same model without memory."""
    if memory not in KINDS:
        raise InvalidInput(f"unknown memory {memory!r}: use one of {', '.join(KINDS)}")
    per_run: list[list[ProbeResult]] = []
    with (
        tempfile.TemporaryDirectory(prefix="kuzya-scenarios-") as tmp,
        places(backend, Path(tmp), db) as place,
    ):
        runner = Runner(
            embedder,
            place,
            llm,
            answer_mode,
            strict,
            temperature,  # greedy (0) replies repeat; runs differ only when sampling
            small_model,
            memory,
            Path(tmp),
        )
        if llm is not None:  # loading the model is not part of a reply's time
            llm.chat([ChatMessage("user", "Hello")], max_tokens=1)
        for run in range(runs):
            results: list[ProbeResult] = []
            for path in files(paths):
                for result in runner.run(load(path), run):
                    results.append(result)
                    if progress:
                        progress(result)
            per_run.append(results)
    accuracies = [sum(r.passed for r in rs) / len(rs) if rs else 0.0 for rs in per_run]
    last = per_run[-1]
    report: dict[str, Any] = {
        "mode": "answer" if answer_mode else "recall",
        "memory": memory,
        "llm": llm.name if llm else "none",
        "runs": runs,
        "temperature": temperature,
        "accuracy": round(sum(accuracies) / len(accuracies), 4),
        "accuracy_min": round(min(accuracies), 4),
        "accuracy_per_run": [round(a, 4) for a in accuracies],
        "passed": sum(r.passed for r in last),
        "total": len(last),
        "probes": [
            {"scenario": r.scenario, "question": r.question, "passed": r.passed,
             "checked": r.checked, "seconds": round(r.timing.reply, 3),
             "seconds_without_memory": round(r.timing.bare_reply, 3)}
            for r in last
        ],
    }  # fmt: skip
    if answer_mode and llm is not None:
        timings = [r.timing for rs in per_run for r in rs]

        def mean(seconds: Iterable[float]) -> float:
            return sum(seconds) / len(timings)

        with_memory = mean(t.reply for t in timings)
        without = mean(t.bare_reply for t in timings)
        firsts = [t for t in timings if t.first]
        cold = sum(t.prepare + t.reply for t in firsts) / len(firsts)
        cold_without = sum(t.bare_prepare + t.bare_reply for t in firsts) / len(firsts)
        report["reply_seconds"] = round(with_memory, 3)
        report["reply_seconds_without_memory"] = round(without, 3)
        report["latency_ratio"] = round(with_memory / without, 3) if without else None
        report["prepare_seconds"] = round(mean(t.prepare for t in timings), 3)
        # the first question after a session: its prefix read whole, then the reply
        report["cold_reply_seconds"] = round(cold, 3)
        report["cold_reply_seconds_without_memory"] = round(cold_without, 3)
        report["cold_latency_ratio"] = round(cold / cold_without, 3) if cold_without else None
    return report
