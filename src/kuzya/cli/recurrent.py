"""`kuzya recurrent train`: the recurrent memory's encoder, trained again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from kuzya.cli.options import EmbedderOption, console

recurrent_app = typer.Typer(help="Recurrent (GRU) memory.", no_args_is_help=True)


@recurrent_app.command()
def train(
    steps: Annotated[int, typer.Option(min=1, help="Optimiser steps.")] = 400,
    seed: Annotated[int, typer.Option(help="The seed: the same seed, the same weights.")] = 7,
    output: Annotated[
        Path | None,
        typer.Option(help="Where to write the weights (default: the ones Kuzya ships)."),
    ] = None,
    embedder: EmbedderOption = None,
) -> None:
    """Train the encoder on the synthetic corpus (a few minutes on a CPU) and report how
    often it puts the answering session first on held-out sessions."""
    from importlib import resources

    from kuzya.config import settings
    from kuzya.embed import load_embedder
    from kuzya.recurrent.memory import ENCODER_FILE
    from kuzya.recurrent.train import train as run

    target = output or Path(str(resources.files("kuzya") / "data" / ENCODER_FILE))
    found = run(
        load_embedder(settings(embedder=embedder).embedder), target, steps=steps, seed=seed,
        progress=lambda line: console.print(line, markup=False),
    )  # fmt: skip
    console.print(json.dumps(found, indent=1), markup=False)
