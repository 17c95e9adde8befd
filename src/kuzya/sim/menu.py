"""The noodle shop's menu: what the shop itself knows, so its agents may use it freely
(which dish holds which allergen, which dishes suit a diet, which words name an option).
What each customer wants is not here; that is in `customers` and only the scorer reads it."""

from __future__ import annotations

import re
from dataclasses import dataclass

# dish -> what is in it (allergens and meats named as the customers name them)
DISHES: dict[str, frozenset[str]] = {
    "tonkotsu ramen": frozenset({"pork", "wheat", "sesame"}),
    "shoyu ramen": frozenset({"chicken", "wheat", "soy"}),
    "miso ramen": frozenset({"pork", "wheat", "soy"}),
    "tantanmen": frozenset({"pork", "wheat", "sesame", "peanut"}),
    "seafood ramen": frozenset({"shellfish", "fish", "wheat"}),
    "curry udon": frozenset({"beef", "wheat"}),
    "kitsune udon": frozenset({"tofu", "wheat", "soy"}),
    "vegetable ramen": frozenset({"wheat", "mushroom"}),
    "zaru soba": frozenset({"buckwheat", "soy"}),
    "yakisoba": frozenset({"pork", "wheat", "egg"}),
}
SPICES = ("no spice", "mild spice", "medium spice", "hot spice")
NOODLES = ("half noodles", "regular noodles", "extra noodles")
EXTRAS: dict[str, frozenset[str]] = {
    "extra egg": frozenset({"egg"}),
    "extra chashu": frozenset({"pork"}),
    "extra nori": frozenset(),
    "extra corn": frozenset(),
    "no extras": frozenset(),
}
ASPECTS: dict[str, tuple[str, ...]] = {
    "dish": tuple(DISHES),
    "spice": SPICES,
    "noodles": NOODLES,
    "extras": tuple(EXTRAS),
}
ALLERGENS = ("peanut", "sesame", "shellfish", "egg", "soy", "buckwheat")
MEAT = frozenset({"pork", "chicken", "beef", "fish", "shellfish"})
DIETS: dict[str, frozenset[str]] = {  # a diet and what it leaves out
    "vegetarian": MEAT,
    "vegan": MEAT | {"egg"},
    "pescatarian": frozenset({"pork", "chicken", "beef"}),
}


@dataclass(frozen=True)
class Order:
    """One bowl as ordered: a dish and how it is made."""

    dish: str
    spice: str
    noodles: str
    extras: str

    def aspect(self, name: str) -> str:
        value: str = getattr(self, name)
        return value

    def ingredients(self) -> frozenset[str]:
        return DISHES[self.dish] | EXTRAS[self.extras]

    def said(self) -> str:
        return f"{self.dish}, {self.spice}, {self.noodles}, {self.extras}"


def singular(word: str) -> str:
    """ "peanuts" -> "peanut", "eggs" -> "egg": how a fact's value meets an ingredient."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def ingredients_named(text: str) -> frozenset[str]:
    """The ingredients a fact's value names ("peanuts and sesame" -> peanut, sesame)."""
    words = {singular(w) for w in re.findall(r"[a-z]+", text.lower())}
    known = {i for dish in DISHES.values() for i in dish} | {i for e in EXTRAS.values() for i in e}
    return frozenset(words & known)


def option_named(aspect: str, text: str) -> str | None:
    """The option of `aspect` a phrase names ("the tonkotsu ramen" -> "tonkotsu ramen"),
    the longest when several match; None when it names none."""
    lowered = f" {' '.join(re.findall(r'[a-z]+', text.lower()))} "
    found = [o for o in ASPECTS[aspect] if f" {o} " in lowered]
    return max(found, key=len) if found else None


def suits(ingredients: frozenset[str], allergies: frozenset[str], diet: str | None) -> bool:
    """Whether a bowl of these ingredients is safe and fits the diet."""
    avoided = DIETS.get(diet or "", frozenset())
    return not (ingredients & allergies) and not (ingredients & avoided)
