"""The in-process background worker: runs sleep after every N messages remembered, or
when the memory has been idle for a while with work pending. Callers never wait for it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from kuzya.sleep.sleeper import SleepReport

log = logging.getLogger(__name__)


class Consolidation(Protocol):
    """What consolidates a memory in the background: told how many messages arrived,
    stopped when the memory closes (`SleepWorker` here, `kuzya.sleep.queue` with
    PostgreSQL)."""

    def notify(self, messages: int = 1) -> None: ...

    def stop(self, *, finish: bool = True) -> None: ...


class SleepWorker:
    """A daemon thread calling `sleep()` (at the current time); `notify(n)` tells it n
    messages arrived."""

    def __init__(
        self,
        sleep: Callable[[], SleepReport],
        *,
        every: int = 50,
        idle_seconds: float = 30.0,
    ) -> None:
        self._sleep = sleep
        self._every = every
        self._idle = idle_seconds
        self._pending = 0
        self._last_message = time.monotonic()
        self._wake = threading.Condition()
        self._stopping = False
        self.reports: list[SleepReport] = []
        self.errors: list[BaseException] = []
        self._thread = threading.Thread(target=self._loop, name="kuzya-sleep", daemon=True)
        self._thread.start()

    def notify(self, messages: int = 1) -> None:
        with self._wake:
            self._pending += messages
            self._last_message = time.monotonic()
            if self._pending >= self._every:
                self._wake.notify()

    def _due(self) -> bool:
        idle = time.monotonic() - self._last_message >= self._idle
        return self._pending >= self._every or (self._pending > 0 and idle)

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._stopping and not self._due():
                    self._wake.wait(timeout=min(self._idle, 1.0))
                if self._stopping:
                    return
                self._pending = 0
            self.run_once()

    def run_once(self) -> SleepReport | None:
        try:
            report = self._sleep()
        except Exception as exc:  # a failed run is kept and retried on the next trigger
            log.exception("sleep failed")
            self.errors.append(exc)
            return None
        self.reports.append(report)
        return report

    def stop(self, *, finish: bool = True) -> None:
        """Stop the thread; with `finish`, first run once more if messages are pending."""
        with self._wake:
            self._stopping = True
            pending = self._pending
            self._wake.notify()
        self._thread.join()
        if finish and pending:
            self.run_once()
