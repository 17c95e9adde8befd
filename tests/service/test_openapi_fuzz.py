"""Schemathesis against the OpenAPI a real `kuzya serve` serves: generated requests of
every operation (valid and not), and stateful sequences over the links it infers. No
request may get a 5xx."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kuzya.bench.serving import serving

pytestmark = pytest.mark.slow


def test_no_generated_request_gets_a_server_error(tmp_path: Path) -> None:
    with serving(tmp_path / "fuzz.db", log=tmp_path / "serve.log") as base:
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", f"{base}/openapi.json",
             "--checks", "not_a_server_error", "--max-examples", "30", "--seed", "1",
             "--generation-database", "none", "--request-timeout", "60"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "generated" in run.stdout and "failed" not in run.stdout.split("Test cases:")[-1]
