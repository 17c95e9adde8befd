"""`kuzya bench serve`: the HTTP service under concurrent clients."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from kuzya.cli.bench import BackendOption, BenchDbOption, JsonOut, _write, console


def serve(
    clients: Annotated[
        str, typer.Option(help="Concurrent clients per run, comma-separated.")
    ] = "10,50",
    seconds: Annotated[float, typer.Option(min=1, help="How long each run lasts.")] = 20,
    backend: BackendOption = "sqlite",
    db: BenchDbOption = None,
    json_out: JsonOut = None,
) -> None:
    """`kuzya serve` with --llm none on loopback: concurrent clients on
    /v1/memories/search and on /ask; requests/s, latency, errors, and that every answered
    turn is in the store afterwards."""
    from kuzya.bench.service import run
    from kuzya.errors import InvalidInput

    try:
        counts = [int(part) for part in clients.split(",") if part.strip()]
    except ValueError:
        raise InvalidInput(f"--clients {clients!r} is not a list of numbers") from None
    if not counts or min(counts) < 1:
        raise InvalidInput("--clients needs at least one positive number")
    with tempfile.TemporaryDirectory(prefix="kuzya-serve-") as tmp:
        result = run(
            Path(tmp), clients=counts, seconds=seconds, backend=backend, db=db,
            progress=lambda line: console.print(line, markup=False),
        )  # fmt: skip
    table = Table(title=f"kuzya serve under load ({backend}, {seconds:g} s per run)")
    for column in ("endpoint", "clients", "req/s", "p50 ms", "p95 ms", "max ms", "errors"):
        table.add_column(column)
    for found in result["runs"]:
        latency = found["latency_ms"]
        table.add_row(
            found["endpoint"], str(found["clients"]), str(found["requests_per_s"]),
            str(latency["p50"]), str(latency["p95"]), str(latency["max"]), str(found["errors"]),
        )  # fmt: skip
    console.print(table)
    console.print(
        f"stored {result['stored']} of {result['expected_stored']} expected memories "
        f"(lost {result['lost']}); errors {result['errors']}"
    )
    _write(json_out, result)
    if result["lost"] or result["errors"]:
        raise typer.Exit(1)
