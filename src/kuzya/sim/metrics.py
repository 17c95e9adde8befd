"""Scoring: the only code that reads the script's hidden truth. It compares what the
agents said and saw with what the customers want and told, day by day.

- preference recall: on a return visit, the waiter's proposal equals the order the
  customer last told (all four aspects);
- stale: after a customer told a change, a proposal still names a replaced value;
- allergy violations: a dish proposed, recommended or served that holds an allergen of
  the customer's;
- leaks: a secret's marker in anything an agent said or was shown while someone other
  than the secret's teller and the waiter was present (the chef included);
- prompt words per waiter turn, beside a naive prompt that keeps every message.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kuzya.sim.customers import Plan, Script, day_start
from kuzya.sim.menu import ASPECTS, DISHES, Order

WAITER, CHEF = "waiter", "chef"


@dataclass
class _Day:
    visits: int = 0
    proposals: int = 0
    correct: int = 0
    after_change: int = 0
    stale: int = 0
    violations: int = 0
    leaks: int = 0
    prompt_words: list[int] = field(default_factory=list)
    naive_words: list[int] = field(default_factory=list)
    answers: int = 0
    answers_right: int = 0


def slope(points: Collection[tuple[float, float]]) -> float:
    """The least-squares slope of y over x (0 for fewer than two distinct x)."""
    if len({x for x, _ in points}) < 2:
        return 0.0
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return statistics.linear_regression(xs, ys).slope


class Scorer:
    """Collects what happened and scores it against the script."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.told: dict[str, Order] = {}  # the order each customer last told
        self.replaced: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.days: dict[int, _Day] = defaultdict(_Day)
        self.rows: list[dict[str, Any]] = []
        self.leaked: list[str] = []  # what leaked, for the report
        self.kinds: dict[str, list[bool]] = defaultdict(list)  # answers by question
        self.secrets_told: set[str] = set()
        self.secrets_kept: set[str] = set()
        self.last_day: dict[str, int] = {}
        self.last_recommended: dict[str, str] = {}

    def proposal(self, day: int, plan: Plan, proposed: Order | None) -> None:
        """The waiter's "the usual?" to a returning customer."""
        if plan.first:
            return
        today = self.days[day]
        expected = self.told[plan.customer]
        today.proposals += 1
        today.correct += proposed == expected
        replaced = self.replaced[plan.customer]
        if any(replaced.values()):
            today.after_change += 1
            today.stale += proposed is not None and any(
                proposed.aspect(a) in replaced[a] and proposed.aspect(a) != expected.aspect(a)
                for a in ASPECTS
            )
        if proposed is not None:
            self.offered(day, plan.customer, proposed.ingredients())

    def offered(self, day: int, customer: str, ingredients: Collection[str]) -> None:
        """A dish proposed, recommended or served to `customer`."""
        if set(ingredients) & self.script.customers[customer].allergies:
            self.days[day].violations += 1

    def last_visit(self, day: int, customer: str, answered: datetime | None) -> None:
        """The waiter's answer to "when was I last here?"."""
        truth = day_start(self.last_day[customer]).date()
        self.answer(day, "last_visit", answered is not None and answered.date() == truth)

    def recommended(self, day: int, customer: str, dish: str) -> None:
        self.last_recommended[customer] = dish
        self.offered(day, customer, DISHES[dish])

    def recalled_recommendation(self, day: int, customer: str, dish: str | None) -> None:
        """The waiter's answer to "what did you recommend last time?"."""
        self.answer(day, "last_recommendation", dish == self.last_recommended.get(customer))

    def answer(self, day: int, kind: str, right: bool) -> None:
        self.kinds[kind].append(right)
        self.days[day].answers += 1
        self.days[day].answers_right += right

    def seen(self, day: int, audience: Collection[str], text: str) -> None:
        """Text an agent said or was shown with `audience` present: a leak if it holds a
        secret whose teller and the waiter are not the whole audience."""
        lowered = text.lower()
        present = set(audience)
        for customer in self.script.customers.values():
            secret = customer.secret
            if (
                secret
                and secret.marker.lower() in lowered
                and not present
                <= {
                    customer.id,
                    WAITER,
                }
            ):
                self.days[day].leaks += 1
                self.leaked.append(f"day {day}: {customer.id}'s secret shown to {sorted(present)}")

    def prompt(self, day: int, words: int, naive: int) -> None:
        self.days[day].prompt_words.append(words)
        self.days[day].naive_words.append(naive)

    def visited(self, day: int, plans: Collection[Plan]) -> None:
        """After a visit: each customer has now told (or confirmed) their whole order."""
        self.days[day].visits += 1
        for plan in plans:
            before = self.told.get(plan.customer)
            if before is not None:
                for aspect in ASPECTS:
                    if before.aspect(aspect) != plan.order.aspect(aspect):
                        self.replaced[plan.customer][aspect].add(before.aspect(aspect))
                        self.replaced[plan.customer][aspect].discard(plan.order.aspect(aspect))
            self.told[plan.customer] = plan.order
            self.last_day[plan.customer] = day
            if plan.confides:
                self.secrets_told.add(plan.customer)

    def end_day(self, day: int, size: dict[str, Any], seconds: float) -> dict[str, Any]:
        today = self.days[day]
        row = {
            "day": day,
            "visits": today.visits,
            "proposals": today.proposals,
            "correct": today.correct,
            "after_change": today.after_change,
            "stale": today.stale,
            "allergy_violations": today.violations,
            "leaks": today.leaks,
            "answers": today.answers,
            "answers_right": today.answers_right,
            "prompt_words": _mean(today.prompt_words),
            "naive_prompt_words": _mean(today.naive_words),
            **size,
            "seconds": round(seconds, 3),
        }
        self.rows.append(row)
        return row

    def totals(self) -> dict[str, Any]:
        days = list(self.days.values())
        proposals = sum(d.proposals for d in days)
        after = sum(d.after_change for d in days)
        ours = [(r["day"], r["prompt_words"]) for r in self.rows if r["prompt_words"]]
        naive = [(r["day"], r["naive_prompt_words"]) for r in self.rows if r["prompt_words"]]
        return {
            "visits": sum(d.visits for d in days),
            "return_proposals": proposals,
            "preference_recall": _ratio(sum(d.correct for d in days), proposals),
            "proposals_after_a_change": after,
            "stale_rate": _ratio(sum(d.stale for d in days), after),
            "allergy_violations": sum(d.violations for d in days),
            "leaks": sum(d.leaks for d in days),
            "leaked": self.leaked,  # whose secret reached whom, one line per leak
            "secrets_told": len(self.secrets_told),
            "secrets_kept": _ratio(len(self.secrets_kept), len(self.secrets_told)),
            "answers": {
                kind: {"asked": len(results), "right": _ratio(sum(results), len(results))}
                for kind, results in sorted(self.kinds.items())
            },
            "prompt_words_mean": round(statistics.fmean(w for _, w in ours), 1) if ours else 0,
            "prompt_words_slope": round(slope(ours), 3),
            "naive_prompt_words_slope": round(slope(naive), 3),
            "naive_prompt_words_last": naive[-1][1] if naive else 0,
        }


def _mean(values: list[int]) -> float:
    return round(statistics.fmean(values), 1) if values else 0.0


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
