"""One Memory shared by threads: writers and readers interleave without errors or loss
(on PostgreSQL each on a connection of its own from the store's pool)."""

from __future__ import annotations

import threading
from typing import Any

from kuzya import Memory
from kuzya.store.postgres.store import PostgresStore


def test_threads_share_one_memory(hash_memory: Memory) -> None:
    memory = hash_memory
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                for item in memory.recall("note about apples", participants=["ana"]):
                    assert item.speaker == "ana"
        except BaseException as exc:
            errors.append(exc)

    def writer(tag: str) -> None:
        try:
            for i in range(100):
                memory.remember(f"{tag} note {i} about apples", speaker="ana", conversation=tag)
                memory.remember(f"{tag} secret {i}", speaker="bo", conversation=f"{tag}-bo")
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=reader) for _ in range(3)]
    writers = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(2)]
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    for thread in readers:
        thread.join()
    assert errors == []
    assert memory.stats()["episodes"] == 400
    found = memory.recall("w1 note 99 about apples", participants=["ana"], limit=1)
    assert found.items[0].text == "w1 note 99 about apples"
    store: Any = memory.store
    if isinstance(store, PostgresStore):  # the threads had connections of their own
        with store._session as db:
            (connections,) = db.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()"
            ).fetchone()
        assert connections >= 3
