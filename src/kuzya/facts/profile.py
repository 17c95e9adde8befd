"""The profile: a subject's current facts, most important first, ready for a prompt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kuzya.model import Fact


@dataclass(frozen=True)
class Profile:
    subject: str
    facts: tuple[Fact, ...]  # current facts, health first, trivia last

    def __len__(self) -> int:
        return len(self.facts)

    def as_prompt(self, limit: int = 25) -> str:
        """One line per fact, grouped by category, in priority order."""
        if not self.facts:
            return f"(nothing known about {self.subject} yet)"
        lines = [f"About {self.subject}:"]
        for fact in self.facts[:limit]:
            lines.append(f"- [{fact.category}] {fact.statement}")
        return "\n".join(lines)


def build(subject: str, facts: Sequence[Fact]) -> Profile:
    """Current facts of the subject, by priority, then confidence, then most recent."""
    ordered = sorted(
        (f for f in facts if f.current and f.subject == subject),
        key=lambda f: (-f.priority, -f.confidence, -f.valid_from.timestamp(), f.id),
    )
    return Profile(subject, tuple(ordered))
