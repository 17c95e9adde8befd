"""`kuzya import`: chat files into a store, each message once however often it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
from kuzya.importers import read_jsonl, read_locomo
from kuzya.memory import Memory
from kuzya.model import Message
from kuzya.remember import BATCH

FORMATS = ("auto", "locomo", "jsonl")


def import_(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False)],
    fmt: Annotated[str, typer.Option("--format", help="auto, locomo or jsonl")] = "auto",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check every file and count; write nothing.")
    ] = False,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    create: CreateOption = False,
) -> None:
    """Import LoCoMo JSON or JSONL chat files (one message per line). Every file is checked
    whole before anything is written, and every message has a stable key, so running an
    import again stores nothing twice and finishes what an interrupted one began."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown --format {fmt!r}: use one of {', '.join(FORMATS)}")
    read = [(path, messages(path, fmt)) for path in files]
    if dry_run and not settings(db=db).db.exists():
        for path, found in read:
            console.print(f"{path}: {len(found)} messages, all valid; no store yet", soft_wrap=True)
        return
    with open_memory(
        db, namespace, embedder, create=not dry_run, folder=create, read_only=dry_run
    ) as memory:
        for path, found in read:
            keys = [m.key for m in found if m.key is not None]
            stored = len(memory.store.keyed(memory.namespace, keys))
            if dry_run:
                console.print(
                    f"{path}: {len(found)} messages, all valid; {stored} already stored, "
                    f"{len(found) - stored} to import",
                    soft_wrap=True,
                )
                continue
            store_all(memory, found, path.name)
            console.print(
                f"{path}: {len(found) - stored} messages imported, {stored} already stored",
                soft_wrap=True,
            )


def messages(path: Path, fmt: str) -> list[Message]:
    """The file's messages, validated (an error names the file and line)."""
    kind = fmt if fmt != "auto" else ("jsonl" if path.suffix == ".jsonl" else "locomo")
    return read_locomo(path).messages if kind == "locomo" else read_jsonl(path)


def store_all(memory: Memory, found: list[Message], label: str) -> None:
    """Remember the messages in committed batches, with a progress bar."""
    with importing(len(found), f"importing {label}") as advance:
        for start in range(0, len(found), BATCH):
            chunk = found[start : start + BATCH]
            memory.remember_many(chunk)
            advance(len(chunk))
