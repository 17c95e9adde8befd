"""The process the crash suite kills: one operation on a store, as a user's program runs it.

`python -m kuzya.bench.crash_driver OPERATION DB EMBEDDER [ARGUMENT]` opens the store,
prints "ready", runs the operation and prints "done". An import prints "ack KEY ..."
after each batch `remember_many` returned (committed: acknowledged to its caller).
Running it again after a crash finishes what the killed one began.
"""

from __future__ import annotations

import sys
from pathlib import Path

from kuzya.errors import NotFound
from kuzya.memory import Memory
from kuzya.transfer.jsonl import read_jsonl

NAMESPACE = "crash"
SLEEP_AT = "2025-01-20T12:00:00"  # a fixed time: the same decay and diary on every run
IMPORT_BATCH = 20
FORGET = (("ana", "address"), ("boris", "address"))  # subject, attribute


def main(operation: str, db: str, embedder: str, argument: str = "") -> None:
    with Memory.open(db, namespace=NAMESPACE, embedder=embedder, llm="none") as memory:
        memory.embedder.embed(["warm up"])
        print("ready", flush=True)
        if operation == "import":
            found = read_jsonl(Path(argument))
            for start in range(0, len(found), IMPORT_BATCH):
                batch = found[start : start + IMPORT_BATCH]
                memory.remember_many(batch)
                print("ack", *(m.key for m in batch), flush=True)
        elif operation == "sleep":
            memory.sleep(now=SLEEP_AT, wait=True)
        elif operation == "forget":
            for memory_id in map(int, argument.split(",")):
                try:
                    memory.delete(memory_id, actor="crash")
                except NotFound:
                    continue  # deleted by the run that was killed
            for subject, attribute in FORGET:
                memory.forget(subject, attribute=attribute, actor="crash")
        elif operation == "compact":
            memory.compact()
        else:
            raise SystemExit(f"unknown operation {operation!r}")
    print("done", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
