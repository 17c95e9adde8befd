"""Tables of rule cases: (name, text, expected claims). A claim about the speaker is an
(attribute, value, negated) triple; one about someone the speaker names a (subject,
attribute, value, negated) quadruple. Values compare case-insensitively."""

from __future__ import annotations

from typing import Any

import pytest

from kuzya.facts.rules import claims

SPEAKER = "ana"
Expected = tuple[Any, ...]


def found(text: str) -> set[tuple[str, str, str, bool]]:
    """The claims the rules read in `text` said by `SPEAKER`."""
    return {(c.subject, c.attribute, c.value.lower(), c.negated) for c in claims(text, SPEAKER)}


def quads(expected: list[Expected]) -> set[tuple[str, str, str, bool]]:
    """The expected claims in the form `found` gives."""
    full = (c if len(c) == 4 else (SPEAKER, *c) for c in expected)
    return {
        (subject, attribute, value.lower(), negated) for subject, attribute, value, negated in full
    }


def cases(table: list[tuple[str, str, list[Expected]]]) -> list[Any]:
    return [pytest.param(text, expected, id=name) for name, text, expected in table]
