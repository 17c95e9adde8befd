"""Load: writers, sleepers and readers as separate processes on one store for a while.

Writers remember messages with unique texts and record each one as soon as `remember`
returned (acknowledged); they stop cleanly at the deadline, so at the end the store must
hold exactly the seed messages and the acknowledged ones, each once. Sleepers sleep in a
loop (most without waiting for a running sleep, every third one waiting); readers recall
in a loop, each call timed. No caller may see an error (a busy store, a traceback), and
`check()` must be clean at the end.

`python -m kuzya.bench.load ROLE N DB EMBEDDER FOLDER` is one such process: it prints
"ready" once its store and model are open, reads the deadline (a Unix time) from stdin,
works until then and writes what it did to FOLDER/ROLE-N.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kuzya.bench.crash import chat, check_problems, child_env
from kuzya.bench.scale import percentiles
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import Episode

NAMESPACE = "load"
SEED_MESSAGES = 300
QUERIES = ("Where does Ana live?", "Who works at Equinor?", "Где живёт Борис?",
           "What did writer 1 say about the tide?", "Что говорили про джаз?")  # fmt: skip


def _writer(memory: Memory, number: int, deadline: float, folder: Path) -> dict[str, Any]:
    done: Counter[str] = Counter()
    latencies: list[float] = []
    with (folder / f"acknowledged-{number}.tsv").open("a", encoding="utf-8") as acknowledged:
        n = 0
        while time.time() < deadline:
            text = f"Writer {number}, line {n}: the tide was {n % 7} metres at the pier."
            n += 1
            started = time.perf_counter()
            try:
                episode = memory.remember(
                    text, speaker=f"writer{number}", participants=[f"writer{number}", "assistant"]
                )
            except Exception as exc:  # counted: no error may reach a caller
                done[f"{type(exc).__name__}: {exc}"] += 1
                continue
            latencies.append(1000 * (time.perf_counter() - started))
            acknowledged.write(f"{episode.id}\t{text}\n")
            acknowledged.flush()
    return {"calls": n, "errors": dict(done), "latencies_ms": latencies}


def _sleeper(memory: Memory, number: int, deadline: float) -> dict[str, Any]:
    done: Counter[str] = Counter()
    calls = 0
    while time.time() < deadline:
        try:
            report = memory.sleep(wait=calls % 3 == 2)
            done["waited" if calls % 3 == 2 else "run"] += not report.skipped
            done["skipped"] += bool(report.skipped)
        except Exception as exc:
            done[f"error {type(exc).__name__}: {exc}"] += 1
        calls += 1
        time.sleep(0.2)
    errors = {k.removeprefix("error "): n for k, n in done.items() if k.startswith("error ")}
    return {"calls": calls, "errors": errors, "run": done["run"], "waited": done["waited"],
            "skipped": done["skipped"]}  # fmt: skip


def _reader(memory: Memory, number: int, deadline: float) -> dict[str, Any]:
    done: Counter[str] = Counter()
    latencies: list[float] = []
    calls = 0
    while time.time() < deadline:
        query = QUERIES[(number + calls) % len(QUERIES)]
        started = time.perf_counter()
        try:
            memory.recall(query, participants=["assistant"])
            latencies.append(1000 * (time.perf_counter() - started))
        except Exception as exc:
            done[f"{type(exc).__name__}: {exc}"] += 1
        calls += 1
    return {"calls": calls, "errors": dict(done), "latencies_ms": latencies}


def main(role: str, number: str, db: str, embedder: str, folder: str) -> None:
    with Memory.open(db, namespace=NAMESPACE, embedder=embedder, llm="none") as memory:
        memory.embedder.embed(["warm up"])
        print("ready", flush=True)
        deadline = float(sys.stdin.readline())
        if role == "writer":
            result = _writer(memory, int(number), deadline, Path(folder))
        elif role == "sleeper":
            result = _sleeper(memory, int(number), deadline)
        else:
            result = _reader(memory, int(number), deadline)
    (Path(folder) / f"{role}-{number}.json").write_text(json.dumps(result), encoding="utf-8")


def run(
    seconds: float,
    embedder: Embedder,
    workdir: Path,
    *,
    writers: int = 4,
    sleepers: int = 2,
    readers: int = 4,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    path = workdir / "load.db"
    seed = chat(0, SEED_MESSAGES, 1, secrets=True)
    for record in seed:
        record.pop("id")
    with Memory.open(path, namespace=NAMESPACE, embedder=embedder, llm="none") as memory:
        memory.remember_many(seed)
    roles = [("writer", writers), ("sleeper", sleepers), ("reader", readers)]
    children = []
    for role, count in roles:
        for number in range(count):
            children.append(subprocess.Popen(
                [sys.executable, "-m", "kuzya.bench.load", role, str(number), str(path),
                 embedder.name, str(workdir)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=(workdir / f"{role}-{number}.stderr").open("w"),
                text=True, env=child_env(),
            ))  # fmt: skip
    for child in children:
        assert child.stdout is not None and child.stdin is not None
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError(f"a load process did not start: {child.args!r}")
    deadline = time.time() + seconds
    for child in children:
        assert child.stdin is not None
        child.stdin.write(f"{deadline}\n")
        child.stdin.close()
    if progress:
        progress(f"{len(children)} processes working for {seconds} s")
    exits = [child.wait(timeout=seconds + 600) for child in children]
    return _results(workdir, embedder, roles, exits, seconds)


def _results(
    workdir: Path,
    embedder: Embedder,
    roles: list[tuple[str, int]],
    exits: list[int],
    seconds: float,
) -> dict[str, Any]:
    found = {
        role: [json.loads((workdir / f"{role}-{n}.json").read_text()) for n in range(count)]
        for role, count in roles
    }
    acknowledged = {
        tuple(line.split("\t", 1))
        for f in sorted(workdir.glob("acknowledged-*.tsv"))
        for line in f.read_text(encoding="utf-8").splitlines()
    }
    with Memory.open(workdir / "load.db", namespace=NAMESPACE, embedder=embedder) as memory:
        episodes: list[Episode] = []
        while page := memory.get_all(limit=10_000, offset=len(episodes)):
            episodes += page
    texts = Counter(e.text for e in episodes)
    written = {(str(e.id), e.text) for e in episodes if e.speaker.startswith("writer")}
    errors = {role: sum(sum(r["errors"].values()) for r in rs) for role, rs in found.items()}
    result = {
        "seconds": seconds,
        "processes": dict(roles),
        "errors": errors,
        "error_samples": sorted({e for rs in found.values() for r in rs for e in r["errors"]})[:5],
        "acknowledged": len(acknowledged),
        "acknowledged_missing": len(acknowledged - written),
        "stored_unacknowledged": len(written - acknowledged),
        "stored_twice": sum(1 for n in texts.values() if n > 1),
        "seed_messages_stored": len(episodes) - len(written),
        "remember_ms": percentiles([x for r in found["writer"] for x in r["latencies_ms"]] or [0]),
        "recall_ms": percentiles([x for r in found["reader"] for x in r["latencies_ms"]] or [0]),
        "recalls": sum(r["calls"] for r in found["reader"]),
        "sleeps": {k: sum(r[k] for r in found["sleeper"]) for k in ("run", "waited", "skipped")},
        "check_problems": check_problems(workdir / "load.db"),
    }
    tracebacks = sum("Traceback" in p.read_text() for p in workdir.glob("*.stderr"))
    result["failures"] = [
        *(f"{n} {role} errors" for role, n in errors.items() if n),
        *([f"{sum(1 for c in exits if c)} processes failed"] if any(exits) else []),
        *([f"{tracebacks} tracebacks"] if tracebacks else []),
        *(f"{result[k]} {k.replace('_', ' ')}" for k in
          ("acknowledged_missing", "stored_unacknowledged", "stored_twice") if result[k]),
        *([] if result["seed_messages_stored"] == SEED_MESSAGES else ["seed messages lost"]),
        *result["check_problems"],
    ]  # fmt: skip
    return result


if __name__ == "__main__":
    main(*sys.argv[1:])
