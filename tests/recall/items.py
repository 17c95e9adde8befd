"""A recalled message built by hand, for tests of how recalled text is shaped."""

from __future__ import annotations

from datetime import UTC, datetime

from kuzya.model import Kind, RecallItem

SAID = datetime(2026, 3, 1, 9, tzinfo=UTC)


def recalled(text: str) -> RecallItem:
    return RecallItem(
        id=1,
        kind=Kind.EPISODE,
        text=text,
        score=1.0,
        speaker="ana",
        conversation="c",
        said_at=SAID,
        stored_at=SAID,
        sources=(1,),
    )
