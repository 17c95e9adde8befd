"""`kuzya bench ...` and `kuzya eval ...`: benchmarks and scenario evaluation."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kuzya.cli.options import ConsolidateLlmOption, EmbedderOption, LlmOption, importing
from kuzya.config import settings
from kuzya.embed import Embedder, load_embedder
from kuzya.errors import InvalidInput
from kuzya.llm import is_small

bench_app = typer.Typer(help="Benchmarks.", no_args_is_help=True)
eval_app = typer.Typer(help="Evaluations.", no_args_is_help=True)
console = Console()

JsonOut = Annotated[Path | None, typer.Option("--json", help="Write the results as JSON here.")]
BackendOption = Annotated[
    str,
    typer.Option(
        "--backend",
        help="sqlite (a file per store) or postgres (a database per store, on an embedded "
        "server started for the run unless --db names one).",
    ),
]
BenchDbOption = Annotated[
    str | None,
    typer.Option("--db", help="With --backend postgres: the server (postgresql://…) to use."),
]


def _embedder(spec: str | None) -> Embedder:
    """The embedder --embedder names, else KUZYA_EMBEDDER's, else the default."""
    return load_embedder(settings(embedder=spec).embedder)


def _write(path: Path | None, result: dict[str, Any]) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
        console.print(f"wrote {path}")


@bench_app.command("locomo")
def locomo(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False)],
    budget_words: Annotated[int, typer.Option("--budget-words")] = 400,
    sleep: Annotated[
        bool, typer.Option("--sleep", help="Consolidate each conversation before the questions.")
    ] = False,
    llm: ConsolidateLlmOption = None,
    answer: Annotated[
        bool,
        typer.Option(
            "--answer",
            help="Answer the questions with the --llm reader and score token F1, with Kuzya's "
            "context, a BM25 one and the whole conversation.",
        ),
    ] = False,
    questions: Annotated[
        int, typer.Option("--questions", min=1, help="With --answer: a fixed sample this big.")
    ] = 200,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
    backend: BackendOption = "sqlite",
    db: BenchDbOption = None,
) -> None:
    """Evidence recall within a word budget on LoCoMo files, beside a BM25 baseline; with
    --answer, the answers' token F1 given each context."""
    from kuzya.bench.locomo import CATEGORIES, Consolidation, run

    if answer:
        if sleep:
            raise InvalidInput("--sleep and --answer do not go together: drop one")
        _answer(files, llm, budget_words, questions, json_out, embedder)
        return
    consolidation = None
    if sleep or llm is not None:
        config = settings(sleep_llm=llm)
        consolidation = Consolidation(config.load_llm(config.sleeps_with))
    result = run(
        files,
        _embedder(embedder),
        budget_words=budget_words,
        progress=lambda line: console.print(line),
        consolidation=consolidation,
        backend=backend,
        db=db,
    )
    table = Table(
        title=f"LoCoMo evidence recall within {budget_words} words ({result['embedder']})"
    )
    for column in ("category", "n", "kuzya", "BM25", "kuzya @10", "BM25 @10", "words"):
        table.add_column(column, justify="right")
    rows = [("overall", result["overall"], result["baseline"]["overall"])]
    rows += [
        (name, result["by_category"][name], result["baseline"]["by_category"][name])
        for name in CATEGORIES.values()
    ]
    for name, ours, base in rows:
        table.add_row(
            name,
            str(ours["n"]),
            f"{ours['recall_budget']:.3f}",
            f"{base['recall_budget']:.3f}",
            f"{ours['recall_at_10']:.3f}",
            f"{base['recall_at_10']:.3f}",
            f"{ours['context_words']:.0f}",
        )
    console.print(table)
    console.print(
        f"query latency p50 {result['latency_ms']['p50']} ms, p95 {result['latency_ms']['p95']} "
        f"ms; import {result['import_msgs_per_s']} messages/s; evidence issues "
        f"{result['evidence_issues']}, questions without evidence "
        f"{result['questions_without_evidence']}"
    )
    if "consolidation" in result:
        console.print(f"consolidation: {result['consolidation']}")
    _write(json_out, result)


def _answer(
    files: list[Path],
    llm: str | None,
    budget_words: int,
    questions: int,
    json_out: Path | None,
    embedder: str | None,
) -> None:
    """`bench locomo --answer`: the reader's token F1 with each context, as a table."""
    from kuzya.bench.locomo import CATEGORIES
    from kuzya.bench.locomo_answer import CONTEXTS, run

    config = settings(llm=llm)
    reader = config.load_llm(config.llm)
    if reader is None:
        raise InvalidInput("--answer needs a reader model: add --llm qwen-1.5b (or smollm2)")
    result = run(
        files,
        _embedder(embedder),
        reader,
        questions=questions,
        budget_words=budget_words,
        progress=lambda line: console.print(line),
    )
    contexts = result["contexts"]
    whole = contexts["whole"]
    table = Table(
        title=f"LoCoMo answers by {result['reader']}: token F1 with Kuzya's context and BM25's "
        f"({budget_words} words), and the last {whole['turns_shown']} of {whole['turns']} "
        f"turns ({result['window_tokens']}-token window)"
    )
    for column in ("category", "n", "kuzya", "BM25", "whole"):
        table.add_column(column, justify="right")
    for name, block in [("overall", "overall"), *((c, c) for c in CATEGORIES.values())]:
        scores = [
            contexts[c]["overall"] if block == "overall" else contexts[c]["by_category"][block]
            for c in CONTEXTS
        ]
        table.add_row(name, str(scores[0]["n"]), *(f"{s['f1']:.3f}" for s in scores))
    console.print(table)
    console.print(
        "seconds per answer: "
        + ", ".join(f"{c} {contexts[c]['seconds_per_answer']}" for c in CONTEXTS)
        + f" (whole with its first reading {whole['seconds_per_answer_with_prefill']}); "
        f"context words: " + ", ".join(f"{c} {contexts[c]['context_words']:.0f}" for c in CONTEXTS)
    )
    _write(json_out, result)


def _synthetic(
    run: Callable[..., dict[str, Any]], episodes: int, embedder: str | None, **options: Any
) -> dict[str, Any]:
    """A benchmark over N synthetic episodes in a temporary folder, with a progress bar."""
    with (
        tempfile.TemporaryDirectory(prefix="kuzya-bench-") as tmp,
        importing(episodes) as advance,
    ):
        return run(episodes, _embedder(embedder), Path(tmp), progress=advance, **options)


@bench_app.command("roundtrip")
def roundtrip(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False)],
    sleep: Annotated[
        bool, typer.Option("--sleep", help="Sleep (by rules) before the export.")
    ] = False,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
) -> None:
    """LoCoMo files imported into a store, exported, imported into an empty one: every
    question's recall compared between the two (items, texts, scores)."""
    from kuzya.bench.roundtrip import run

    with tempfile.TemporaryDirectory(prefix="kuzya-roundtrip-") as tmp:
        result = run(files, _embedder(embedder), Path(tmp), sleep=sleep, progress=console.print)
    console.print(
        f"{result['messages']} messages, export {result['export_bytes']:,} bytes in "
        f"{result['export_s']} s, import {result['import_s']} s; {result['questions']} "
        f"questions recalled in both stores, {result['differences']} differ; exported "
        f"again the same: {result['same_export_again']}"
    )
    _write(json_out, result)
    if result["differences"] or not result["same_export_again"]:
        raise typer.Exit(1)


@bench_app.command("scale")
def scale(
    episodes: Annotated[int, typer.Option("--episodes", min=1)] = 100_000,
    queries: Annotated[int, typer.Option("--queries", min=1)] = 200,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
    backend: BackendOption = "sqlite",
    db: BenchDbOption = None,
) -> None:
    """Import N synthetic episodes, then measure recall latency and dense search against
    exact search."""
    from kuzya.bench.scale import run

    result = _synthetic(run, episodes, embedder, queries_n=queries, backend=backend, db=db)
    console.print(
        f"{result['episodes']} episodes: import {result['import_msgs_per_s']} messages/s; "
        f"recall p50 {result['latency_ms']['p50']} ms, p95 {result['latency_ms']['p95']} ms "
        f"(max {result['latency_ms']['max']}); when every memory is visible p50 "
        f"{result['latency_all_visible_ms']['p50']} ms, "
        f"p95 {result['latency_all_visible_ms']['p95']}"
        f" ms; reopen + first recall "
        f"{result['reopen_first_recall_s']} s; dense recall@10 against exact "
        + ", ".join(
            f"{name} {found['recall']} ({found['queries']} queries)"
            for name, found in result["dense_recall_at_10"].items()
        )
    )
    _write(json_out, result)


@bench_app.command("forget")
def forget(
    episodes: Annotated[int, typer.Option("--episodes", min=1)] = 100_000,
    deletes: Annotated[int, typer.Option("--deletes", min=1)] = 20,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
) -> None:
    """Import N synthetic episodes, then time deletes (each purging the store's files)
    and a full compact."""
    from kuzya.bench.forget import run

    result = _synthetic(run, episodes, embedder, deletes=deletes)
    purged, plain = result["delete_ms"], result["delete_without_purge_ms"]
    console.print(
        f"{result['episodes']} episodes ({result['db_bytes']:,} bytes, full-text index "
        f"{result['index_bytes']:,}): delete with purge p50 {purged['p50']} ms, p95 "
        f"{purged['p95']} ms; without purge p50 {plain['p50']} ms, p95 {plain['p95']} ms; "
        f"compact {result['compact_s']} s; secret words left in the files: "
        f"{result['secret_words_left_in_files']} of {result['deletes']}"
    )
    _write(json_out, result)


@eval_app.command("scenarios")
def scenarios(
    paths: Annotated[list[Path], typer.Argument(exists=True)],
    mode: Annotated[str, typer.Option("--mode", help="recall or answer")] = "recall",
    llm: LlmOption = None,
    runs: Annotated[int, typer.Option("--runs", min=1, help="Answer mode: repeat.")] = 1,
    temperature: Annotated[
        float, typer.Option("--temperature", min=0.0, help="Answer mode: sampling (0: greedy).")
    ] = 0.0,
    strict: Annotated[
        bool, typer.Option("--strict", help="Recall mode: check every probe's expect_none.")
    ] = False,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
    backend: BackendOption = "sqlite",
    db: BenchDbOption = None,
    memory: Annotated[
        str, typer.Option(help="engine, recurrent, rag (ChromaDB) or none.")
    ] = "engine",
) -> None:
    """Replay multi-session scenarios (restart between sessions) and check the probes."""
    from kuzya.bench.scenarios import evaluate

    if mode not in {"recall", "answer"}:
        raise typer.BadParameter("--mode is recall or answer")
    config = settings(llm=llm)
    model = config.load_llm(config.llm) if mode == "answer" else None

    def show(probe: Any) -> None:
        mark = "[green]pass[/green]" if probe.passed else "[red]FAIL[/red]"
        console.print(f"{mark} {probe.scenario}: {probe.question}")

    result = evaluate(
        paths,
        _embedder(embedder),
        progress=show,
        llm=model,
        answer_mode=mode == "answer",
        strict=strict,
        runs=runs,
        small_model=is_small(model),
        temperature=temperature,
        backend=backend,
        db=db,
        memory=memory,
    )
    console.print(
        f"{result['mode']} mode, {memory}, llm {result['llm']}, {runs} run(s) at temperature "
        f"{temperature}: accuracy mean "
        f"{result['accuracy']:.3f}, min {result['accuracy_min']:.3f}"
    )
    if "latency_ratio" in result:
        console.print(
            f"reply {result['reply_seconds']} s with memory, "
            f"{result['reply_seconds_without_memory']} s without: x{result['latency_ratio']} "
            f"(read ahead {result['prepare_seconds']} s); "
            f"first reply after a session, read whole {result['cold_reply_seconds']} s / "
            f"{result['cold_reply_seconds_without_memory']} s: x{result['cold_latency_ratio']}"
        )
    _write(json_out, result)
    if mode == "recall" and result["passed"] < result["total"]:
        raise typer.Exit(1)


@bench_app.command("groupchat")
def groupchat(
    messages: Annotated[int, typer.Option("--messages", min=48)] = 2000,
    participants: Annotated[int, typer.Option("--participants", min=2, max=16)] = 12,
    subsets: Annotated[int, typer.Option("--subsets", min=1)] = 100,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
    backend: BackendOption = "sqlite",
    db: BenchDbOption = None,
) -> None:
    """Parallel topics in one big group chat plus private side chats: topic precision@10,
    key-message recall within 400 words, and privacy checked item by item."""
    from kuzya.bench.groupchat import run

    with tempfile.TemporaryDirectory(prefix="kuzya-groupchat-") as tmp:
        result = run(
            _embedder(embedder),
            Path(tmp),
            messages=messages,
            participants=participants,
            subsets=subsets,
            progress=lambda line: console.print(line),
            backend=backend,
            db=db,
        )
    table = Table(
        title=f"Group chat: {result['messages']} messages, {result['participants']} people, "
        f"{result['side_messages']} in side chats ({result['embedder']})",
        caption="P: precision@10 (all questions / in other words / with the topic's words / "
        "without neighbour smoothing); key: key message within 400 words",
    )
    table.add_column("topic", no_wrap=True)
    for column in ("n", "P@10", "P para", "P kw", "P no-nbr", "key", "key para", "key kw"):
        table.add_column(column, justify="right")
    for name, topic in result["topics"].items():
        table.add_row(
            name,
            str(topic["n"]),
            f"{topic['precision_at_10']:.3f}",
            f"{topic['precision_paraphrased']:.3f}",
            f"{topic['precision_keywords']:.3f}",
            f"{topic['precision_without_neighbours']:.3f}",
            f"{topic['key_recall_400']:.3f}",
            f"{topic['key_recall_400_paraphrased']:.3f}",
            f"{topic['key_recall_400_keywords']:.3f}",
        )
    table.add_row(
        "mean",
        "",
        f"{result['mean_precision_at_10']:.3f}",
        "",
        "",
        f"{result['mean_precision_without_neighbours']:.3f}",
        f"{result['mean_key_recall_400']:.3f}",
        "",
        "",
    )
    console.print(table)
    privacy = result["privacy"]
    controls = privacy["secrets_found_by_their_audience"]
    colour = "green" if privacy["violations"] == 0 else "red"
    console.print(
        f"privacy: [{colour}]{privacy['violations']} violations[/{colour}] in "
        f"{privacy['checks']} checks ({privacy['items']} items, {privacy['recalls']} recalls, "
        f"{privacy['subsets']} subsets); secrets found by their own audience "
        f"{controls['found']}/{controls['total']}"
    )
    console.print(
        f"recall p50 {result['latency_ms']['p50']} ms, p95 {result['latency_ms']['p95']} ms; "
        f"import {result['import_msgs_per_s']} messages/s"
    )
    _write(json_out, result)
    if privacy["violations"]:
        raise typer.Exit(1)


@bench_app.command("crash")
def crash(
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs, over the operations.")] = 100,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
) -> None:
    """Kill import, sleep, forget and compact (SIGKILL) at random moments; after each kill
    check the store, that every acknowledged message is there once, and that running the
    operation again gives the result of a run that was never interrupted."""
    from kuzya.bench.crash import run

    with tempfile.TemporaryDirectory(prefix="kuzya-crash-") as tmp:
        result = run(
            runs,
            _embedder(embedder),
            Path(tmp),
            seed=seed,
            progress=lambda line: console.print(line),
        )
    table = Table(title=f"Crash suite: {runs} runs, seed {seed} ({result['embedder']})")
    for column in (
        "operation",
        "runs",
        "killed mid-way",
        "finished first",
        "failures",
        "uninterrupted s",
    ):
        table.add_column(column, justify="right")
    for name, counts in result["operations"].items():
        table.add_row(
            name,
            str(counts["runs"]),
            str(counts["killed_mid_way"]),
            str(counts["finished_before_kill"]),
            str(counts["failures"]),
            str(counts["uninterrupted_s"]),
        )
    console.print(table)
    for failure in result["failures"]:
        console.print(f"[red]{escape(failure)}[/red]")
    console.print(f"{len(result['failures'])} failures in {result['seconds']} s")
    _write(json_out, result)
    if result["failures"]:
        raise typer.Exit(1)


@bench_app.command("load")
def load(
    seconds: Annotated[float, typer.Option("--seconds", min=1)] = 300,
    writers: Annotated[int, typer.Option("--writers", min=1)] = 4,
    sleepers: Annotated[int, typer.Option("--sleepers", min=0)] = 2,
    readers: Annotated[int, typer.Option("--readers", min=1)] = 4,
    json_out: JsonOut = None,
    embedder: EmbedderOption = None,
) -> None:
    """Writers, sleepers and readers as processes on one store for a while: every
    acknowledged message stored once and nothing else, no error reaching a caller, recall
    latency under load, and a clean check at the end."""
    from kuzya.bench.load import run

    with tempfile.TemporaryDirectory(prefix="kuzya-load-") as tmp:
        result = run(
            seconds,
            _embedder(embedder),
            Path(tmp),
            writers=writers,
            sleepers=sleepers,
            readers=readers,
            progress=lambda line: console.print(line),
        )
    recall, remember, sleeps = result["recall_ms"], result["remember_ms"], result["sleeps"]
    console.print(
        f"{seconds:g} s, {writers} writers, {sleepers} sleepers, {readers} readers: "
        f"{result['acknowledged']} messages acknowledged, {result['acknowledged_missing']} "
        f"missing, {result['stored_twice']} stored twice, {result['stored_unacknowledged']} "
        f"stored unacknowledged; errors {result['errors']}; remember p50 {remember['p50']} ms, "
        f"p95 {remember['p95']} ms (max {remember['max']}); {result['recalls']} recalls, "
        f"p50 {recall['p50']} ms, p95 {recall['p95']} ms (max {recall['max']}); sleeps run "
        f"{sleeps['run']}, waited and run {sleeps['waited']}, skipped {sleeps['skipped']}; "
        f"check problems {len(result['check_problems'])}",
        soft_wrap=True,
    )
    for failure in result["failures"]:
        console.print(f"[red]{escape(failure)}[/red]")
    _write(json_out, result)
    if result["failures"]:
        raise typer.Exit(1)
