"""Time conventions: aware UTC datetimes in the API, epoch seconds in storage.

A naive datetime from a caller is taken as UTC. A time given to Kuzya lies from EARLIEST
to LATEST (`kuzya.validate.moment` refuses others).
"""

from __future__ import annotations

from datetime import UTC, datetime

# A year short of the calendar's first day: what is derived backwards from a given time
# (the diary's cut-off at sleep) stays in the calendar.
EARLIEST = datetime(2, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)  # the last second epoch seconds keep


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def to_epoch(moment: datetime) -> float:
    return to_utc(moment).timestamp()


def from_epoch(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)
