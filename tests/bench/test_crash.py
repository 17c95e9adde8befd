"""The crash suite kills each operation (import, sleep, forget, compact) as a real
process twice, and finds nothing lost, duplicated, left over or different."""

from __future__ import annotations

from pathlib import Path

import pytest

from kuzya.bench.crash import OPERATIONS, run
from kuzya.testing import HashEmbedder

pytestmark = pytest.mark.slow


def test_killed_operations_lose_nothing_and_finish_when_run_again(tmp_path: Path) -> None:
    result = run(2 * len(OPERATIONS), HashEmbedder(), tmp_path, seed=3)
    assert result["failures"] == []
    for name in OPERATIONS:
        counts = result["operations"][name]
        assert counts["runs"] == 2 and counts["failures"] == 0
        assert counts["killed_mid_way"] + counts["finished_before_kill"] == 2
