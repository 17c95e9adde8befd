"""Size caps at the API edge: each is refused with the figure and the limit, nothing written,
and what is at the limit is accepted."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kuzya import InvalidInput
from kuzya.validate import (
    MAX_ATTACHMENTS,
    MAX_CAPTION_CHARS,
    MAX_METADATA_BYTES,
    MAX_PARTICIPANTS,
    MAX_SOURCES,
    MAX_URL_CHARS,
)

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)


def people(count: int) -> list[str]:
    return [f"p{i}" for i in range(count)]


@pytest.fixture
def seeded(memory):
    memory.remember("I live in Lisbon", speaker="ana", time=T0)
    return memory


def refused(memory: Any, call: Any, *fragments: str) -> None:
    before = memory.stats()
    with pytest.raises(InvalidInput) as error:
        call()
    for fragment in fragments:
        assert fragment in str(error.value)
    assert memory.stats() == before


def test_metadata_over_the_limit_is_refused(seeded):
    huge = {"blob": "x" * (20 * 1024 * 1024)}
    size = len('{"blob": ""}') + 20 * 1024 * 1024
    refused(
        seeded,
        lambda: seeded.remember("hello", speaker="ana", metadata=huge),
        f"{size:,} bytes",
        f"{MAX_METADATA_BYTES:,}",
    )
    over = {"blob": "é" * (MAX_METADATA_BYTES // 2)}  # two bytes a letter in UTF-8
    refused(seeded, lambda: seeded.remember("hello", speaker="ana", metadata=over), "bytes")


def test_metadata_at_the_limit_is_accepted(seeded):
    at_limit = {"blob": "x" * (MAX_METADATA_BYTES - len('{"blob": ""}'))}
    episode = seeded.remember("hello", speaker="ana", metadata=at_limit)
    assert seeded.get(episode.id).metadata == at_limit


def test_deeply_nested_metadata_is_invalid_input(seeded):
    nested: dict[str, Any] = {}
    for _ in range(100_000):
        nested = {"a": nested}
    refused(seeded, lambda: seeded.remember("hello", speaker="ana", metadata=nested), "JSON")


def test_too_many_attachments_are_refused(seeded):
    photos = [{"caption": f"photo {i}"} for i in range(MAX_ATTACHMENTS + 1)]
    refused(
        seeded,
        lambda: seeded.remember("my album", speaker="ana", attachments=photos),
        f"{MAX_ATTACHMENTS + 1} attachments",
        f"limit is {MAX_ATTACHMENTS}",
    )
    endless = ({"caption": "again"} for _ in iter(int, 1))  # a generator that never ends
    refused(
        seeded,
        lambda: seeded.remember("my album", speaker="ana", attachments=endless),
        f"more than {MAX_ATTACHMENTS}",
    )
    episode = seeded.remember("my album", speaker="ana", attachments=photos[:-1])
    assert len(episode.attachments) == MAX_ATTACHMENTS


def test_long_captions_and_urls_are_refused(seeded):
    caption = "c" * (MAX_CAPTION_CHARS + 1)
    refused(
        seeded,
        lambda: seeded.remember("look", speaker="ana", attachments=[{"caption": caption}]),
        "attachment caption",
        f"{MAX_CAPTION_CHARS + 1:,} characters",
        f"limit is {MAX_CAPTION_CHARS:,}",
    )
    url = "https://example.org/" + "u" * MAX_URL_CHARS
    refused(
        seeded,
        lambda: seeded.remember("look", speaker="ana", attachments=[{"caption": "a", "url": url}]),
        "attachment url",
        f"limit is {MAX_URL_CHARS:,}",
    )


def test_too_many_participants_in_a_message_are_refused(seeded):
    crowd = people(MAX_PARTICIPANTS + 1)
    refused(
        seeded,
        lambda: seeded.remember("hello all", speaker="p0", participants=crowd),
        f"{MAX_PARTICIPANTS + 1:,} ids",
        f"limit is {MAX_PARTICIPANTS:,}",
    )
    refused(
        seeded,
        lambda: seeded.remember_many(
            [{"text": "hello all", "speaker": "p0", "participants": crowd}]
        ),
        "message 0",
        f"limit is {MAX_PARTICIPANTS:,}",
    )


def test_too_many_participants_in_a_call_are_refused(seeded):
    crowd = people(5_000)
    for call in (
        lambda: seeded.recall("Lisbon", participants=crowd),
        lambda: seeded.profile("ana", participants=crowd),
        lambda: seeded.facts(participants=crowd),
        lambda: seeded.diary(participants=crowd),
        lambda: seeded.get_all(participants=crowd),
        lambda: seeded.forget("ana", everything=True, participants=crowd),
    ):
        refused(seeded, call, "5,000 ids", f"limit is {MAX_PARTICIPANTS:,}")


def test_participants_at_the_limit_are_accepted(seeded):
    crowd = people(MAX_PARTICIPANTS)
    episode = seeded.remember("hello all", speaker="p0", participants=crowd, time=T0)
    assert len(episode.audience) == MAX_PARTICIPANTS
    recall = seeded.recall("hello", participants=crowd)
    assert [item.sources for item in recall] == [(episode.id,)]


def test_too_many_sources_are_refused(seeded):
    refused(
        seeded,
        lambda: seeded.remember("a reply", speaker="ana", derived_from=range(1, MAX_SOURCES + 2)),
        f"{MAX_SOURCES + 1:,} memory ids",
        f"limit is {MAX_SOURCES:,}",
    )
