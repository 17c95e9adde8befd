"""One run of the noodle shop: the script played day by day into one Kuzya memory, sleep
after closing, the day's diary written, and each day scored; at the end, probes that ask
the memory for every secret as everyone else would, and the totals."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from kuzya.embed import Embedder
from kuzya.llm.base import LLM
from kuzya.memory import Memory
from kuzya.sim import diarist
from kuzya.sim.customers import Script, day_start, script
from kuzya.sim.metrics import CHEF, WAITER, Scorer
from kuzya.sim.shop import Shop

NAMESPACE = "noodle-shop"
CLOSING = timedelta(hours=22)


@dataclass(frozen=True)
class Result:
    totals: dict[str, Any]
    days: list[dict[str, Any]]
    seconds: float

    def as_json(self) -> dict[str, Any]:
        """The report: totals at the top, then the rows per simulated day."""
        return {**self.totals, "wall_seconds": round(self.seconds, 2), "per_day": self.days}


def run(
    *,
    days: int,
    customers: int,
    seed: int,
    llm: LLM | None = None,
    embedder: str | Embedder | None = None,
    db: Path | None = None,
    progress: Callable[[dict[str, Any]], None] = lambda row: None,
) -> Result:
    """Play `days` days with `customers` customers in a new store: `db`, or a temporary
    file. Sleep consolidates by rules; `llm`, when given, writes the diary and the
    waiter's lines."""
    with tempfile.TemporaryDirectory() as scratch:
        path = db or Path(scratch) / "noodle-shop.db"
        with Memory.open(
            path, namespace=NAMESPACE, embedder=embedder, llm="none", durable=False
        ) as memory:
            return play(memory, script(seed, days, customers), llm=llm, progress=progress)


def play(
    memory: Memory,
    played: Script,
    *,
    llm: LLM | None = None,
    progress: Callable[[dict[str, Any]], None] = lambda row: None,
) -> Result:
    """Play a script into `memory` day by day: visits, sleep after closing, the day's
    diary, the day's scores; then the probes and the totals."""
    started = time.monotonic()
    scorer = Scorer(played)
    shop = Shop(memory, scorer, llm, played.seed)
    entries = fallbacks = 0
    for day, visits in played.by_day():
        began = time.monotonic()
        for visit in visits:
            shop.serve(visit)
        memory.sleep(now=day_start(day) + CLOSING)
        written, failed = diarist.write(memory, visits, llm)
        entries, fallbacks = entries + written, fallbacks + failed
        progress(scorer.end_day(day, _size(memory), time.monotonic() - began))
    _probe(memory, played, scorer, played.days - 1)
    totals = {
        "seed": played.seed,
        "days": played.days,
        "customers": len(played.customers),
        "llm": llm.name if llm else "none",
        **scorer.totals(),
        **_size(memory),
        "diary_written": entries,
        "diary_fallbacks": fallbacks,
        "line_fallbacks": shop.llm_fallbacks,
    }
    return Result(totals, scorer.rows, time.monotonic() - started)


def _size(memory: Memory) -> dict[str, Any]:
    stats = memory.stats()
    return {
        "episodes": stats["episodes"],
        "diary_entries": len(memory.diary(participants=[WAITER])),
        "diary_compressed": len(memory.diary(participants=[WAITER], kind="period")),
        "db_bytes": stats["bytes"],
    }


def _probe(memory: Memory, played: Script, scorer: Scorer, day: int) -> None:
    """Ask for every secret told as the chef, and as other customers with the waiter (any
    it names first): anything found is a leak. As its teller with the waiter, it must be
    recalled (kept: its message among the sources), or zero leaks would prove nothing."""
    others = sorted(played.customers)
    for customer in played.customers.values():
        secret = customer.secret
        if secret is None or customer.id not in scorer.secrets_told:
            continue
        named = [c for c in others if played.customers[c].name in secret.text]
        viewers = [[CHEF], *([c, WAITER] for c in named if c != customer.id)]
        viewers += [[c, WAITER] for c in others if c != customer.id][:3]
        for present in viewers:
            found = memory.recall(secret.text, participants=present, limit=10)
            scorer.seen(day, present, found.as_prompt())
            for subject in (customer.id, *present):
                facts = memory.profile(subject, participants=present).as_prompt()
                scorer.seen(day, present, facts)
        diary_text = " ".join(e.text for e in memory.diary(participants=[CHEF]))
        scorer.seen(day, [CHEF], diary_text)
        teller = [customer.id, WAITER]
        told = {e.id for e in memory.get_all(participants=teller, limit=100_000)
                if e.text == secret.text}  # fmt: skip
        kept = memory.recall(secret.text, participants=teller, limit=5)
        if told & {source for item in kept for source in item.sources}:
            scorer.secrets_kept.add(customer.id)
