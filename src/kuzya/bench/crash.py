"""Crash suite: an operation is killed (SIGKILL) at a random moment, the store is reopened
and checked, the operation is run again, and the result must be the one of a run that
was never interrupted.

One template store is built once: a synthetic chat of four people in English and
Russian, with facts the rules extract ("I live in Oslo", "я живу в Казани") and
addresses to forget; its first messages were slept on, the rest wait for sleep. Each
operation (`kuzya.bench.crash_driver`: an import in acknowledged batches, sleep, deletes
and forgets, compact) runs once uninterrupted on a copy, giving its duration and its
result. Each run copies the template, starts the operation as a real process and kills
it within that duration. Then: `check()` is clean; no message is stored twice; every
acknowledged message is there; what the operation does not touch is unchanged; and
after running it again to completion the messages, facts and diary are the
uninterrupted ones, with no forgotten text left in the store's files.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import kuzya
from kuzya.bench.crash_driver import NAMESPACE
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import DiaryEntry, Fact
from kuzya.store.sqlite.files import store_files
from kuzya.store.sqlite.store import SQLiteStore
from kuzya.transfer.jsonl import read_jsonl

OPERATIONS = ("import", "sleep", "forget", "compact")
TEMPLATE = 450  # messages in the template store
SLEPT = 300  # of which sleep has read the first
IMPORTED = 400  # messages in the file the import operation reads
DELETE_EVERY = 75  # the forget operation deletes every 75th template message
START = datetime(2025, 1, 1, 9, tzinfo=UTC)
PEOPLE = {"ana": "en", "boris": "ru", "chen": "en", "dasha": "ru"}
STATEMENTS = {
    "ana": ("I live in Oslo", "I work at Equinor", "My sister Kate lives in Bergen",
            "My address is 12 Elm Street", "I moved to Bergen", "I like ramen"),
    "boris": ("Я живу в Казани", "Я работаю в Яндексе", "Мой брат Олег живёт в Москве",
              "Мой адрес улица Ленина 5", "Я люблю шахматы"),
    "chen": ("I live in Lisbon", "I work at Siemens", "My brother Leo is a nurse",
             "I moved to Porto"),
    "dasha": ("Я живу в Томске", "Моя сестра Маша работает в Сбербанке",
              "Я переехала в Самару"),
}  # fmt: skip
SECRETS = ("12 Elm Street", "улица Ленина 5")  # the addresses the forget operation forgets
THINGS = {"en": ("the match", "sourdough", "the new laptop", "a trip to Riga", "jazz"),
          "ru": ("футбол", "пельмени", "новый ноутбук", "поездку в Ригу", "джаз")}  # fmt: skip
FILLERS = {
    "en": ("We talked about {thing} today", "Has anyone seen {thing}?",
           "I keep thinking about {thing}", "Remind me about {thing} tomorrow"),
    "ru": ("Сегодня говорили про {thing}", "Кто-нибудь видел {thing}?",
           "Не могу забыть {thing}", "Напомни мне про {thing} завтра"),
}  # fmt: skip
NOTE = {"en": "Note", "ru": "Запись"}  # every text ends with its number: all are unique


def chat(first: int, count: int, seed: int, *, secrets: bool = False) -> list[dict[str, Any]]:
    """Messages `first` to `first + count - 1` of the synthetic chat, as JSONL records;
    the addresses are said only with `secrets`."""
    rng = random.Random(seed * 1_000_003 + first)
    records = []
    for n in range(first, first + count):
        speaker = rng.choice(list(PEOPLE))
        language = PEOPLE[speaker]
        private = rng.random() < 0.25  # a DM with the assistant, else the group chat
        if rng.random() < 0.3:
            said = rng.choice([s for s in STATEMENTS[speaker] if secrets or not _secret(s)])
        else:
            said = rng.choice(FILLERS[language]).format(thing=rng.choice(THINGS[language]))
        records.append(
            {
                "id": f"m{n}",
                "text": f"{said}. {NOTE[language]} {n}.",
                "speaker": speaker,
                "conversation": f"dm-{speaker}" if private else "friends",
                "participants": [speaker, "assistant"] if private else list(PEOPLE),
                "time": (START + timedelta(minutes=20 * n)).isoformat(),
            }
        )
    return records


def _secret(text: str) -> bool:
    return any(secret in text for secret in SECRETS)


@dataclass(frozen=True)
class Snapshot:
    """What a store holds, without ids and times of recording: messages (counted, to see
    duplicates), facts and diary entries (their sources as texts)."""

    messages: Counter[tuple[str, ...]]
    facts: list[tuple[Any, ...]]
    diary: list[tuple[Any, ...]]

    def texts(self) -> Counter[str]:
        return Counter(message[2] for message in self.messages.elements())

    def differences(self, other: Snapshot) -> list[str]:
        found = []
        for part in ("messages", "facts", "diary"):
            mine, theirs = Counter(getattr(self, part)), Counter(getattr(other, part))
            if mine != theirs:
                missing, extra = list((theirs - mine).elements()), list((mine - theirs).elements())
                found.append(
                    f"{part}: {len(missing)} missing, {len(extra)} extra, e.g. "
                    f"{repr((missing or extra)[0])[:300]}"
                )
        return found


def snapshot(memory: Memory) -> Snapshot:
    episodes = memory.get_all(limit=100_000)
    texts = {e.id: e.text for e in episodes}
    audiences = {tuple(sorted(e.audience)) for e in episodes}
    entries = {d for a in audiences for d in memory.diary(participants=a)}
    return Snapshot(
        Counter(
            (e.conversation, e.speaker, e.text, ",".join(sorted(e.audience)), str(e.said_at))
            for e in episodes
        ),
        sorted(_fact(f, texts) for f in memory.facts(include_past=True)),
        sorted(_entry(d, texts) for d in entries),
    )


def _fact(fact: Fact, texts: dict[int, str]) -> tuple[Any, ...]:
    return (
        fact.subject,
        fact.attribute,
        fact.value,
        fact.statement,
        fact.category,
        fact.priority,
        tuple(sorted(fact.audience)),
        fact.strength,
        round(fact.confidence, 6),
        str(fact.valid_from),
        str(fact.valid_to),
        fact.origin,
        tuple(sorted(texts.get(s, "?") for s in fact.sources)),
        None if fact.ended_by is None else texts.get(fact.ended_by, "?"),
    )


def _entry(entry: DiaryEntry, texts: dict[int, str]) -> tuple[Any, ...]:
    return (
        entry.kind,
        entry.key,
        entry.text,
        entry.level,
        str(entry.start),
        str(entry.end),
        tuple(sorted(entry.audience)),
        entry.origin,
        tuple(sorted(texts.get(s, "?") for s in entry.sources)),
    )


def check_problems(path: Path) -> list[str]:
    """What `check()` finds wrong in the store file (nothing: clean)."""
    store = SQLiteStore(path, create=False)
    try:
        return [f"check: {f.check}: {f.problems} ({f.detail})" for f in store.check() if f.problems]
    finally:
        store.close()


def child_env() -> dict[str, str]:
    """The environment for a child process: this Kuzya's source first on its path."""
    source = str(Path(kuzya.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


@dataclass
class Template:
    path: Path
    imports: Path  # the JSONL file the import operation reads
    texts: dict[str, str]  # the file's keys and texts
    deletes: list[int]  # what the forget operation deletes
    embedder: Embedder
    snapshot: Snapshot

    def open(self, path: Path) -> Memory:
        return Memory.open(
            path, namespace=NAMESPACE, embedder=self.embedder, llm="none", create=False
        )


def build_template(workdir: Path, embedder: Embedder, seed: int) -> Template:
    # The addresses are said only in what sleep has read: the facts alone remember them.
    records = chat(0, SLEPT, seed, secrets=True) + chat(SLEPT, TEMPLATE - SLEPT, seed)
    for record in records:
        record["key"] = record.pop("id")
    path = workdir / "template.db"
    with Memory.open(path, namespace=NAMESPACE, embedder=embedder, llm="none") as memory:
        memory.remember_many(records[:SLEPT])
        memory.sleep(now=records[SLEPT - 1]["time"])
        memory.remember_many(records[SLEPT:])
        deletes = [e.id for e in memory.get_all(limit=TEMPLATE)[::DELETE_EVERY]]
        shot = snapshot(memory)
    imports = workdir / "import.jsonl"
    lines = [json.dumps(r, ensure_ascii=False) for r in chat(TEMPLATE, IMPORTED, seed)]
    imports.write_text("\n".join(lines) + "\n", encoding="utf-8")
    texts = {str(m.key): m.text for m in read_jsonl(imports)}
    return Template(path, imports, texts, deletes, embedder, shot)


class Operation:
    """One operation on a copy of the template, as a child process."""

    def __init__(self, template: Template, name: str, folder: Path) -> None:
        folder.mkdir(parents=True)
        self.name, self.folder, self.path = name, folder, folder / "kuzya.db"
        self.template = template
        shutil.copy(template.path, self.path)

    def start(self) -> subprocess.Popen[str]:
        """The operation's process, once it printed that it is ready (store and model open)."""
        argument = {
            "import": str(self.template.imports),
            "forget": ",".join(map(str, self.template.deletes)),
        }.get(self.name, "")
        with (self.folder / "stderr.txt").open("a") as errors:
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "kuzya.bench.crash_driver",
                    self.name,
                    str(self.path),
                    self.template.embedder.name,
                    argument,
                ],
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                env=child_env(),
            )
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            child.wait()
            raise RuntimeError(f"{self.name} did not start: {self.errors()}")
        return child

    def complete(self) -> float:
        """Run the operation to its end; the seconds from "ready" to "done" (the process's
        exit after that is no part of it)."""
        child = self.start()
        assert child.stdout is not None
        started, seconds = time.perf_counter(), 0.0
        for line in child.stdout:
            if line.strip() == "done":
                seconds = time.perf_counter() - started
        if child.wait(timeout=900) != 0 or not seconds:
            raise RuntimeError(f"{self.name} failed (exit {child.returncode}): {self.errors()}")
        return seconds

    def errors(self) -> str:
        return (self.folder / "stderr.txt").read_text()[-2000:]

    def snapshot(self) -> Snapshot:
        with self.template.open(self.path) as memory:
            return snapshot(memory)


@dataclass
class Outcome:
    killed: bool  # mid-way, not after the operation had finished
    problems: list[str]


def crash_once(
    template: Template, name: str, folder: Path, delay: float, expected: Snapshot
) -> Outcome:
    """Kill the operation `delay` seconds after it is ready, verify, run it again, verify."""
    operation = Operation(template, name, folder)
    child = operation.start()
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate()
    killed = "done" not in out.split()
    acknowledged = [
        key for line in out.splitlines() if line.startswith("ack ") for key in line.split()[1:]
    ]
    problems = check_problems(operation.path) + _after_kill(operation, acknowledged, expected)
    if problems:
        return Outcome(killed, [f"after the kill: {p}" for p in problems])
    operation.complete()
    problems = check_problems(operation.path)
    problems += operation.snapshot().differences(expected)
    problems += _leftovers(operation)
    return Outcome(killed, [f"after running it again: {p}" for p in problems])


def _after_kill(operation: Operation, acknowledged: list[str], expected: Snapshot) -> list[str]:
    template = operation.template
    shot = operation.snapshot()
    texts = shot.texts()
    problems = [f"stored {n} times: {text!r}" for text, n in texts.items() if n > 1]
    for key in acknowledged:
        if texts[template.texts[key]] != 1:
            problems.append(f"acknowledged {key} is missing")
    untouched = template.snapshot.messages & expected.messages
    if lost := untouched - shot.messages:
        problems.append(f"{sum(lost.values())} messages the operation leaves alone were lost")
    if operation.name == "compact":
        problems += shot.differences(template.snapshot)
    return problems


def _leftovers(operation: Operation) -> list[str]:
    """Forgotten text still in the store's files (after a forget that the uninterrupted run
    purged)."""
    if operation.name != "forget":
        return []
    content = b"".join(f.read_bytes() for f in store_files(operation.path) if f.exists())
    return [
        f"{secret!r} is still in the store's files"
        for secret in SECRETS
        if secret.encode() in content
    ]


def run(
    runs: int,
    embedder: Embedder,
    workdir: Path,
    *,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    started = time.perf_counter()
    embedder.embed(["warm up"])
    template = build_template(workdir, embedder, seed)
    expected, seconds = {}, {}
    for name in OPERATIONS:
        operation = Operation(template, name, workdir / f"uninterrupted-{name}")
        seconds[name] = operation.complete()
        problems = check_problems(operation.path) + _leftovers(operation)
        if problems:
            raise RuntimeError(f"the uninterrupted {name} leaves problems: {problems}")
        expected[name] = operation.snapshot()
    rng = random.Random(seed)
    counts = {name: Counter[str]() for name in OPERATIONS}
    failures = []
    for n in range(runs):
        name = OPERATIONS[n % len(OPERATIONS)]
        folder = workdir / f"run-{n}-{name}"
        outcome = crash_once(template, name, folder, rng.uniform(0, seconds[name]), expected[name])
        counts[name].update(runs=1, killed=outcome.killed, failures=bool(outcome.problems))
        counts[name]["finished"] += not outcome.killed
        failures += [f"run {n} ({name}): {p}" for p in outcome.problems]
        if not outcome.problems:
            shutil.rmtree(folder)
        if progress:
            progress(
                f"run {n} {name}: {'killed mid-way' if outcome.killed else 'had finished'}, "
                f"{len(outcome.problems)} problems"
            )
    return {
        "runs": runs,
        "seed": seed,
        "embedder": embedder.name,
        "operations": {
            name: {
                "runs": counts[name]["runs"],
                "killed_mid_way": counts[name]["killed"],
                "finished_before_kill": counts[name]["finished"],
                "failures": counts[name]["failures"],
                "uninterrupted_s": round(seconds[name], 2),
            }
            for name in OPERATIONS
        },
        "failures": failures,
        "seconds": round(time.perf_counter() - started, 1),
    }
