"""The shop with the embedded SmolLM2 writing the diary and the waiter's lines, 3 days x 5
customers end to end. Fails, not skips, when llama-cpp-python or the model is missing;
deselect with `-m "not llm"`."""

from __future__ import annotations

import json

import pytest

from kuzya.embed import Embedder
from kuzya.llm.llama import LlamaCpp
from kuzya.sim.run import run

pytestmark = pytest.mark.llm


def test_three_days_with_smollm2_run_end_to_end(use_embedder: Embedder) -> None:
    model = LlamaCpp("smollm2", threads=2)
    result = run(days=3, customers=5, seed=1, llm=model, embedder=use_embedder)
    totals = result.totals
    assert totals["llm"] == "llama:smollm2" and totals["visits"] >= 5
    assert model.meter.snapshot()["calls"] > 0  # the model was asked
    assert totals["allergy_violations"] == 0 and totals["leaks"] == 0
    # every visit has its diary, the model's or (its JSON unusable) the rules'
    assert totals["diary_written"] >= totals["visits"]
    assert 0 <= totals["diary_fallbacks"] <= totals["diary_written"]
    json.dumps(result.as_json())  # the report is plain JSON
