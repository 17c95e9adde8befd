"""The run's chart: prompt words per waiter turn over the simulated days beside a naive
prompt that keeps every message, and the memory's scores per day. Written headless.
matplotlib comes with the `report` extra; `require` says so before a run starts."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kuzya.errors import InvalidInput

EXTRA = "report"


def require() -> None:
    """Fail before a long run, not after it, when matplotlib is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        raise InvalidInput(
            f"--plot needs matplotlib: pip install 'kuzya[{EXTRA}]' (or leave out --plot)"
        )


def write(rows: Sequence[dict[str, Any]], totals: dict[str, Any], out: Path) -> None:
    """Two panels: prompt words (Kuzya and naive), and recall and stale proposals by day."""
    require()
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    served = [r for r in rows if r["prompt_words"]]
    days = [r["day"] + 1 for r in served]
    figure, (words, scores) = plt.subplots(1, 2, figsize=(11, 4.2))
    words.plot(days, [r["naive_prompt_words"] for r in served], label="naive: every message")
    words.plot(days, [r["prompt_words"] for r in served], label="Kuzya: profile + recall + visit")
    words.set_xlabel("simulated day")
    words.set_ylabel("prompt words per waiter turn")
    words.set_title(
        f"slope {totals['prompt_words_slope']:+.2f} vs "
        f"{totals['naive_prompt_words_slope']:+.1f} words/day"
    )
    words.legend()
    asked = [r for r in rows if r["proposals"]]
    scores.plot([r["day"] + 1 for r in asked], [r["correct"] / r["proposals"] for r in asked],
                ".-", label="usual proposed right")  # fmt: skip
    changed = [r for r in rows if r["after_change"]]
    scores.plot([r["day"] + 1 for r in changed], [r["stale"] / r["after_change"] for r in changed],
                "x", label="stale after a change")  # fmt: skip
    scores.set_ylim(-0.05, 1.05)
    scores.set_xlabel("simulated day")
    scores.set_title(f"allergy violations {totals['allergy_violations']}, leaks {totals['leaks']}")
    scores.legend(loc="center right")
    figure.suptitle(
        f"Noodle shop: {totals['days']} days, {totals['customers']} customers, "
        f"seed {totals['seed']}, {totals['visits']} visits"
    )
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    plt.close(figure)
