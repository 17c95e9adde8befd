"""Consolidation as a queue, for a store on PostgreSQL: the processes that take messages
(API workers) ask for a sleep of the namespace; `kuzya worker` processes run it. The jobs
live in the same database, in Procrastinate's tables: at most one waiting and one
running job per namespace (a queueing lock and a lock), a failed job retried with
backoff, and a job whose worker died mid-way (its heartbeat stopped) retried by the next
worker that starts, or by the sweep every worker runs each minute. Sleep is idempotent
(its jobs keep cursors), so a retried job completes the work once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

import procrastinate
import psycopg
from procrastinate import builtin_tasks
from procrastinate.exceptions import AlreadyEnqueued

from kuzya.memory import Memory

log = logging.getLogger(__name__)

QUEUE = "kuzya-sleep"
TASK = "kuzya.sleep"
SCHEMA_LOCK = 0x4B757A71  # advisory lock while the queue's tables are made
KEEP_HOURS = 72  # finished jobs are kept this long, for inspection


def queue_app(url: str) -> procrastinate.App:
    """The queue on the database at `url` (open it before use)."""
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))


def ensure_schema(app: procrastinate.App, url: str) -> None:
    """Make the queue's tables once, whichever process comes first (`app` open)."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            row = db.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
            if row is None or row[0] is None:
                app.schema_manager.apply_schema()
        finally:
            db.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


class QueuedSleep:
    """Consolidation through the queue (a `kuzya.sleep.worker.Consolidation`): messages
    remembered ask for a sleep of the namespace `idle_seconds` later. Asks fold into the
    waiting job, and within `idle_seconds` of the last ask nothing is sent at all."""

    def __init__(self, app: procrastinate.App, namespace: str, idle_seconds: float) -> None:
        self._app, self._namespace, self._idle = app, namespace, idle_seconds
        self._asked = float("-inf")
        self._lock = threading.Lock()

    def notify(self, messages: int = 1) -> None:
        with self._lock:
            if time.monotonic() - self._asked < self._idle:
                return
            self._asked = time.monotonic()
        key = f"sleep:{self._namespace}"
        job = self._app.configure_task(
            TASK,
            queue=QUEUE,
            lock=key,
            queueing_lock=key,
            schedule_in={"seconds": max(1, round(self._idle))},
        )
        with contextlib.suppress(AlreadyEnqueued):  # a sleep of it is waiting already
            job.defer(namespace=self._namespace)

    def stop(self, *, finish: bool = True) -> None:
        """Nothing runs here: the jobs wait in the database for a worker."""


def run_worker(
    app: procrastinate.App,
    memory_of: Callable[[str], Memory],
    *,
    heartbeat: float = 10.0,
) -> None:
    """Run the namespaces' sleep jobs until a signal stops the worker (SIGINT, SIGTERM:
    the running job finishes first). `memory_of(namespace)` gives the memory to sleep."""
    stalled_after = 3 * heartbeat

    @app.task(
        name=TASK,
        queue=QUEUE,
        retry=procrastinate.RetryStrategy(max_attempts=5, exponential_wait=2),
    )
    def sleep(namespace: str) -> None:
        report = memory_of(namespace).sleep(wait=True)
        log.info("slept %s: %s", namespace, report.as_dict())

    @app.periodic(cron="* * * * *", periodic_id="retry-stalled")
    @app.task(name="kuzya.retry_stalled", queue=QUEUE, queueing_lock="kuzya-retry-stalled")
    async def retry_stalled(timestamp: int) -> None:
        await _retry_stalled(app, stalled_after)

    @app.periodic(cron="17 * * * *", periodic_id="remove-old-jobs")
    @app.task(name="kuzya.remove_old_jobs", queue=QUEUE, pass_context=True)
    async def remove_old_jobs(context: procrastinate.JobContext, timestamp: int) -> None:
        await builtin_tasks.remove_old_jobs(context, max_hours=KEEP_HOURS, queue=QUEUE)

    async def main() -> None:
        async with app.open_async():
            await _retry_stalled(app, stalled_after)  # jobs of workers that died before
            await app.run_worker_async(
                queues=[QUEUE],
                name="kuzya-worker",
                update_heartbeat_interval=heartbeat,
                stalled_worker_timeout=stalled_after,
            )

    asyncio.run(main())


async def _retry_stalled(app: procrastinate.App, stalled_after: float) -> None:
    """Put back in the queue the running jobs of workers whose heartbeat stopped."""
    for job in await app.job_manager.get_stalled_jobs(
        queue=QUEUE, seconds_since_heartbeat=stalled_after
    ):
        log.warning("retrying job %s of a worker that stopped mid-way", job.id)
        await app.job_manager.retry_job(job)
