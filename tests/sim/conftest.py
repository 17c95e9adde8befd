"""The shop's memory for the tests: a real SQLite file, the real default embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.sim.run import NAMESPACE


@pytest.fixture
def shop_memory(tmp_path: Path, use_embedder: Embedder) -> Iterator[Memory]:
    """A real SQLite file with the real default embedder, sleeping by rules."""
    with Memory.open(
        tmp_path / "shop.db", namespace=NAMESPACE, embedder=use_embedder, llm="none"
    ) as memory:
        yield memory
