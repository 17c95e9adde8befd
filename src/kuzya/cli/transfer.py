"""`kuzya import`: chat files or an export into a store, each message once however often
it runs; `kuzya export`: a namespace as JSONL."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kuzya.bench.locomo_data import read_locomo
from kuzya.cli.options import (
    CreateOption,
    DbOption,
    EmbedderOption,
    NamespaceOption,
    console,
    importing,
    open_memory,
)
from kuzya.config import settings
from kuzya.errors import InvalidInput
from kuzya.memory import Memory
from kuzya.model import Message
from kuzya.remember import BATCH
from kuzya.store.opening import is_url
from kuzya.transfer.jsonl import read_jsonl
from kuzya.transfer.namespace import export as export_namespace
from kuzya.transfer.namespace import is_export, read_export, restore
from kuzya.transfer.records import Export

FORMATS = ("auto", "locomo", "jsonl", "export")


def import_(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False)],
    fmt: Annotated[
        str, typer.Option("--format", help="auto, locomo, jsonl or export (of kuzya export)")
    ] = "auto",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check every file and count; write nothing.")
    ] = False,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    create: CreateOption = False,
) -> None:
    """Import LoCoMo JSON, JSONL chat files (one message per line) or an export of `kuzya
    export` (told by its first line). Every file is checked whole before anything is
    written, and every message has a stable key, so running an import again stores nothing
    twice and finishes what an interrupted one began."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown --format {fmt!r}: use one of {', '.join(FORMATS)}")
    read = [(path, messages(path, fmt)) for path in files]
    location = db or settings().store
    if dry_run and not is_url(location) and not Path(location).exists():
        for path, found in read:
            console.print(
                f"{path}: {_count(found)} messages, all valid; no store yet", soft_wrap=True
            )
        return
    with open_memory(
        db, namespace, embedder, create=not dry_run, folder=create, read_only=dry_run
    ) as memory:
        for path, found in read:
            keys = list(found.by_key) if isinstance(found, Export) else [m.key for m in found]
            stored = len(memory.store.keyed(memory.namespace, [k for k in keys if k]))
            if dry_run:
                console.print(
                    f"{path}: {len(keys)} messages, all valid; {stored} already stored, "
                    f"{len(keys) - stored} to import",
                    soft_wrap=True,
                )
                continue
            if isinstance(found, Export):
                restore(memory, found)
            else:
                store_all(memory, found, path.name)
            console.print(
                f"{path}: {len(keys) - stored} messages imported, {stored} already stored",
                soft_wrap=True,
            )


def _count(found: list[Message] | Export) -> int:
    return len(found.messages if isinstance(found, Export) else found)


def messages(path: Path, fmt: str) -> list[Message] | Export:
    """The file's messages, or the export it is, validated (an error names the file and
    line)."""
    kind = fmt
    if kind == "auto":
        kind = "export" if is_export(path) else "jsonl" if path.suffix == ".jsonl" else "locomo"
    if kind == "export":
        return read_export(path)
    return read_locomo(path).messages if kind == "locomo" else read_jsonl(path)


def store_all(memory: Memory, found: list[Message], label: str) -> None:
    """Remember the messages in committed batches, with a progress bar."""
    with importing(len(found), f"importing {label}") as advance:
        for start in range(0, len(found), BATCH):
            chunk = found[start : start + BATCH]
            memory.remember_many(chunk)
            advance(len(chunk))


def export(
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", dir_okay=False, help="File to write (default: stdout)."),
    ] = None,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Write a namespace as JSONL: messages with their audiences, times, attachments and
    metadata, the facts and diary sleep made, the entity graph and the jobs' positions
    (`kuzya.transfer.namespace`); `kuzya import` reads it into another store, of any embedder."""
    with open_memory(db, namespace, embedder, read_only=None) as memory:
        if out is None:
            export_namespace(memory, sys.stdout)
            return
        count = export_namespace(memory, out)
        console.print(f"{out}: {count} messages of namespace {memory.namespace!r}", soft_wrap=True)
