"""`kuzya check` and `kuzya backup`: the store as an operator sees it (no models load)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from kuzya.cli.options import DbOption, console
from kuzya.config import settings
from kuzya.errors import InvalidInput
from kuzya.store.opening import is_url, open_store, shown
from kuzya.store.sqlite.store import SQLiteStore


def _file(db: str | None, command: str) -> Path:
    """The store file the options name; a PostgreSQL server is backed up with its own
    tools."""
    location = db or settings().store
    if is_url(location):
        raise InvalidInput(
            f"{command} works on a SQLite store file; for PostgreSQL use the server's tools "
            "(pg_dump) or `kuzya export`"
        )
    return Path(location)


def check(db: DbOption = None) -> None:
    """Check the whole store: a SQLite file's pages and indexes, the full-text and
    vector indexes against the messages, and that facts, mentions, replies and diary
    entries point at messages that exist. Exit code 1 when anything is wrong."""
    location = db or settings().store
    store = open_store(location, create=False)
    try:
        findings = store.check()
    finally:
        store.close()
    shown_as = shown(location) if is_url(location) else location
    table = Table(title=f"kuzya check {shown_as}")
    for column in ("check", "problems", "first seen"):
        table.add_column(column, overflow="fold")
    for finding in findings:
        mark = "[green]0[/green]" if not finding.problems else f"[red]{finding.problems}[/red]"
        table.add_row(finding.check, mark, finding.detail)
    console.print(table)
    wrong = sum(1 for finding in findings if finding.problems)
    if wrong:
        console.print(f"[red]{wrong} of {len(findings)} checks found problems[/red]")
        raise typer.Exit(1)
    console.print(f"all {len(findings)} checks passed")


def backup(
    destination: Annotated[Path, typer.Argument(help="The new file to write.")],
    db: DbOption = None,
) -> None:
    """Copy the store (every namespace) to a new file, consistent while others write."""
    path = _file(db, "kuzya backup")
    store = SQLiteStore(path, create=False)
    try:
        size = store.backup(destination)
    finally:
        store.close()
    console.print(f"backed up {path} to {destination} ({size:,} bytes)", soft_wrap=True)
