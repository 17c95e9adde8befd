"""Sleep's time, on a real store file with the real embedder: it moves forward only, a
jump of more than a year must be asked for (the refusal says what it would prune and
compress), and a refused sleep writes nothing."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kuzya import InvalidInput
from kuzya.memory import Memory

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
FAR = "9999-12-31"


def state(memory: Memory) -> dict[str, Any]:
    """What sleep may change, read from the store file itself."""
    db = sqlite3.connect(Path(memory.stats()["path"]))
    try:
        tables = ("associations", "reinforcements", "diary", "claims", "job_cursors",
                  "sleep_clock")  # fmt: skip
        return {t: sorted(map(repr, db.execute(f"SELECT * FROM {t}"))) for t in tables}
    finally:
        db.close()


def counts(memory: Memory) -> tuple[int, int]:
    """Associations, and diary entries not yet compressed."""
    db = sqlite3.connect(Path(memory.stats()["path"]))
    try:
        (associations,) = db.execute("SELECT COUNT(*) FROM associations").fetchone()
        (diary,) = db.execute(
            "SELECT COUNT(*) FROM diary WHERE kind = 'conversation' AND compressed_into IS NULL"
        ).fetchone()
    finally:
        db.close()
    return associations, diary


def remembered(memory: Memory) -> Memory:
    memory.remember(
        "Ana, Bob and Carla hiked near Sintra.", speaker="ana", conversation="c1", time=T0
    )
    memory.remember(
        "Bob showed Dave the old castle in Porto.",
        speaker="ana",
        conversation="c2",
        time=T0 + timedelta(days=1),
    )
    return memory


@pytest.fixture
def slept(memory: Memory) -> Memory:
    remembered(memory).sleep(now=T0 + timedelta(days=2))
    return memory


def test_a_sleep_earlier_than_the_last_is_refused_and_changes_nothing(slept: Memory) -> None:
    before = state(slept)
    with pytest.raises(InvalidInput) as refused:
        slept.sleep(now=T0 + timedelta(days=1))
    assert str(refused.value) == (
        "sleep's now 2026-03-02 09:00:00+00:00 is earlier than the last sleep of namespace "
        "'test' (2026-03-03 09:00:00+00:00): sleep's time moves forward only"
    )
    assert state(slept) == before
    slept.sleep(now=T0 + timedelta(days=2))  # the same time again is fine


def test_a_far_jump_is_refused_with_what_it_would_do_and_done_when_asked(slept: Memory) -> None:
    associations, entries = counts(slept)
    assert associations > 0 and entries == 2
    before = state(slept)
    with pytest.raises(InvalidInput) as refused:
        slept.sleep(now=FAR)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("sleep's now 9999-12-31 00:00:00+00:00 is ")
    assert "(2026-03-03 09:00:00+00:00)" in message  # the last sleep, later than the messages
    assert f"prune {associations} associations and compress 2 diary entries" in message
    assert "jump=True (kuzya sleep --jump)" in message
    assert state(slept) == before

    report = slept.sleep(now=FAR, jump=True)
    assert report.pruned == associations and report.compressed == 1  # one period entry
    assert counts(slept) == (0, 0)
    assert slept.store.sleep_clock(slept.namespace) == datetime(9999, 12, 31, tzinfo=UTC)


def test_a_jump_of_a_year_needs_no_flag(slept: Memory) -> None:
    report = slept.sleep(now=T0 + timedelta(days=2 + 366))
    assert report.compressed == 1


def test_the_jump_is_measured_from_the_newest_message(memory: Memory) -> None:
    remembered(memory)  # never slept: the newest message is the present
    before = state(memory)
    with pytest.raises(InvalidInput, match=r"\(2026-03-02 09:00:00\+00:00\): it would prune"):
        memory.sleep(now=T0 + timedelta(days=400))
    assert state(memory) == before


def test_year_one_is_refused_before_anything_is_written(memory: Memory) -> None:
    remembered(memory)  # not slept yet: sleep's first writes would be the digest
    before = state(memory)
    with pytest.raises(InvalidInput, match="now 0001-01-02T00:00:00 is outside the supported"):
        memory.sleep(now="0001-01-02")
    assert state(memory) == before
    assert memory.sleep(now=T0 + timedelta(days=2)).episodes == 2  # and sleep still works


def test_without_now_the_clock_never_goes_back(slept: Memory) -> None:
    later = datetime(2099, 1, 1, tzinfo=UTC)
    slept.sleep(now=later, jump=True)
    slept.sleep()  # the current time is earlier than the last sleep: it sleeps at that one
    assert slept.store.sleep_clock(slept.namespace) == later
    with pytest.raises(InvalidInput, match="earlier than the last sleep"):
        slept.sleep(now=datetime.now(UTC))
