"""Export and import of a whole namespace as JSONL: how a store is backed up in a
readable form, moved to another backend, or to another embedder.

The first line is a header, `{"kuzya_export": 1, "namespace", "embedder", "exported_at"}`;
then one record a line, each with a "type", in this order (a record refers only to those
before it):

- `audience`: {participants}, every audience of the namespace in the order it appeared;
- `entity`: {key, sense}, in the order the entities were made;
- `message`: {key, text, speaker, conversation, position, participants (the audience
  exactly), time, stored_at, updated_at (if it was changed), attachments, metadata,
  derived_from (message keys), mentions ([{entity: [key, sense], name, kind}], in text
  order)}; a message stored without a key gets "export:<namespace>:<id>" here;
- `claim`: what sleep found a message to state {message, subject, attribute, value,
  value_key, negated, statement, said_at, audience, origin, recorded_at, emphatic};
- `diary`: {kind, key, level, text, start, end, audience, sources (message keys), origin,
  created_at, compressed_into (the kind, key and level of the entry of the same audience
  that compresses it) or null};
- `alias`, `association`, `reinforcement`: the entity graph as sleep and recall left it
  (merged names, relation aliases, association weights at their times, the strengthening
  of recalls);
- `conversation`: {id, participants, started_at, last_at, messages};
- `jobs`: {positions (job -> the key of the last message it read), sleep_clock}.

Nothing else is exported. No vectors: the importing store's embedder embeds the texts
again, each group of messages as it was first stored, so with the same embedder the
vectors, and what recall returns, are the same. No row ids: messages are named by key,
entities by key and sense. No history: what a message said before an update, and the
records of forgotten facts and memories, stay behind (forgotten text never leaves the
store); the import records each message as added when it was first stored. A merge made
before the export cannot be undone by its id after the import (split the entity instead).

Importing into an empty namespace, or into one that holds only messages of the same file
(an import run again, or interrupted), writes what is missing: each record once.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from kuzya import remember
from kuzya.clock import utcnow
from kuzya.errors import InvalidInput
from kuzya.facts.claims import new_claim
from kuzya.facts.schema import Claim
from kuzya.memory import Memory
from kuzya.model import DiaryEntry
from kuzya.sleep import diary
from kuzya.store.base import NewDiaryEntry
from kuzya.store.portable import (
    AliasRow,
    EntityGraph,
    KeptEpisode,
    MentionRow,
    ReinforcementRow,
    RestoredEpisode,
)
from kuzya.transfer.records import FORMAT, Export, MessageRecord, read

File = str | Path | IO[str]
READ_BATCH = 500  # episodes read at a time


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _line(out: IO[str], record: dict[str, Any]) -> None:
    out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")


@contextmanager
def _opened(file: File, mode: str) -> Iterator[IO[str]]:
    if isinstance(file, str | Path):
        try:
            with open(file, mode, encoding="utf-8") as handle:
                yield handle
        except OSError as exc:
            raise InvalidInput(f"cannot open {file}: {exc.strerror or exc}") from None
    else:
        yield file


def export(memory: Memory, file: File) -> int:
    """Write the namespace of `memory` to `file` (a path or a text stream), one JSON object
    a line; returns how many messages it holds."""
    store, namespace = memory.store, memory.namespace
    graph = store.entity_graph(namespace)
    with _opened(file, "w") as out:
        _line(
            out,
            {
                "kuzya_export": FORMAT,
                "namespace": namespace,
                "embedder": store.embedder_name,
                "exported_at": utcnow().isoformat(),
            },
        )
        for audience in store.audiences(namespace):
            _line(out, {"type": "audience", "participants": sorted(audience)})
        for key, sense in graph.entities:
            _line(out, {"type": "entity", "key": key, "sense": sense})
        keys = _messages(memory, graph, out)
        _claims(memory, keys, out)
        _diary(memory, keys, out)
        _graph(graph, keys, out)
        for c in reversed(store.conversations(namespace)):
            _line(
                out,
                {
                    "type": "conversation",
                    "id": c.id,
                    "participants": sorted(c.participants),
                    "started_at": _time(c.started_at),
                    "last_at": _time(c.last_at),
                    "messages": c.messages,
                },
            )
        ids = sorted(keys)
        positions = {
            job: keys[ids[at - 1]] if (at := bisect.bisect_right(ids, position)) else None
            for job, position in store.job_positions(namespace).items()
        }  # the last message a job read, of those still stored
        clock = store.sleep_clock(namespace)
        _line(out, {"type": "jobs", "positions": positions, "sleep_clock": _time(clock)})
    return len(keys)


def _messages(memory: Memory, graph: EntityGraph, out: IO[str]) -> dict[int, str]:
    """Write the message records; returns the key of each by id."""
    mentions: dict[int, list[MentionRow]] = {}
    for mention in graph.mentions:
        mentions.setdefault(mention.episode_id, []).append(mention)
    keys: dict[int, str] = {}
    after = 0
    while batch := memory.store.kept_episodes(memory.namespace, after, READ_BATCH):
        for kept in batch:
            keys[kept.episode.id] = _message(memory.namespace, kept, keys, mentions, out)
        after = batch[-1].episode.id
    return keys


def message_key(namespace: str, kept: KeptEpisode) -> str:
    """The key that names a message in an export: its own, else one made of its id."""
    return kept.key or f"export:{namespace}:{kept.episode.id}"


def _message(
    namespace: str,
    kept: KeptEpisode,
    keys: dict[int, str],
    mentions: dict[int, list[MentionRow]],
    out: IO[str],
) -> str:
    e = kept.episode
    key = message_key(namespace, kept)
    record = {
        "type": "message",
        "key": key,
        "text": e.text,
        "speaker": e.speaker,
        "conversation": e.conversation,
        "position": e.position,
        "participants": sorted(e.audience),
        "time": _time(e.said_at),
        "stored_at": _time(e.stored_at),
        "updated_at": _time(e.updated_at),
        "attachments": [asdict(a) for a in e.attachments],
        "metadata": e.metadata,
        "derived_from": [keys[s] for s in kept.derived_from],
        "mentions": [
            {"entity": list(m.entity), "name": m.name, "kind": m.kind}
            for m in mentions.get(e.id, ())
        ],
    }
    if e.updated_at is None:
        del record["updated_at"]
    _line(out, record)
    return key


def _claims(memory: Memory, keys: dict[int, str], out: IO[str]) -> None:
    claims = memory.store.claims(memory.namespace, participants=None)
    for c in sorted(claims, key=lambda c: c.id):
        _line(
            out,
            {
                "type": "claim",
                "message": keys[c.episode_id],
                "subject": c.subject,
                "attribute": c.attribute,
                "value": c.value,
                "value_key": c.value_key,
                "negated": c.negated,
                "statement": c.statement,
                "said_at": _time(c.said_at),
                "audience": sorted(c.audience),
                "origin": c.origin,
                "recorded_at": _time(c.recorded_at),
                "emphatic": c.emphatic,
            },
        )


def _diary(memory: Memory, keys: dict[int, str], out: IO[str]) -> None:
    store, namespace = memory.store, memory.namespace
    entries = sorted(store.diary(namespace), key=lambda e: e.id)
    into: dict[int, DiaryEntry] = {
        covered.id: entry
        for entry in entries
        if entry.kind == "period"
        for covered in store.diary(namespace, compressed_into=entry.id)
    }
    for e in entries:
        period = into.get(e.id)
        _line(
            out,
            {
                "type": "diary",
                "kind": e.kind,
                "key": e.key,
                "level": e.level,
                "text": e.text,
                "start": _time(e.start),
                "end": _time(e.end),
                "audience": sorted(e.audience),
                "sources": [keys[s] for s in e.sources],
                "origin": e.origin,
                "created_at": _time(e.created_at),
                "compressed_into": None
                if period is None
                else {"kind": period.kind, "key": period.key, "level": period.level},
            },
        )


def _graph(graph: EntityGraph, keys: dict[int, str], out: IO[str]) -> None:
    for a in graph.aliases:
        _line(
            out,
            {
                "type": "alias",
                "speaker": a.speaker,
                "alias": a.alias,
                "audience": sorted(a.audience),
                "message": None if a.episode_id is None else keys[a.episode_id],
                "entity": list(a.entity),
            },
        )
    for s in graph.associations:
        _line(
            out,
            {
                "type": "association",
                "audience": sorted(s.audience),
                "a": list(s.a),
                "b": list(s.b),
                "weight": s.weight,
                "updated_at": _time(s.updated_at),
            },
        )
    for r in graph.reinforcements:
        _line(
            out,
            {
                "type": "reinforcement",
                "audience": sorted(r.audience),
                "entities": [list(e) for e in r.entities],
                "amount": r.amount,
                "at": _time(r.at),
                "sources": [keys[s] for s in r.sources],
            },
        )


# -- import -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    """What an import found in its file, and how many of its messages were stored before."""

    namespace: str  # the namespace the file was exported from
    messages: int
    already: int
    claims: int
    diary: int


def is_export(path: str | Path) -> bool:
    """Whether the file's first line is an export's header (of any format version)."""
    try:
        with open(path, "rb") as lines:
            first = json.loads(lines.readline())
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and "kuzya_export" in first


def read_export(file: File) -> Export:
    """An export file read whole and checked; a mistake is one InvalidInput naming the line
    (and the file, when given by path)."""
    with _opened(file, "r") as lines:
        try:
            return read(lines)
        except InvalidInput as exc:
            if isinstance(file, str | Path):
                raise InvalidInput(f"{file}: {exc}") from None
            raise
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{file}: not valid UTF-8 ({exc.reason})") from None


def import_namespace(memory: Memory, file: File) -> Imported:
    """Read an export (checked whole before anything is written) into the namespace of
    `memory`, which must be empty or hold only messages of this file."""
    found = read_export(file)
    return restore(memory, found)


def restore(memory: Memory, found: Export) -> Imported:
    """Store a read export (see `import_namespace`)."""
    store, namespace = memory.store, memory.namespace
    stored = store.keyed(namespace, list(found.by_key))
    held = store.stats(namespace)["episodes"]
    if held > len(stored):
        raise InvalidInput(
            f"namespace {namespace!r} holds {held - len(stored)} memories that are not in this "
            "export; import it into an empty namespace (or the one an earlier import of it made)"
        )
    store.add_audiences(namespace, found.audiences)
    ids = _restore_messages(memory, found.messages, stored)
    store.put_entity_graph(namespace, _entity_graph(found, ids))
    claims = _restore_claims(memory, found, ids)
    _restore_diary(memory, found, ids)
    store.put_conversations(namespace, found.conversations)
    for job, key in found.positions.items():
        store.set_job_position(namespace, job, 0 if key is None else ids[key])
    if found.sleep_clock is not None:
        store.set_sleep_clock(namespace, found.sleep_clock)
    return Imported(
        found.header.namespace, len(found.messages), len(stored), claims, len(found.diary)
    )


def _groups(records: Sequence[MessageRecord]) -> Iterator[list[MessageRecord]]:
    """The messages as they were first embedded: together those stored together, a
    changed one alone."""
    group: list[MessageRecord] = []
    for record in records:
        if group and (
            record.updated_at or group[0].updated_at or record.stored_at != group[0].stored_at
        ):
            yield group
            group = []
        group.append(record)
    if group:
        yield group


def _restore_messages(
    memory: Memory, records: Sequence[MessageRecord], stored: dict[str, int]
) -> dict[str, int]:
    """Store the messages not `stored` yet, in their order, BATCH at most to a transaction;
    returns the ids of all by key."""
    ids = dict(stored)
    batch: list[RestoredEpisode] = []

    def commit() -> None:
        stored = memory.store.restore_episodes(memory.namespace, batch)
        ids.update(zip((r.new.message.key or "" for r in batch), stored, strict=True))
        batch.clear()

    for group in _groups(records):
        if all(r.message.key in stored for r in group):
            continue
        vectors = memory.embedder.embed([r.message.content for r in group])
        for record, vector in zip(group, vectors, strict=True):
            if any(key not in ids for key in record.sources):
                commit()  # a reply made from messages of this batch
            sources = tuple(sorted(ids[key] for key in record.sources))
            new = remember.indexed(replace(record.message, derived_from=sources), vector)
            batch.append(RestoredEpisode(new, record.stored_at, record.updated_at, record.position))
        if len(batch) >= remember.BATCH:
            commit()
    if batch:
        commit()
    return ids


def _entity_graph(found: Export, ids: dict[str, int]) -> EntityGraph:
    def episode(key: str | None) -> int | None:
        return None if key is None else ids[key]

    return EntityGraph(
        entities=tuple(found.entities),
        mentions=tuple(
            MentionRow(ids[m.message.key or ""], entity, name, kind)
            for m in found.messages
            for entity, name, kind in m.mentions
        ),
        aliases=tuple(
            AliasRow(a.speaker, a.alias, a.audience, episode(a.message), a.entity)
            for a in found.aliases
        ),
        associations=tuple(found.associations),
        reinforcements=tuple(
            ReinforcementRow(
                r.audience, r.entities, r.amount, r.at, tuple(ids[s] for s in r.sources)
            )
            for r in found.reinforcements
        ),
    )


def _restore_claims(memory: Memory, found: Export, ids: dict[str, int]) -> int:
    new = [
        new_claim(
            memory.embedder,
            ids[c.message],
            Claim(c.subject, c.attribute, c.value, c.negated, c.emphatic),
            c.origin,
            statement=c.statement,
            key=c.value_key,
            recorded_at=c.recorded_at,
        )
        for c in found.claims
    ]
    return memory.store.add_claims(memory.namespace, new)


def _restore_diary(memory: Memory, found: Export, ids: dict[str, int]) -> None:
    """Write the entries in their order, then the compressing ones again with the entries
    they compress (which may have come after them)."""
    store, namespace = memory.store, memory.namespace
    written: dict[tuple[str, str, int, frozenset[str]], int] = {}
    compressing: dict[tuple[str, str, int, frozenset[str]], list[int]] = {}
    entries: dict[tuple[str, str, int, frozenset[str]], NewDiaryEntry] = {}
    for d in found.diary:
        vector = memory.embedder.embed([diary.vector_text(d.kind, d.key, d.text)])[0]
        new = NewDiaryEntry(
            kind=d.kind,
            key=d.key,
            level=d.level,
            text=d.text,
            start=d.start,
            end=d.end,
            audience=tuple(sorted(d.audience)),
            sources=tuple(ids[s] for s in d.sources),
            origin=d.origin,
            vector=vector,
            created_at=d.created_at,
        )
        identity = (d.kind, d.key, d.level, d.audience)
        written[identity] = store.put_diary(namespace, new).id
        entries[identity] = new
        if d.compressed_into is not None:
            compressing.setdefault((*d.compressed_into, d.audience), []).append(written[identity])
    for identity, covers in compressing.items():
        store.put_diary(namespace, replace(entries[identity], covers=tuple(covers)))
