"""The settings that point `kuzya serve` at a model served the OpenAI way."""

from __future__ import annotations


def served_model(base_url: str, steps: int = 3) -> dict[str, str]:
    """The variables that point `kuzya serve` at a model served the OpenAI way (sleep
    keeps to its rules, so it never takes the model's scripted answers)."""
    return {
        "KUZYA_LLM": "openai", "KUZYA_LLM_MODEL": "served", "KUZYA_LLM_BASE_URL": base_url,
        "KUZYA_SLEEP_LLM": "none", "KUZYA_MAX_TOOL_STEPS": str(steps),
    }  # fmt: skip
