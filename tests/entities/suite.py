"""Shared harness of the case suites: run one case, parametrise with known gaps, rate."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from kuzya import Memory
from kuzya.embed import Embedder

Case = Callable[[Memory], None]


def run(cases: Mapping[str, Case], case: str, path: Path, embedder: Embedder) -> str | None:
    """None when the case passes, else what went wrong."""
    with Memory.open(path, namespace="test", embedder=embedder) as memory:
        try:
            cases[case](memory)
        except AssertionError as error:
            return f"{case}: {error}".splitlines()[0]
    return None


def params(cases: Mapping[str, Case], known_gaps: Mapping[str, str]) -> list[Any]:
    """Every case; those the engine does not pass yet are strict xfail with their cause."""
    return [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=known_gaps[c]))
        if c in known_gaps
        else c
        for c in sorted(cases)
    ]


def failures(cases: Mapping[str, Case], tmp_path: Path, embedder: Embedder) -> list[str]:
    return [
        failure
        for number, case in enumerate(sorted(cases))
        if (failure := run(cases, case, tmp_path / f"{number}.db", embedder)) is not None
    ]


def check_bilingual(cases: Mapping[str, Case], at_least: int = 30) -> None:
    """A suite has enough cases, and English and Russian ("ru-" ids) about evenly."""
    assert len(cases) >= at_least
    russian = [c for c in cases if c.startswith("ru-")]
    assert 0.4 <= len(russian) / len(cases) <= 0.6
