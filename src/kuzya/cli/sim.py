"""`kuzya sim noodle-shop`: the noodle shop simulation (sketch 000) — a waiter and a chef
with Kuzya memory serving scripted regulars for weeks — with its scores, a JSON report
and a chart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from kuzya.cli.options import EmbedderOption, LlmOption, console
from kuzya.errors import InvalidInput

sim_app = typer.Typer(help="Simulations that exercise memory over weeks.", no_args_is_help=True)

MAX_DAYS, MAX_CUSTOMERS = 3650, 1000


def _within(value: int, option: str, low: int, high: int) -> int:
    if not low <= value <= high:
        raise InvalidInput(f"{option} takes {low} to {high:,}, not {value}")
    return value


@sim_app.command("noodle-shop")
def noodle_shop(
    days: Annotated[int, typer.Option(help="Simulated days.")] = 60,
    customers: Annotated[int, typer.Option(help="Customers (some come in pairs or groups).")] = 50,
    seed: Annotated[int, typer.Option(help="The script's seed: the same seed, the same run.")] = 1,
    llm: LlmOption = "none",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the totals and per-day rows here.")
    ] = None,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write the chart (PNG) here; needs matplotlib.")
    ] = None,
    db: Annotated[
        Path | None, typer.Option("--db", help="Keep the shop's memory in this new file.")
    ] = None,
    embedder: EmbedderOption = None,
) -> None:
    """Play the noodle shop and score its memory: the usual proposed to returning
    customers, stale proposals after a change, allergy violations, leaked confidences and
    prompt words per turn (beside a naive prompt that keeps every message). Without
    --llm, rules write the diary and the waiter's lines; with one, the model does."""
    from kuzya.config import settings
    from kuzya.sim import plot as chart
    from kuzya.sim.run import run

    _within(days, "--days", 1, MAX_DAYS)
    _within(customers, "--customers", 2, MAX_CUSTOMERS)
    if plot is not None:
        chart.require()
    if db is not None and db.exists():
        raise InvalidInput(f"{db} exists: --db takes a new file")
    config = settings(llm=llm, embedder=embedder)
    model = config.load_llm(config.llm)
    result = run(
        days=days, customers=customers, seed=seed, llm=model, embedder=config.embedder, db=db
    )
    report = result.as_json()
    _show(report)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}", markup=False)
    if plot is not None:
        chart.write(result.days, result.totals, plot)
        console.print(f"wrote {plot}", markup=False)


def _show(report: dict[str, Any]) -> None:
    table = Table(title=f"noodle shop: {report['days']} days, {report['customers']} customers, "
                  f"seed {report['seed']}, llm {report['llm']}")  # fmt: skip
    table.add_column("measure")
    table.add_column("value", justify="right")
    answers = report["answers"]
    rows = [
        ("visits", report["visits"]),
        ("preference recall (return visits)", report["preference_recall"]),
        ("stale proposals after a change", report["stale_rate"]),
        ("allergy violations", report["allergy_violations"]),
        ("leaks", report["leaks"]),
        ("secrets kept for their teller", report["secrets_kept"]),
        *((f"answer: {kind}", f"{a['right']} of {a['asked']}") for kind, a in answers.items()),
        ("prompt words per turn (mean)", report["prompt_words_mean"]),
        ("prompt words slope (per day)", report["prompt_words_slope"]),
        ("naive prompt slope (per day)", report["naive_prompt_words_slope"]),
        ("messages / diary entries (compressed)",
         f"{report['episodes']} / {report['diary_entries']} ({report['diary_compressed']})"),
        ("memory file", f"{report['db_bytes'] / 1e6:.2f} MB"),
        ("wall time", f"{report['wall_seconds']} s"),
    ]  # fmt: skip
    for name, value in rows:
        table.add_row(name, "n/a" if value is None else str(value))
    console.print(table)
