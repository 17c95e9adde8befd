"""Writers, a sleeper and readers as processes on one store: the counts reconcile and no
caller sees an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from kuzya.bench.load import SEED_MESSAGES, run
from kuzya.testing import HashEmbedder

pytestmark = pytest.mark.slow


def test_every_acknowledged_message_is_stored_once_and_no_caller_sees_an_error(
    tmp_path: Path,
) -> None:
    result = run(20, HashEmbedder(), tmp_path, writers=2, sleepers=1, readers=2)
    assert result["failures"] == []
    assert result["errors"] == {"writer": 0, "sleeper": 0, "reader": 0}
    assert result["acknowledged"] > 0 and result["acknowledged_missing"] == 0
    assert result["stored_unacknowledged"] == 0 and result["stored_twice"] == 0
    assert result["seed_messages_stored"] == SEED_MESSAGES
    assert result["recalls"] > 0 and result["check_problems"] == []
    assert result["sleeps"]["run"] + result["sleeps"]["waited"] >= 1
