"""Bad input is refused at the edge with InvalidInput / NotFound, and changes nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from kuzya import Attachment, InvalidInput, KuzyaError, Memory, Message, NotFound

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)


def snapshot(memory: Memory) -> tuple[Any, ...]:
    """Everything observable about the namespace (the file size aside)."""
    stats = {k: v for k, v in memory.stats().items() if k != "bytes"}
    episodes = memory.get_all(limit=100_000)
    return stats, episodes, [memory.history(e.id) for e in episodes]


@pytest.fixture
def seeded(hash_memory: Memory) -> Memory:
    hash_memory.remember("I live in Lisbon", speaker="ana", conversation="c1", time=T0)
    hash_memory.remember(
        "We met at the conference",
        speaker="bob",
        conversation="c2",
        participants=["ana", "bob"],
        time=T0,
    )
    return hash_memory


BAD_TEXTS = [
    pytest.param("", id="empty"),
    pytest.param("   \n\t  ", id="whitespace"),
    pytest.param("a" * 1_000_000, id="1MB"),
    pytest.param("x" * 32_001, id="over-limit"),
    pytest.param("broken \udcff surrogate", id="lone-surrogate"),
    pytest.param("\ud800", id="high-surrogate-only"),
    pytest.param(b"hello bytes", id="bytes"),
    pytest.param(bytearray(b"hello"), id="bytearray"),
    pytest.param("nul \x00 inside", id="NUL"),
    pytest.param(12345, id="int"),
    pytest.param(None, id="None"),
    pytest.param(["a", "list"], id="list"),
]


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_bad_text_is_refused_and_nothing_is_written(seeded, text):
    before = snapshot(seeded)
    with pytest.raises(InvalidInput):
        seeded.remember(text, speaker="ana")
    with pytest.raises(InvalidInput):
        seeded.add(text, user_id="ana")
    with pytest.raises(InvalidInput):
        seeded.remember_many([{"text": text, "speaker": "ana"}])
    assert snapshot(seeded) == before


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_bad_query_is_refused(seeded, text):
    with pytest.raises(InvalidInput):
        seeded.recall(text, participants=["ana"])
    with pytest.raises(InvalidInput):
        seeded.search(text, user_id="ana")


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_bad_update_text_is_refused_and_keeps_the_old_text(seeded, text):
    target = seeded.get_all()[0]
    before = snapshot(seeded)
    with pytest.raises(InvalidInput):
        seeded.update(target.id, text)
    assert snapshot(seeded) == before
    assert seeded.get(target.id).text == target.text


def test_text_at_the_limit_is_accepted(hash_memory):
    at_limit = hash_memory.remember("y" * 32_000, speaker="ana")
    assert len(hash_memory.get(at_limit.id).text) == 32_000


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"speaker": ""}, id="empty-speaker"),
        pytest.param({"speaker": None}, id="None-speaker"),
        pytest.param({"speaker": 7}, id="int-speaker"),
        pytest.param({"speaker": "a\udcffb"}, id="surrogate-speaker"),
        pytest.param({"speaker": "x" * 201}, id="long-speaker"),
        pytest.param({"conversation": ""}, id="empty-conversation"),
        pytest.param({"conversation": 3}, id="int-conversation"),
        pytest.param({"participants": "ana"}, id="str-participants"),
        pytest.param({"participants": 5}, id="int-participants"),
        pytest.param({"participants": [1, 2]}, id="int-ids"),
        pytest.param({"participants": ["ana", None]}, id="None-id"),
        pytest.param({"participants": ["ana", "b\x00b"]}, id="NUL-id"),
        pytest.param({"participants": []}, id="no-participants"),
        pytest.param({"time": 1717243200}, id="epoch-int-time"),
        pytest.param({"time": "yesterday"}, id="words-time"),
        pytest.param({"time": date(2024, 6, 1)}, id="date-not-datetime"),
        pytest.param({"time": ["2024-06-01"]}, id="list-time"),
        pytest.param({"metadata": "x"}, id="str-metadata"),
        pytest.param({"metadata": [("a", 1)]}, id="list-metadata"),
        pytest.param({"attachments": "photo.jpg"}, id="str-attachments"),
        pytest.param({"attachments": [{"kind": "image"}]}, id="attachment-without-caption"),
        pytest.param({"attachments": [{"caption": ""}]}, id="empty-caption"),
        pytest.param({"attachments": [{"caption": "bad \udcff"}]}, id="surrogate-caption-dict"),
        pytest.param({"attachments": [42]}, id="int-attachment"),
    ],
)
def test_wrong_types_are_refused_and_nothing_is_written(seeded, kwargs):
    before = snapshot(seeded)
    call = {"speaker": "ana", **kwargs}
    with pytest.raises(InvalidInput):
        seeded.remember("a perfectly fine text", **call)
    assert snapshot(seeded) == before


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"metadata": {"when": datetime(2024, 1, 1)}}, id="metadata-not-json"),
        pytest.param({"metadata": {"tags": {"a", "b"}}}, id="metadata-set"),
        pytest.param({"metadata": {"note": "bad \udcff"}}, id="metadata-surrogate"),
        pytest.param(
            {"attachments": [Attachment("image", "bad \udcff")]}, id="attachment-object-surrogate"
        ),
        pytest.param({"attachments": [Attachment("image", "")]}, id="attachment-object-empty"),
    ],
)
def test_unstorable_metadata_and_attachments_are_invalid_input(seeded, kwargs):
    """Values the store cannot keep must be refused up front as InvalidInput (the
    caller's mistake), not fail inside the write as TypeError / UnicodeEncodeError."""
    before = snapshot(seeded)
    with pytest.raises(InvalidInput):
        seeded.remember("a perfectly fine text", speaker="ana", **kwargs)
    assert snapshot(seeded) == before


@pytest.mark.parametrize("moment", [datetime.max, datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)])
def test_extreme_times_are_refused_or_round_trip(seeded, moment):
    """A time either is refused up front or is stored and readable; it must never be
    committed and then break every later read of the namespace."""
    before = snapshot(seeded)
    try:
        episode = seeded.remember("from the far future", speaker="ana", time=moment)
    except InvalidInput:
        assert snapshot(seeded) == before
        return
    assert seeded.get(episode.id).said_at.year == 9999
    assert len(seeded.get_all()) == 3
    assert seeded.stats()["episodes"] == 3


@pytest.mark.parametrize(
    "bad_id",
    [
        pytest.param(True, id="True"),
        pytest.param(False, id="False"),
        pytest.param(0, id="zero"),
        pytest.param(-3, id="negative"),
        pytest.param("abc", id="str-non-numeric"),
        pytest.param("", id="empty-str"),
        pytest.param("1.5", id="str-float"),
        pytest.param(1.0, id="float"),
        pytest.param(None, id="None"),
        pytest.param([1], id="list"),
    ],
)
def test_invalid_ids_are_refused(seeded, bad_id):
    before = snapshot(seeded)
    for call in (
        lambda: seeded.get(bad_id),
        lambda: seeded.update(bad_id, "new text"),
        lambda: seeded.delete(bad_id),
        lambda: seeded.history(bad_id),
    ):
        with pytest.raises(InvalidInput):
            call()
    assert snapshot(seeded) == before


@pytest.mark.parametrize("unknown", [999_999, "999999", 2**62])
def test_unknown_ids_raise_not_found(seeded, unknown):
    before = snapshot(seeded)
    for call in (
        lambda: seeded.get(unknown),
        lambda: seeded.update(unknown, "new text"),
        lambda: seeded.delete(unknown),
        lambda: seeded.history(unknown),
    ):
        with pytest.raises(NotFound):
            call()
    assert snapshot(seeded) == before


def test_numeric_string_id_is_accepted(seeded):
    first = seeded.get_all()[0]
    assert seeded.get(str(first.id)).id == first.id


@pytest.mark.parametrize("huge", [2**63, 2**64, 10**30])
def test_ids_beyond_64_bits_are_a_clean_error(seeded, huge):
    """Too large for any store: must be InvalidInput or NotFound, never OverflowError."""
    before = snapshot(seeded)
    for call in (
        lambda: seeded.get(huge),
        lambda: seeded.update(huge, "new text"),
        lambda: seeded.delete(huge),
        lambda: seeded.history(huge),
    ):
        with pytest.raises(KuzyaError):
            call()
    assert snapshot(seeded) == before


@pytest.mark.parametrize("limit", [0, -1, 1001, 10**9, True, "5", 2.0, None])
def test_bad_recall_limits_are_refused(seeded, limit):
    with pytest.raises(InvalidInput):
        seeded.recall("Lisbon", participants=["ana"], limit=limit)
    with pytest.raises(InvalidInput):
        seeded.search("Lisbon", user_id="ana", limit=limit)


@pytest.mark.parametrize("budget", [0, -5, 1_000_001, "400", True])
def test_bad_word_budgets_are_refused(seeded, budget):
    with pytest.raises(InvalidInput):
        seeded.recall("Lisbon", participants=["ana"], budget_words=budget)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"limit": 0},
        {"limit": 100_001},
        {"limit": True},
        {"offset": -1},
        {"offset": "1"},
        {"offset": True},
        {"user_id": 5},
        {"conversation": ""},
    ],
)
def test_bad_get_all_arguments_are_refused(seeded, kwargs):
    with pytest.raises(InvalidInput):
        seeded.get_all(**kwargs)


def test_huge_offset_is_a_clean_result_or_error(seeded):
    try:
        result = seeded.get_all(offset=2**64)
    except InvalidInput:
        result = []
    assert result == []


def test_recall_bad_now_and_conversation(seeded):
    with pytest.raises(InvalidInput):
        seeded.recall("Lisbon", participants=["ana"], now="next tuesday")
    with pytest.raises(InvalidInput):
        seeded.recall("Lisbon", participants=["ana"], now=12)
    with pytest.raises(InvalidInput):
        seeded.recall("Lisbon", participants=["ana"], conversation="")
    with pytest.raises(InvalidInput):
        seeded.recall("Lisbon", participants="ana")


# -- remember_many -------------------------------------------------------------------------------


def _good(i: int) -> dict[str, Any]:
    return {"text": f"message number {i}", "speaker": "ana", "conversation": "bulk"}


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ({"text": "", "speaker": "ana"}, "empty"),
        ({"text": "broken \udcff", "speaker": "ana"}, "Unicode"),
        ({"text": "no speaker"}, "speaker"),
        ({"speaker": "ana"}, "text"),
        ({"text": "x", "speaker": "ana", "colour": "red"}, "unknown"),
        ({"text": "x", "speaker": "ana", "participants": "ana"}, "participants"),
        ({"text": "x", "speaker": "ana", "time": "not a time"}, "time"),
        ("just a string", "dict"),
        (42, "int"),
    ],
)
def test_remember_many_with_a_bad_message_stores_nothing_and_names_it(seeded, bad, fragment):
    before = snapshot(seeded)
    batch = [_good(0), _good(1), bad, _good(3)]
    with pytest.raises(InvalidInput) as error:
        seeded.remember_many(batch)
    message = str(error.value)
    assert "message 2" in message
    assert fragment.lower() in message.lower()
    assert snapshot(seeded) == before


def test_remember_many_refuses_a_bad_message_object_by_index(seeded):
    before = snapshot(seeded)
    good = Message("fine", "ana", "bulk", ("ana",), T0)
    bad = Message("", "ana", "bulk", ("ana",), T0)
    with pytest.raises(InvalidInput, match="message 1"):
        seeded.remember_many([good, bad, good])
    assert snapshot(seeded) == before


def test_remember_many_with_a_bad_message_past_the_first_batch_stores_nothing(seeded):
    before = snapshot(seeded)
    batch = [_good(i) for i in range(600)]
    batch[599] = {"text": "  ", "speaker": "ana"}
    with pytest.raises(InvalidInput, match="message 599"):
        seeded.remember_many(batch)
    assert snapshot(seeded) == before


def test_remember_many_accepts_empty_and_generators(seeded):
    before = snapshot(seeded)
    assert seeded.remember_many([]) == []
    assert snapshot(seeded) == before
    stored = seeded.remember_many(_good(i) for i in range(3))
    assert [e.text for e in stored] == [f"message number {i}" for i in range(3)]
    assert [e.position for e in stored] == [0, 1, 2]


def test_a_sequence_of_failed_calls_changes_nothing(seeded):
    before = snapshot(seeded)
    target = seeded.get_all()[0].id
    failures = [
        lambda: seeded.remember("", speaker="ana"),
        lambda: seeded.remember("ok", speaker="ana", participants=[]),
        lambda: seeded.remember_many([_good(0), {"text": "\x00", "speaker": "ana"}]),
        lambda: seeded.update(target, "   "),
        lambda: seeded.update(999_999, "new"),
        lambda: seeded.delete(999_999),
        lambda: seeded.delete(-1),
        lambda: seeded.recall("", participants=["ana"]),
        lambda: seeded.add("x" * 40_000, user_id="ana"),
    ]
    for call in failures:
        with pytest.raises(KuzyaError):
            call()
    assert snapshot(seeded) == before
    assert [h.event for h in seeded.history(target)] == ["ADD"]


@pytest.mark.parametrize("actor", ["bad \udcff", 42, b"bytes"])
def test_bad_actor_is_refused_and_changes_nothing(seeded, actor):
    """The actor ends up in the audit log: it is validated like any other id."""
    target = seeded.get_all()[0]
    before = snapshot(seeded)
    with pytest.raises(InvalidInput):
        seeded.update(target.id, "a new text", actor=actor)
    with pytest.raises(InvalidInput):
        seeded.delete(target.id, actor=actor)
    assert snapshot(seeded) == before
