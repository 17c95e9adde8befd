"""Crafted scripts for the noodle shop: a few customers and visits, each test's own."""

from __future__ import annotations

from kuzya.memory import Memory
from kuzya.sim.customers import Customer, Plan, Script, Secret, Visit


def customer(
    cid: str, allergies: frozenset[str] = frozenset(), secret: Secret | None = None
) -> Customer:
    return Customer(cid, cid.capitalize(), allergies, secret)


def scripted(customers: list[Customer], visits: list[tuple[int, list[Plan]]]) -> Script:
    """Visits as (day, plans), numbered in order, each at noon plus its number."""
    played = tuple(
        Visit(n, day, 12 * 60 + n, tuple(p.customer for p in plans), tuple(plans))
        for n, (day, plans) in enumerate(visits, start=1)
    )
    return Script({c.id: c for c in customers}, played, max(d for d, _ in visits) + 1, seed=7)


def transcript(memory: Memory, conversation: str) -> list[str]:
    return [f"{e.speaker}: {e.text}" for e in memory.get_all(conversation=conversation)]
