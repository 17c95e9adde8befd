"""The background worker with a stand-in sleep: triggers, idle runs, failures kept and
retried, and a last run on stop."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from kuzya.sleep.sleeper import SleepReport
from kuzya.sleep.worker import SleepWorker


class Sleeps:
    def __init__(self, fail_first: int = 0) -> None:
        self.times: list[datetime] = []
        self.fail_first = fail_first
        self.ran = threading.Event()

    def __call__(self) -> SleepReport:
        self.times.append(datetime.now(UTC))
        self.ran.set()
        if len(self.times) <= self.fail_first:
            raise RuntimeError("disk full")
        return SleepReport(episodes=1)


def wait_for(condition: object, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.01)
    return False


def test_runs_after_every_n_messages_and_not_before() -> None:
    sleeps = Sleeps()
    worker = SleepWorker(sleeps, every=3, idle_seconds=60)
    worker.notify(2)
    time.sleep(0.3)
    assert sleeps.times == []
    worker.notify(1)
    assert wait_for(lambda: len(worker.reports) == 1)
    worker.stop()
    assert len(sleeps.times) == 1


def test_runs_when_idle_with_work_pending() -> None:
    sleeps = Sleeps()
    worker = SleepWorker(sleeps, every=100, idle_seconds=0.2)
    time.sleep(0.4)
    assert sleeps.times == []  # idle, but nothing pending
    worker.notify(1)
    assert wait_for(lambda: len(worker.reports) == 1)
    worker.stop()


def test_a_failed_run_is_kept_and_the_next_trigger_retries() -> None:
    sleeps = Sleeps(fail_first=1)
    worker = SleepWorker(sleeps, every=1, idle_seconds=60)
    worker.notify(1)
    assert wait_for(lambda: len(worker.errors) == 1)
    assert isinstance(worker.errors[0], RuntimeError)
    worker.notify(1)
    assert wait_for(lambda: len(worker.reports) == 1)
    worker.stop()


def test_stop_finishes_pending_work() -> None:
    sleeps = Sleeps()
    worker = SleepWorker(sleeps, every=100, idle_seconds=60)
    worker.notify(5)
    worker.stop()
    assert len(sleeps.times) == 1 and len(worker.reports) == 1
    idle = SleepWorker(Sleeps(), every=100, idle_seconds=60)
    idle.stop()
    assert idle.reports == []
