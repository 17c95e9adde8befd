"""Job positions, the sleep clock and leases of the SQLite store."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from kuzya.clock import from_epoch, to_epoch
from kuzya.store.sql.tables import Tables


class JobTables(Tables):
    """The consolidation jobs' side of the store port."""

    def job_position(self, namespace: str, job: str) -> int:
        with self._session:
            row = self._db.execute(
                "SELECT position FROM job_cursors WHERE namespace = ? AND job = ?",
                (namespace, job),
            ).fetchone()
        return 0 if row is None else int(row[0])

    def set_job_position(self, namespace: str, job: str, position: int) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO job_cursors VALUES (?, ?, ?) ON CONFLICT (namespace, job) "
                "DO UPDATE SET position = CASE WHEN excluded.position > job_cursors.position "
                "THEN excluded.position ELSE job_cursors.position END",
                (namespace, job, position),
            )

    def sleep_clock(self, namespace: str) -> datetime | None:
        with self._session:
            row = self._db.execute(
                "SELECT now FROM sleep_clock WHERE namespace = ?", (namespace,)
            ).fetchone()
        return None if row is None else from_epoch(row[0])

    def set_sleep_clock(self, namespace: str, now: datetime) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO sleep_clock VALUES (?, ?) ON CONFLICT (namespace) "
                "DO UPDATE SET now = CASE WHEN excluded.now > sleep_clock.now "
                "THEN excluded.now ELSE sleep_clock.now END",
                (namespace, to_epoch(now)),
            )

    def take_lease(self, namespace: str, name: str, holder: str, seconds: float) -> str | None:
        now = time.time()
        with self._write() as db:
            row = db.execute(
                "SELECT holder, host, pid, expires_at FROM leases WHERE namespace = ? AND name = ?",
                (namespace, name),
            ).fetchone()
            if row is not None and row[0] != holder and row[3] > now and _alive(row[1], row[2]):
                return f"pid {row[2]} on {row[1]}"
            db.execute(
                "INSERT INTO leases VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, name) DO "
                "UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid, "
                "expires_at = excluded.expires_at",
                (namespace, name, holder, socket.gethostname(), os.getpid(), now + seconds),
            )
        return None

    def release_lease(self, namespace: str, name: str, holder: str) -> None:
        with self._write() as db:
            db.execute(
                "DELETE FROM leases WHERE namespace = ? AND name = ? AND holder = ?",
                (namespace, name, holder),
            )


def _alive(host: str, pid: int) -> bool:
    """Whether the process may still run: on another host it cannot be told."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
