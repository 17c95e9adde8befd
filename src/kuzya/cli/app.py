"""The `kuzya` command: remember, recall, import, inspect, demo, and the benchmarks."""

from __future__ import annotations

import json
import shlex
import tempfile
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kuzya.cli import bench_report, bench_service, operations, serve, transfer
from kuzya.cli import chat as chat_commands
from kuzya.cli.bench import bench_app, eval_app
from kuzya.cli.options import (
    CreateOption,
    DbOption,
    EmbedderOption,
    NamespaceOption,
    Participants,
    ReadOnlyOption,
    Viewers,
    console,
)
from kuzya.cli.options import ids as _ids
from kuzya.cli.options import open_memory as _open
from kuzya.cli.recurrent import recurrent_app
from kuzya.cli.sim import sim_app
from kuzya.cli.transfer import store_all
from kuzya.config import settings
from kuzya.errors import InvalidInput, KuzyaError
from kuzya.images import ImageFolder, VisionDescriber, read_image, remember_image
from kuzya.memory import Memory
from kuzya.model import Recall
from kuzya.store.opening import is_url, shown
from kuzya.store.sqlite.files import store_files
from kuzya.transfer.jsonl import read_jsonl

app = typer.Typer(
    help="Kuzya: long-term memory for LLM assistants and agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
bench_app.command("serve")(bench_service.serve)
bench_app.command("report")(bench_report.report)
app.add_typer(bench_app, name="bench")
app.add_typer(eval_app, name="eval")
app.add_typer(serve.keys_app, name="keys")
app.add_typer(recurrent_app, name="recurrent")
app.add_typer(sim_app, name="sim")
app.command()(serve.serve)
app.command()(serve.mcp)
app.command()(serve.worker)
for command in (chat_commands.chat, chat_commands.sleep, chat_commands.profile):
    app.command()(command)
app.command("import")(transfer.import_)
app.command("export")(transfer.export)
app.command()(operations.check)
app.command()(operations.backup)


def show_recall(recall: Recall, title: str) -> None:
    table = Table(title=title, show_lines=False)
    for column in ("score", "said", "who", "text", "source"):
        table.add_column(column, overflow="fold")
    for item in recall.items:
        table.add_row(
            f"{item.score:.3f}",
            item.said_at.strftime("%Y-%m-%d %H:%M"),
            Text(item.speaker),
            Text(item.dated_text()),
            ",".join(f"#{s}" for s in item.sources),
        )
    console.print(table)


@app.command()
def remember(
    text: str,
    speaker: Annotated[str, typer.Option("--speaker", "-s")],
    participants: Annotated[str | None, typer.Option("--participants", "-p")] = None,
    conversation: Annotated[str, typer.Option("--conversation", "-c")] = "default",
    time: Annotated[datetime | None, typer.Option("--time")] = None,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    create: CreateOption = False,
    image: Annotated[
        Path | None,
        typer.Option("--image", help="An image sent with the text (PNG, JPEG, GIF, WebP)."),
    ] = None,
    caption: Annotated[
        str | None, typer.Option("--caption", help="What the image shows, in the sender's words.")
    ] = None,
) -> None:
    """Store one message (committed before this returns). With --image, the image is
    described (KUZYA_VISION_MODEL, else --caption) and kept beside the store."""
    present = _ids(participants) if participants else [speaker]
    with _open(db, namespace, embedder, create=True, folder=create) as memory:
        if image is None:
            episode = memory.remember(
                text, speaker=speaker, conversation=conversation, participants=present, time=time
            )
        else:
            config = settings(
                db=None if db is None or is_url(db) else db,
                database_url=db if db and is_url(db) else None,
            )
            vision = config.vision
            episode = remember_image(
                memory, ImageFolder(config.images_dir), read_image(image), speaker=speaker,
                participants=present, conversation=conversation, text=text, caption=caption,
                describer=None if vision is None else VisionDescriber(vision), time=time,
            )  # fmt: skip
    console.print(f"remembered #{episode.id} (audience: {', '.join(sorted(episode.audience))})")


@app.command()
def recall(
    query: str,
    participants: Participants,
    conversation: Annotated[str | None, typer.Option("--conversation", "-c")] = None,
    now: Annotated[datetime | None, typer.Option("--now")] = None,
    limit: Annotated[int, typer.Option("--limit")] = 20,
    budget_words: Annotated[int, typer.Option("--budget-words")] = 400,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    read_only: ReadOnlyOption = False,
) -> None:
    """Recall what the participants present may be reminded of."""
    with _open(db, namespace, embedder, read_only=read_only or None) as memory:
        result = memory.recall(
            query,
            participants=_ids(participants),
            now=now,
            conversation=conversation,
            limit=limit,
            budget_words=budget_words,
        )
    if as_json:
        typer.echo(json.dumps([_item_json(i) for i in result.items], ensure_ascii=False, indent=1))
    else:
        show_recall(result, f"recall: {query}")


def _item_json(item: Any) -> dict[str, Any]:
    return {
        "id": item.id,
        "kind": str(item.kind),
        "text": item.text,
        "score": item.score,
        "speaker": item.speaker,
        "conversation": item.conversation,
        "said_at": item.said_at.isoformat(),
        "stored_at": item.stored_at.isoformat(),
        "sources": list(item.sources),
        "events": [
            {"phrase": e.phrase, "start": e.start.isoformat(), "end": e.end.isoformat()}
            for e in item.events
        ],
    }


@app.command()
def stats(
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    read_only: ReadOnlyOption = False,
) -> None:
    """What the store holds in this namespace."""
    with _open(db, namespace, embedder, read_only=read_only or None) as memory:
        figures = memory.stats()
    table = Table(show_header=False)
    for key, value in figures.items():
        table.add_row(key, str(value))
    console.print(table)


@app.command()
def history(
    memory_id: int,
    participants: Viewers = None,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    read_only: ReadOnlyOption = False,
) -> None:
    """The audit log of one memory (with -p: only if those present may see it)."""
    present = _ids(participants) if participants else None
    with _open(db, namespace, embedder, read_only=read_only or None) as memory:
        for event in memory.history(memory_id, participants=present):
            console.print(
                f"{event.at:%Y-%m-%d %H:%M:%S} {event.event:<6} "
                f"{event.old_text or ''!r} -> {event.new_text or ''!r}"
            )


@app.command()
def forget(
    memory_id: Annotated[int | None, typer.Argument(help="A memory to delete.")] = None,
    subject: Annotated[
        str | None, typer.Option("--subject", "-s", help="Whose facts to forget.")
    ] = None,
    attribute: Annotated[str | None, typer.Option(help="e.g. address, lives_in.")] = None,
    about: Annotated[str | None, typer.Option(help="Anything mentioning this.")] = None,
    everything: Annotated[bool, typer.Option(help="Every fact about the subject.")] = False,
    participants: Viewers = None,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Delete a memory and what was made from it (`kuzya forget 12`), or forget a
    subject's facts and the sentences that stated them (`kuzya forget -s ana --attribute
    address`), wherever those present (by default the subject) may see them."""
    if (memory_id is None) == (subject is None):
        raise InvalidInput(
            "give a memory id, or --subject with --attribute, --about or --everything"
        )
    with _open(db, namespace, embedder) as memory:
        if memory_id is not None:
            memory.delete(memory_id, actor="cli")
            console.print(f"forgot #{memory_id} and what was made from it")
            return
        assert subject is not None
        done = memory.forget(
            subject,
            attribute=attribute,
            about=about,
            everything=everything,
            participants=_ids(participants) if participants else None,
            actor="cli",
        )
    console.print(
        f"forgot {done.facts} facts; {done.redacted} messages redacted, {done.deleted} deleted"
    )


@app.command()
def compact(
    db: DbOption = None, namespace: NamespaceOption = None, embedder: EmbedderOption = None
) -> None:
    """Rewrite the store file (every namespace) to reclaim the space of deleted memories."""
    location = db or settings().store
    if is_url(location):
        with _open(db, namespace, embedder) as memory:
            memory.compact()
        console.print(f"compacted {shown(location)}")
        return
    path = Path(location)
    before = _store_bytes(path)
    with _open(db, namespace, embedder) as memory:
        memory.compact()
    console.print(f"compacted {path}: {before:,} -> {_store_bytes(path):,} bytes")


def _store_bytes(path: Path) -> int:
    """The store file and its write-ahead log."""
    return sum(f.stat().st_size for f in store_files(path) if f.exists())


DEMO_NAMESPACE = "noodle-shop"


@app.command()
def demo(db: DbOption = None, embedder: EmbedderOption = None) -> None:
    """Import a sample multi-session chat and show recall, provenance and privacy (offline).
    With --db the store is kept, in namespace noodle-shop, for other commands to read."""
    with tempfile.TemporaryDirectory(prefix="kuzya-demo-") as tmp:
        path = db or Path(tmp) / "demo.db"
        with Memory.open(path, namespace=DEMO_NAMESPACE, embedder=embedder, llm="none") as memory:
            if memory.stats()["episodes"]:
                raise InvalidInput(
                    f"{path} already holds namespace {DEMO_NAMESPACE!r}: give the demo another --db"
                )
            where = f"{path} (a temporary file)" if db is None else str(path)
            console.print(f"Writing to {where}, namespace {DEMO_NAMESPACE}.", soft_wrap=True)
            _demo(memory)
    if db is None:
        console.print(
            "\nTo keep the store and read it with other commands: kuzya demo --db demo.db"
        )
        return
    options = f"--db {shlex.quote(str(db))} -n {DEMO_NAMESPACE}"
    console.print(
        f"\nKept in {db}, namespace {DEMO_NAMESPACE}. Read it with:\n"
        f"  kuzya profile mika {options}\n"
        f'  kuzya recall "Does Mika have any food allergies?" -p mika,waiter {options}',
        markup=False,
        soft_wrap=True,
    )


def _demo(memory: Memory) -> None:
    sample = resources.files("kuzya") / "data" / "demo.jsonl"
    with resources.as_file(sample) as sample_path:
        store_all(memory, read_jsonl(sample_path), "noodle-shop chat")
    console.print(
        f"[bold]{memory.stats()['episodes']} messages in 4 visits; "
        "mika and jun are regulars, the waiter is the assistant.[/bold]\n"
    )
    asks = [
        ("Does Mika have any food allergies?", ["mika", "waiter"], None),
        ("Where is Mika applying for a job?", ["mika", "waiter"], None),
        (
            "Where is Mika applying for a job?",
            ["mika", "jun", "waiter"],
            "jun is present: Mika's private words stay out",
        ),
        ("Где Джун был в прошлую субботу?", ["jun", "waiter"], None),
    ]
    for query, present, note in asks:
        result = memory.recall(query, participants=present, now="2026-03-25T12:00:00", limit=3)
        show_recall(result, f"{query}  (present: {', '.join(present)})")
        if note:
            console.print(f"[italic]{note}[/italic]\n")
    report = memory.sleep(now="2026-03-25T12:00:00")
    console.print(
        f"[bold]After sleep[/bold] ({report.episodes} messages consolidated, "
        f"{report.claims} claims, {report.diary} diary entries):"
    )
    console.print(memory.profile("mika", participants=["mika", "waiter"]).as_prompt(), markup=False)


def main() -> None:
    try:
        app()
    except KuzyaError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise SystemExit(2) from exc
