"""`kuzya bench report`: the memory comparison, written to docs/report.md."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kuzya.cli.bench import _embedder, console
from kuzya.cli.options import EmbedderOption, LlmOption


def report(
    shared: Annotated[Path, typer.Option(help="The sketch's five scenarios.")] = Path(
        "../shared/scenarios"
    ),
    own: Annotated[Path, typer.Option(help="Kuzya's own scenario set.")] = Path("scenarios"),
    out: Annotated[Path, typer.Option(help="The report; its charts go beside it.")] = Path(
        "docs/report.md"
    ),
    locomo: Annotated[
        Path | None, typer.Option(help="A folder of LoCoMo files (none: the section is left out).")
    ] = None,
    llm: LlmOption = "smollm2",
    embedder: EmbedderOption = None,
) -> None:
    """Compare no memory, recurrent memory, a ChromaDB RAG and Kuzya's engine on the same
    scenarios (recall and answer modes, latency, cost, privacy) and write the report."""
    from kuzya.bench.report import run
    from kuzya.config import settings
    from kuzya.errors import InvalidInput

    for path in (shared, own, *([locomo] if locomo else [])):
        if not path.exists():
            raise InvalidInput(f"no such folder: {path}")
    config = settings(llm=llm)
    command = f"kuzya bench report --llm {config.llm}"
    run(
        shared, own, _embedder(embedder), config.load_llm(config.llm), out, command,
        progress=lambda line: console.print(line, markup=False),
        locomo=sorted(locomo.glob("*.json")) if locomo else (),
    )  # fmt: skip
    console.print(f"wrote {out}")
