"""What the CLI commands share: options, settings, opening the memory, the console."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from kuzya.config import Settings
from kuzya.llm import LLM, load_llm
from kuzya.memory import Memory
from kuzya.ner import ModelNER

console = Console()

DbOption = Annotated[Path | None, typer.Option("--db", help="Store file [env KUZYA_DB].")]
NamespaceOption = Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace.")]
EmbedderOption = Annotated[
    str | None, typer.Option("--embedder", help="'use' (default) or 'st:<model>'.")
]
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="'none', 'smollm2', 'qwen-1.5b', a .gguf path, or 'openai:<model>' "
        "(server from KUZYA_LLM_BASE_URL, key from KUZYA_LLM_API_KEY) [env KUZYA_LLM].",
    ),
]
NerOption = Annotated[
    bool | None,
    typer.Option("--ner/--no-ner", help="Sleep runs spaCy / natasha NER [env KUZYA_NER]."),
]
Participants = Annotated[
    str, typer.Option("--participants", "-p", help="Comma-separated ids of those present.")
]
Viewers = Annotated[
    str | None,
    typer.Option("--participants", "-p", help="Comma-separated ids of those who will see it."),
]


def settings(
    db: Path | None = None,
    namespace: str | None = None,
    embedder: str | None = None,
    llm: str | None = None,
    ner: bool | None = None,
) -> Settings:
    given: dict[str, Any] = {
        key: value
        for key, value in (("db", db), ("namespace", namespace), ("embedder", embedder),
                           ("llm", llm), ("ner", ner))
        if value is not None
    }  # fmt: skip
    return Settings(**given)


def open_llm(config: Settings) -> LLM | None:
    return load_llm(
        config.llm,
        base_url=config.llm_base_url,
        api_key=config.llm_api_key,
        threads=config.llm_threads,
    )


def open_memory(
    db: Path | None,
    namespace: str | None,
    embedder: str | None,
    llm: str | None = None,
    ner: bool | None = None,
) -> Memory:
    config = settings(db, namespace, embedder, llm, ner)
    return Memory.open(
        config.db,
        namespace=config.namespace,
        embedder=config.embedder,
        durable=config.durable,
        llm=open_llm(config) if llm is not None else None,
        ner=ModelNER() if config.ner else None,
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
