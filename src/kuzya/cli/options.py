"""What the CLI commands share: options, settings, opening the memory, the console."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from kuzya.config import settings
from kuzya.errors import StoreError
from kuzya.llm import LLM
from kuzya.memory import Memory
from kuzya.store.opening import is_url

console = Console()

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Store file (env KUZYA_DB), or a PostgreSQL URL postgresql://… "
        "(env KUZYA_DATABASE_URL).",
    ),
]
NamespaceOption = Annotated[
    str | None, typer.Option("--namespace", "-n", help="Namespace (env KUZYA_NAMESPACE).")
]
EmbedderOption = Annotated[
    str | None,
    typer.Option("--embedder", help="'use' (default) or 'st:<model>' (env KUZYA_EMBEDDER)."),
]
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="'none', 'smollm2', 'qwen-1.5b', a .gguf path, or 'openai:<model>' "
        "(server from KUZYA_LLM_BASE_URL, key from KUZYA_LLM_API_KEY). Env KUZYA_LLM.",
    ),
]
SleepLlmOption = Annotated[
    str | None,
    typer.Option(
        "--sleep-llm",
        help="The model sleep consolidates with, 'none' for rules only; default: the --llm "
        "model. Env KUZYA_SLEEP_LLM.",
    ),
]
ConsolidateLlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="The model to consolidate with, as for --llm of kuzya chat; 'none' for rules "
        "only. Env KUZYA_SLEEP_LLM, else KUZYA_LLM.",
    ),
]
NerOption = Annotated[
    bool | None,
    typer.Option("--ner/--no-ner", help="Sleep runs spaCy / natasha NER (env KUZYA_NER)."),
]
Participants = Annotated[
    str, typer.Option("--participants", "-p", help="Comma-separated ids of those present.")
]
Viewers = Annotated[
    str | None,
    typer.Option("--participants", "-p", help="Comma-separated ids of those who will see it."),
]


ReadOnlyOption = Annotated[
    bool,
    typer.Option(
        "--read-only", help="Open the store read-only (automatic when it cannot be written)."
    ),
]
CreateOption = Annotated[
    bool, typer.Option("--create", help="Make the store's folder if it does not exist.")
]


def open_memory(
    db: str | None,
    namespace: str | None,
    embedder: str | None,
    llm: str | LLM | None = "none",
    ner: bool | None = False,
    *,
    create: bool = False,
    folder: bool = False,
    read_only: bool | None = False,
) -> Memory:
    """The memory the options name (what they leave out comes from the environment);
    `llm` and `ner` are what sleep uses (None: from the environment), so commands that
    never sleep load neither. Only commands that write `create` a missing store, and
    its missing `folder` only when told (--create); `read_only` True forces a read-only
    open, None (commands that only read) opens read-only a store that cannot be written."""
    if folder and not is_url(db or settings().store):
        path = settings(db=db).db
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot make folder {path.parent}: {exc.strerror or exc}") from None
    return Memory.open(
        db,
        namespace=namespace,
        embedder=embedder,
        llm=llm,
        ner=ner,
        create=create,
        read_only=read_only,
    )


def ids(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


@contextmanager
def importing(total: int, label: str = "importing") -> Iterator[Callable[[int], None]]:
    """A progress bar for an import of `total` messages; yields what advances it."""
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)
