"""`kuzya bench report` writes the comparison with the figures it measured, and its charts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_report_holds_what_it_measured(tmp_path: Path) -> None:
    shared, own = tmp_path / "shared", tmp_path / "own"
    shared.mkdir()
    own.mkdir()
    for kind, folder in (("update", shared), ("privacy", own)):
        first = sorted((ROOT / "scenarios").glob(f"{kind}-*.json"))[0]
        shutil.copy(first, folder / first.name)
    out = tmp_path / "docs" / "report.md"
    run = subprocess.run(
        [sys.executable, "-m", "kuzya", "bench", "report", "--shared", str(shared),
         "--own", str(own), "--out", str(out), "--llm", "none"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    text = out.read_text()
    for kind in ("Kuzya engine", "recurrent (GRU)", "ChromaDB RAG", "no memory"):
        assert f"| {kind} |" in text
    printed = [line for line in run.stdout.splitlines() if line.startswith("recall, engine, own")]
    engine_own = printed[0].rsplit(" ", 1)[1]
    assert "| Kuzya engine | " in text and f" {float(engine_own):.3f} (" in text
    for chart in ("accuracy", "growth", "slots"):
        assert (out.parent / f"report-{chart}.png").stat().st_size > 1000
