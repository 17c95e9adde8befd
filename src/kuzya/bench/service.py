"""The service under load: `kuzya serve` (no LLM: extractive answers) on loopback, N
concurrent clients on /v1/memories/search and on /ask for a while each. Reported:
requests/s, latency percentiles, errors; and nothing lost — after the server stops,
the store holds every turn of every /ask that was answered (the message and the reply),
and the memories added before."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from kuzya.bench.scale import percentiles
from kuzya.bench.serving import serving
from kuzya.bench.stores import places
from kuzya.store.opening import open_store

USERS = [f"user{i:02d}" for i in range(20)]
FACTS = [
    "I moved to {place} last spring", "My sister {name} is a nurse in {place}",
    "I'm allergic to {food}", "I started learning the cello with {name}",
    "Я живу в {place} и работаю инженером", "Мой брат {name} любит {food}",
]  # fmt: skip
QUESTIONS = [
    "Where do I live?", "What am I allergic to?", "Who is my sister?",
    "Где я живу?", "What did I say about {name}?", "Что я говорил про {food}?",
]  # fmt: skip
WORDS = {
    "place": ["Lisbon", "Oslo", "Kyoto", "Томск", "Porto"],
    "name": ["Olga", "Tom", "Leo", "Маша"],
    "food": ["peanuts", "shellfish", "кинза"],
}


def _text(template: str, rng: random.Random) -> str:
    return template.format(**{key: rng.choice(values) for key, values in WORDS.items()})


def run(
    workdir: Path,
    *,
    clients: Sequence[int] = (10, 50),
    seconds: float = 20.0,
    backend: str = "sqlite",
    db: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    rng = random.Random(3)
    runs: list[dict[str, Any]] = []
    with places(backend, workdir, db) as place:
        location = place("service")
        with serving(location, log=workdir / "serve.log") as base:
            with httpx.Client(base_url=base, timeout=60) as client:
                for user in USERS:
                    for _ in range(10):
                        body = {"text": _text(rng.choice(FACTS), rng), "user_id": user}
                        client.post("/v1/memories", json=body).raise_for_status()
            for endpoint in ("search", "ask"):
                for count in clients:
                    found = asyncio.run(_load(base, endpoint, count, seconds, rng.random()))
                    runs.append(found)
                    if progress:
                        progress(_line(found))
        store = open_store(location, create=False)
        try:
            stored = len(store.episodes_after("default", 0, 10_000_000))
        finally:
            store.close()
    answered = sum(r["ok"] for r in runs if r["endpoint"] == "/ask")
    expected = len(USERS) * 10 + 2 * answered
    return {
        "backend": backend,
        "seconds_each": seconds,
        "runs": runs,
        "stored": stored,
        "expected_stored": expected,
        "lost": expected - stored,
        "errors": sum(r["errors"] for r in runs),
    }


async def _load(
    base: str, endpoint: str, count: int, seconds: float, seed: float
) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        deadline = time.monotonic() + seconds

        async def one_client(number: int) -> None:
            rng = random.Random(f"{seed}-{number}")
            user = USERS[number % len(USERS)]
            while time.monotonic() < deadline:
                question = _text(rng.choice(QUESTIONS), rng)
                if endpoint == "search":
                    body = {"query": question, "user_id": user, "limit": 5}
                    call = client.post("/v1/memories/search", json=body)
                else:
                    asked = {"message": question, "user_id": user, "session_id": f"load-{number}"}
                    call = client.post("/ask", json=asked)
                started = time.perf_counter()
                try:
                    status = (await call).status_code
                except httpx.HTTPError:
                    status = 0  # no answer at all
                latencies.append(1000 * (time.perf_counter() - started))
                statuses[status] = statuses.get(status, 0) + 1

        started = time.monotonic()
        await asyncio.gather(*(one_client(n) for n in range(count)))
        elapsed = time.monotonic() - started
    ok = statuses.get(200, 0)
    return {
        "endpoint": "/v1/memories/search" if endpoint == "search" else "/ask",
        "clients": count,
        "requests": sum(statuses.values()),
        "ok": ok,
        "errors": sum(statuses.values()) - ok,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "requests_per_s": round(ok / elapsed, 1),
        "latency_ms": percentiles(latencies),
    }


def _line(found: dict[str, Any]) -> str:
    latency = found["latency_ms"]
    return (
        f"{found['endpoint']} with {found['clients']} clients: {found['requests_per_s']} req/s, "
        f"p50 {latency['p50']} ms, p95 {latency['p95']} ms, errors {found['errors']}"
    )
