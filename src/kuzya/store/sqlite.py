"""The embedded store: one SQLite file (WAL), FTS5 full text, exact vector search.

Writes happen in `BEGIN IMMEDIATE` transactions, so several processes can write one
file; a batch is acknowledged only after its COMMIT returns.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.dates import Span
from kuzya.errors import InvalidInput, NotFound, StoreError
from kuzya.model import (
    Attachment,
    Conversation,
    Entity,
    EntityChange,
    Episode,
    HistoryEvent,
)
from kuzya.store import sqlite_graph as graph
from kuzya.store.base import Hit, NewEpisode
from kuzya.store.migrations import migrate
from kuzya.store.vectors import VectorIndex

_EPISODE_COLUMNS = (
    "id, namespace, conversation, speaker, text, attachments, metadata, "
    "said_at, stored_at, updated_at, audience_id, position, events"
)
# Full-text postings read per query at most: frequent terms carry little weight and
# cost the most, so they are dropped first (bounds latency on large stores).
_MAX_POSTINGS = 6_000
# Up to this many visible audiences, the full-text query itself is restricted to them
# through scope tokens; past it, to the namespace (with a join on the audience unless
# every audience of the namespace is visible).
_MAX_SCOPE_TOKENS = 64


def _audience_key(members: Sequence[str]) -> str:
    return json.dumps(sorted(set(members)), ensure_ascii=False)


def _placeholders(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def _event_columns(events: Sequence[Span]) -> tuple[str, float | None, float | None]:
    """The events as JSON, and the earliest start and latest end (for time windows)."""
    encoded = json.dumps(
        [{"phrase": e.phrase, "start": to_epoch(e.start), "end": to_epoch(e.end)} for e in events],
        ensure_ascii=False,
    )
    if not events:
        return encoded, None, None
    return encoded, min(to_epoch(e.start) for e in events), max(to_epoch(e.end) for e in events)


def _json(value: str) -> Any:
    """JSON text to a value; the common empty cases skip the parser."""
    if value == "[]":
        return []
    return {} if value == "{}" else json.loads(value)


def _events_from_json(value: str) -> tuple[Span, ...]:
    return tuple(
        Span(e["phrase"], from_epoch(e["start"]), from_epoch(e["end"])) for e in _json(value)
    )


def _namespace_token(namespace: str) -> str:
    return "n" + hashlib.blake2b(namespace.encode(), digest_size=8).hexdigest()


def _index_text(
    db: sqlite3.Connection, namespace: str, episode_id: int, audience_id: int, terms: str
) -> None:
    """Full-text row: the terms, and scope tokens for its namespace and audience."""
    db.execute(
        "INSERT INTO episodes_fts (rowid, terms, scope) VALUES (?, ?, ?)",
        (episode_id, terms, f"{_namespace_token(namespace)} a{audience_id}"),
    )


def _retry_while_busy(action: Callable[[], None], timeout: float) -> None:
    """Run `action`, retrying while another process holds the file (while a new file is
    still in rollback-journal mode SQLite reports BUSY at once instead of waiting)."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            action()
            return
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.25)


class SQLiteStore:
    """Store port over one SQLite file. Thread-safe; one connection guarded by a lock."""

    def __init__(
        self,
        path: str | Path,
        *,
        durable: bool = True,
        timeout: float = 30.0,
        half_life_days: float = 30.0,
    ) -> None:
        self.path = Path(path)
        self.half_life = half_life_days * 86400.0  # of association weights, in seconds
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False, timeout=timeout
            )
            _retry_while_busy(lambda: self._prepare(durable), timeout)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open store {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._members: dict[int, frozenset[str]] = {}
        self._vectors: VectorIndex | None = None

    def _prepare(self, durable: bool) -> None:
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.execute("PRAGMA secure_delete = ON")  # deleted text is overwritten
        migrate(self._db)

    # -- lifecycle and metadata -------------------------------------------------------

    @property
    def embedder_name(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return None if row is None else str(row[0])

    def bind_embedder(self, name: str, dim: int) -> None:
        with self._write() as db:
            rows = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')"))
            if not rows:
                db.execute("INSERT INTO meta VALUES ('embedder', ?), ('dim', ?)", (name, str(dim)))
            elif rows.get("embedder") != name or rows.get("dim") != str(dim):
                raise InvalidInput(
                    f"store {self.path} was built with embedder {rows.get('embedder')!r} "
                    f"({rows.get('dim')}-d); open it with that embedder, or use a new store "
                    f"for {name!r}"
                )
        self._vectors = VectorIndex(dim)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"store {self.path} is busy or unwritable: {exc}") from exc
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            try:
                self._db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._db.execute("ROLLBACK")
                raise StoreError(f"commit failed on {self.path}: {exc}") from exc

    # -- audiences ----------------------------------------------------------------------

    def _audience_id(self, db: sqlite3.Connection, namespace: str, members: Sequence[str]) -> int:
        key = _audience_key(members)
        row = db.execute(
            "SELECT id FROM audiences WHERE namespace = ? AND key = ?", (namespace, key)
        ).fetchone()
        if row is not None:
            return int(row[0])
        audience_id = db.execute(
            "INSERT INTO audiences (namespace, key) VALUES (?, ?)", (namespace, key)
        ).lastrowid
        assert audience_id is not None
        db.executemany(
            "INSERT INTO audience_members VALUES (?, ?)",
            [(audience_id, member) for member in sorted(set(members))],
        )
        return audience_id

    def _members_of(self, audience_id: int) -> frozenset[str]:
        members = self._members.get(audience_id)
        if members is None:
            members = frozenset(
                row[0]
                for row in self._db.execute(
                    "SELECT participant FROM audience_members WHERE audience_id = ?",
                    (audience_id,),
                )
            )
            self._members[audience_id] = members
        return members

    def _visible_audiences(self, namespace: str, participants: Sequence[str]) -> list[int]:
        """Audiences that include every present participant (the privacy rule)."""
        present = sorted(set(participants))
        if not present:
            raise InvalidInput("recall needs the participants present (at least one)")
        rows = self._db.execute(
            "SELECT m.audience_id FROM audience_members m "
            "JOIN audiences a ON a.id = m.audience_id "
            f"WHERE a.namespace = ? AND m.participant IN ({_placeholders(present)}) "
            "GROUP BY m.audience_id HAVING COUNT(*) = ?",
            (namespace, *present, len(present)),
        )
        return [int(row[0]) for row in rows]

    # -- writing ------------------------------------------------------------------------

    def add_episodes(self, namespace: str, batch: Sequence[NewEpisode]) -> list[Episode]:
        if not batch:
            return []
        for new in batch:
            self._check_vector(new.vector)
        stored_at = time.time()
        with self._write() as db:
            ids = [self._insert(db, namespace, new, stored_at) for new in batch]
        self._sync()
        return self._episodes(namespace, ids)

    def _check_vector(self, vector: npt.NDArray[np.float32]) -> None:
        dim = self._index().dim
        if vector.shape != (dim,) or not np.all(np.isfinite(vector)):
            raise InvalidInput(
                f"vector of shape {vector.shape} does not fit this store ({dim} finite values)"
            )

    def _insert(
        self, db: sqlite3.Connection, namespace: str, new: NewEpisode, stored_at: float
    ) -> int:
        msg = new.message
        said_at = to_epoch(msg.time)
        audience_id = self._audience_id(db, namespace, msg.participants)
        row = db.execute(
            "SELECT messages, participants FROM conversations WHERE namespace = ? AND id = ?",
            (namespace, msg.conversation),
        ).fetchone()
        position = 0 if row is None else int(row[0])
        everyone = set(msg.participants) | set(json.loads(row[1]) if row else [])
        db.execute(
            "INSERT INTO conversations VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (namespace, id) DO "
            "UPDATE SET messages = messages + 1, last_at = max(last_at, excluded.last_at), "
            "started_at = min(started_at, excluded.started_at), "
            "participants = excluded.participants",
            (namespace, msg.conversation, said_at, said_at, _audience_key(sorted(everyone))),
        )
        episode_id = db.execute(
            "INSERT INTO episodes (namespace, conversation, speaker, text, attachments, "
            "metadata, said_at, stored_at, audience_id, position, embedding, events, "
            "event_start, event_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                namespace,
                msg.conversation,
                msg.speaker,
                msg.text,
                json.dumps([asdict(a) for a in msg.attachments], ensure_ascii=False),
                json.dumps(msg.metadata, ensure_ascii=False),
                said_at,
                stored_at,
                audience_id,
                position,
                new.vector.astype(np.float32).tobytes(),
                *_event_columns(new.events),
            ),
        ).lastrowid
        assert episode_id is not None
        _index_text(db, namespace, episode_id, audience_id, new.terms)
        graph.record(db, namespace, episode_id, audience_id, msg.speaker, said_at, new.mentions,
                     new.vector, self.half_life)  # fmt: skip
        db.execute(
            "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'put')",
            (namespace, episode_id),
        )
        self._log(db, namespace, episode_id, "ADD", None, msg.text, msg.speaker, stored_at)
        return episode_id

    def _log(
        self,
        db: sqlite3.Connection,
        namespace: str,
        episode_id: int,
        event: str,
        old: str | None,
        new: str | None,
        actor: str | None,
        at: float,
    ) -> None:
        db.execute(
            "INSERT INTO history (namespace, memory_id, event, old_text, new_text, at, actor) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (namespace, episode_id, event, old, new, at, actor),
        )

    def update_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        self._check_vector(new.vector)
        now = time.time()
        with self._write() as db:
            row = db.execute(
                "SELECT text, audience_id, speaker, said_at FROM episodes "
                "WHERE namespace = ? AND id = ?",
                (namespace, episode_id),
            ).fetchone()
            if row is None:
                raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
            db.execute(
                "UPDATE episodes SET text = ?, updated_at = ?, embedding = ?, events = ?, "
                "event_start = ?, event_end = ? WHERE id = ?",
                (
                    new.message.text,
                    now,
                    new.vector.astype(np.float32).tobytes(),
                    *_event_columns(new.events),
                    episode_id,
                ),
            )
            db.execute("DELETE FROM episodes_fts WHERE rowid = ?", (episode_id,))
            _index_text(db, namespace, episode_id, row[1], new.terms)
            graph.forget_mentions(db, episode_id)
            graph.record(db, namespace, episode_id, row[1], row[2], row[3], new.mentions,
                         new.vector, self.half_life)  # fmt: skip
            db.execute(
                "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'put')",
                (namespace, episode_id),
            )
            self._log(db, namespace, episode_id, "UPDATE", row[0], new.message.text, actor, now)
        self._sync()
        return self.get_episode(namespace, episode_id)

    def delete_episode(self, namespace: str, episode_id: int, actor: str | None) -> None:
        now = time.time()
        with self._write() as db:
            gone = db.execute(
                "DELETE FROM episodes WHERE namespace = ? AND id = ?", (namespace, episode_id)
            ).rowcount
            if not gone:
                raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
            db.execute("DELETE FROM episodes_fts WHERE rowid = ?", (episode_id,))
            graph.forget_mentions(db, episode_id)
            db.execute(
                "INSERT INTO vector_log (namespace, episode_id, op) VALUES (?, ?, 'remove')",
                (namespace, episode_id),
            )
            db.execute(
                "UPDATE history SET old_text = NULL, new_text = NULL "
                "WHERE namespace = ? AND memory_id = ?",
                (namespace, episode_id),
            )
            self._log(db, namespace, episode_id, "DELETE", None, None, actor, now)
        self._sync()

    # -- reading ------------------------------------------------------------------------

    def _episode(self, row: sqlite3.Row | tuple[Any, ...]) -> Episode:
        attachments = tuple(Attachment(**a) for a in _json(row[5]))
        return Episode(
            id=int(row[0]),
            namespace=row[1],
            conversation=row[2],
            speaker=row[3],
            text=row[4],
            attachments=attachments,
            metadata=_json(row[6]),
            said_at=from_epoch(row[7]),
            stored_at=from_epoch(row[8]),
            updated_at=None if row[9] is None else from_epoch(row[9]),
            audience=self._members_of(int(row[10])),
            position=int(row[11]),
            events=_events_from_json(row[12]),
        )

    def _episodes(
        self, namespace: str, ids: Sequence[int], visible: Sequence[int] | None = None
    ) -> list[Episode]:
        # Unary + keeps the planner on rowid lookups instead of scanning a namespace index.
        where, params = f"id IN ({_placeholders(ids)}) AND +namespace = ?", [*ids, namespace]
        if visible is not None:
            where += f" AND +audience_id IN ({_placeholders(visible)})"
            params.extend(visible)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE {where}", params
            ).fetchall()
            by_id = {int(row[0]): self._episode(row) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def get_episode(self, namespace: str, episode_id: int) -> Episode:
        found = self._episodes(namespace, [episode_id])
        if not found:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return found[0]

    def list_episodes(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        conversation: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]:
        where: list[str] = ["namespace = ?"]
        params: list[Any] = [namespace]
        with self._lock:
            if participants is not None:
                visible = self._visible_audiences(namespace, participants)
                where.append(f"audience_id IN ({_placeholders(visible)})")
                params.extend(visible)
            if conversation is not None:
                where.append("conversation = ?")
                params.append(conversation)
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE {' AND '.join(where)} "
                "ORDER BY said_at, id LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            return [self._episode(row) for row in rows]

    def conversations(
        self, namespace: str, participants: Sequence[str] | None = None
    ) -> list[Conversation]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, participants, started_at, last_at, messages FROM conversations "
                "WHERE namespace = ? ORDER BY last_at DESC, id",
                (namespace,),
            ).fetchall()
        present = set(participants or ())
        found = [
            Conversation(
                r[0], frozenset(json.loads(r[1])), from_epoch(r[2]), from_epoch(r[3]), int(r[4])
            )
            for r in rows
        ]
        return [c for c in found if present <= c.participants]

    def history(self, namespace: str, episode_id: int) -> list[HistoryEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT memory_id, event, old_text, new_text, at, actor FROM history "
                "WHERE namespace = ? AND memory_id = ? ORDER BY id",
                (namespace, episode_id),
            ).fetchall()
        if not rows:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return [HistoryEvent(int(r[0]), r[1], r[2], r[3], from_epoch(r[4]), r[5]) for r in rows]

    def recent_turns(
        self, namespace: str, conversation: str, participants: Sequence[str], limit: int
    ) -> list[Episode]:
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND "
                f"conversation = ? AND audience_id IN ({_placeholders(visible)}) "
                "ORDER BY position DESC LIMIT ?",
                (namespace, conversation, *visible, limit),
            ).fetchall()
            return [self._episode(row) for row in reversed(rows)]

    def stats(self, namespace: str) -> dict[str, Any]:
        with self._lock:
            episodes, first, last = self._db.execute(
                "SELECT COUNT(*), MIN(said_at), MAX(said_at) FROM episodes WHERE namespace = ?",
                (namespace,),
            ).fetchone()
            conversations = self._db.execute(
                "SELECT COUNT(*) FROM conversations WHERE namespace = ?", (namespace,)
            ).fetchone()[0]
            participants = self._db.execute(
                "SELECT COUNT(DISTINCT m.participant) FROM audience_members m "
                "JOIN audiences a ON a.id = m.audience_id WHERE a.namespace = ?",
                (namespace,),
            ).fetchone()[0]
        return {
            "namespace": namespace,
            "episodes": episodes,
            "conversations": conversations,
            "participants": participants,
            "first": None if first is None else from_epoch(first).isoformat(),
            "last": None if last is None else from_epoch(last).isoformat(),
            "embedder": self.embedder_name,
            "path": str(self.path),
            "bytes": self.path.stat().st_size if self.path.exists() else 0,
        }

    # -- search -------------------------------------------------------------------------

    def _index(self) -> VectorIndex:
        if self._vectors is None:
            raise StoreError("bind_embedder must be called before storing or searching")
        return self._vectors

    def _sync(self) -> VectorIndex:
        """Apply the change log to the vector index (writes of any process)."""
        index = self._index()
        with self._lock:
            changes = self._db.execute(
                "SELECT l.seq, l.namespace, l.episode_id, l.op, e.audience_id, e.embedding "
                "FROM vector_log l LEFT JOIN episodes e ON e.id = l.episode_id "
                "WHERE l.seq > ? ORDER BY l.seq",
                (index.last_seq,),
            ).fetchall()
        index.apply(changes)
        return index

    def dense_search(
        self, namespace: str, vector: npt.NDArray[np.float32], participants: Sequence[str], k: int
    ) -> list[Hit]:
        index = self._sync()
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
        return index.search(namespace, vector, visible, k)  # beside other queries

    def text_search(
        self, namespace: str, terms: Sequence[str], participants: Sequence[str], k: int
    ) -> list[Hit]:
        unique = sorted(set(terms))
        if not unique:
            return []
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            if not visible:
                return []
            kept = self._affordable_terms(unique)
            if not kept:
                return []
            match = "terms : (" + " OR ".join('"' + t.replace('"', '""') + '"' for t in kept) + ")"
            everything = (
                len(visible)
                == self._db.execute(
                    "SELECT COUNT(*) FROM audiences WHERE namespace = ?", (namespace,)
                ).fetchone()[0]
            )
            if everything or len(visible) <= _MAX_SCOPE_TOKENS:
                scope = (
                    _namespace_token(namespace)
                    if everything
                    else "(" + " OR ".join(f"a{audience}" for audience in visible) + ")"
                )
                rows = self._db.execute(
                    "SELECT rowid, -bm25(episodes_fts, 1.0, 0.0) AS score FROM episodes_fts "
                    "WHERE episodes_fts MATCH ? ORDER BY score DESC LIMIT ?",
                    (f"{match} AND scope : {scope}", k),
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT f.rowid, -bm25(episodes_fts, 1.0, 0.0) AS score FROM episodes_fts f "
                    "JOIN episodes e ON e.id = f.rowid WHERE episodes_fts MATCH ? "
                    f"AND e.audience_id IN ({_placeholders(visible)}) "
                    "ORDER BY score DESC LIMIT ?",
                    (f"{match} AND scope : {_namespace_token(namespace)}", *visible, k),
                ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def _affordable_terms(self, unique: Sequence[str]) -> list[str]:
        """Rarest terms first, until the postings to read would exceed the bound."""
        frequency = dict(
            self._db.execute(
                "SELECT term, doc FROM episodes_fts_vocab "
                f"WHERE col = 'terms' AND term IN ({_placeholders(unique)})",
                unique,
            )
        )
        kept: list[str] = []
        postings = 0
        for term in sorted(frequency, key=lambda t: (frequency[t], t)):
            postings += frequency[term]
            if kept and postings > _MAX_POSTINGS:
                break
            kept.append(term)
        return kept

    def recent_search(self, namespace: str, participants: Sequence[str], k: int) -> list[Hit]:
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                "SELECT id, said_at FROM episodes WHERE namespace = ? "
                f"AND +audience_id IN ({_placeholders(visible)}) ORDER BY said_at DESC LIMIT ?",
                (namespace, *visible, k),
            ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def window_search(
        self,
        namespace: str,
        start: datetime,
        end: datetime,
        participants: Sequence[str],
        k: int,
    ) -> list[Hit]:
        low, high = to_epoch(start), to_epoch(end)
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                "SELECT id, said_at FROM episodes WHERE namespace = ? AND ("
                "(said_at >= ? AND said_at < ?) OR (event_start < ? AND event_end > ?)) "
                f"AND +audience_id IN ({_placeholders(visible)}) ORDER BY said_at DESC LIMIT ?",
                (namespace, low, high, high, low, *visible, k),
            ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def fetch(
        self, namespace: str, ids: Sequence[int], participants: Sequence[str]
    ) -> list[Episode]:
        if not ids:
            return []
        with self._lock:
            return self._episodes(namespace, ids, self._visible_audiences(namespace, participants))

    def neighbours(
        self, namespace: str, episodes: Sequence[Episode], span: int, participants: Sequence[str]
    ) -> list[Episode]:
        if not episodes or span <= 0:
            return []
        given = {e.id for e in episodes}
        # Each clause matches the (namespace, conversation, position) index on its own, so
        # the planner unions index ranges instead of scanning the namespace.
        around = " OR ".join(
            "(namespace = ? AND conversation = ? AND position BETWEEN ? AND ?)" for _ in episodes
        )
        params: list[Any] = []
        for e in episodes:
            params.extend((namespace, e.conversation, e.position - span, e.position + span))
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            rows = self._db.execute(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE ({around}) "
                f"AND +audience_id IN ({_placeholders(visible)})",
                (*params, *visible),
            ).fetchall()
            return [self._episode(row) for row in rows if int(row[0]) not in given]

    # -- entities and associations ----------------------------------------------------

    def gazetteer(self, namespace: str, speaker: str) -> dict[str, str]:
        with self._lock:
            return graph.gazetteer(self._db, namespace, speaker)

    def graph_search(
        self,
        namespace: str,
        keys: Sequence[str],
        seeds: Mapping[int, float],
        participants: Sequence[str],
        now: datetime,
        k: int,
    ) -> list[Hit]:
        with self._lock:
            visible = self._visible_audiences(namespace, participants)
            activation: dict[int, float] = dict.fromkeys(
                graph.entity_ids(self._db, namespace, keys), 1.0
            )
            for episode_id, entities in graph.entities_of(self._db, list(seeds)).items():
                for entity in entities:
                    activation[entity] = max(activation.get(entity, 0.0), seeds[episode_id])
            spread = graph.spread(
                self._db, namespace, activation, visible, to_epoch(now), self.half_life
            )
            return graph.episodes_of(self._db, namespace, spread, visible, k)

    def reinforce(
        self,
        namespace: str,
        episode_ids: Sequence[int],
        participants: Sequence[str],
        now: datetime,
    ) -> None:
        with self._lock:
            together = sorted({e for ids in graph.entities_of(self._db, episode_ids).values()
                               for e in ids})  # fmt: skip
        if len(together) < 2:
            return
        with self._write() as db:
            audience = self._audience_id(db, namespace, participants)
            pairs = [(a, b) for i, a in enumerate(together) for b in together[i + 1 :]]
            graph.strengthen(db, namespace, audience, pairs, to_epoch(now), 0.5, self.half_life)

    def entities(self, namespace: str) -> list[Entity]:
        with self._lock:
            aliases: dict[int, set[str]] = {}
            for entity_id, alias in self._db.execute(
                "SELECT entity_id, alias FROM entity_aliases WHERE namespace = ?", (namespace,)
            ):
                aliases.setdefault(int(entity_id), set()).add(alias)
            return [
                Entity(i, key, name, kind, count, frozenset(aliases.get(i, ())), sense)
                for i, key, sense, name, kind, count in graph.entity_rows(self._db, namespace)
            ]

    def entity_episodes(self, namespace: str, entity_id: int) -> list[int]:
        with self._lock:
            return (
                graph.mentioned_in(self._db, entity_id) if self._owns(namespace, entity_id) else []
            )

    def merge_entities(self, namespace: str, source: int, target: int, reason: str) -> EntityChange:
        now = time.time()
        with self._write() as db:
            if source == target or not (self._owns(namespace, source)
                                         and self._owns(namespace, target)):  # fmt: skip
                raise NotFound(f"no entities {source} and {target} to merge in {namespace!r}")
            undo = graph.merge(db, namespace, source, target)
            detail = json.dumps({"undo": undo, "reason": reason}, ensure_ascii=False)
            change = db.execute(
                "INSERT INTO entity_history (namespace, event, entity_id, detail, at) "
                "VALUES (?, 'MERGE', ?, ?, ?)",
                (namespace, target, detail, now),
            ).lastrowid
        assert change is not None
        return EntityChange(change, "MERGE", target, undo["name"], reason, from_epoch(now))

    def split_entity(
        self, namespace: str, entity_id: int, episodes: Sequence[int], reason: str
    ) -> EntityChange:
        now = time.time()
        with self._write() as db:
            if not self._owns(namespace, entity_id):
                raise NotFound(f"no entity {entity_id} in namespace {namespace!r}")
            new_id = graph.split(db, namespace, entity_id, episodes, now)
            name = db.execute("SELECT name FROM entities WHERE id = ?", (new_id,)).fetchone()[0]
            change = db.execute(
                "INSERT INTO entity_history (namespace, event, entity_id, detail, at) "
                "VALUES (?, 'SPLIT', ?, ?, ?)",
                (namespace, new_id, json.dumps({"reason": reason, "from": entity_id}), now),
            ).lastrowid
        assert change is not None
        return EntityChange(change, "SPLIT", new_id, name, reason, from_epoch(now))

    def unmerge_entities(self, namespace: str, change_id: int) -> EntityChange:
        now = time.time()
        with self._write() as db:
            row = db.execute(
                "SELECT entity_id, detail FROM entity_history WHERE namespace = ? AND id = ? "
                "AND event = 'MERGE'",
                (namespace, change_id),
            ).fetchone()
            if row is None or not self._owns(namespace, int(row[0])):
                raise NotFound(f"no merge {change_id} to undo in namespace {namespace!r}")
            detail = json.loads(row[1])
            entity_id = graph.unmerge(db, namespace, int(row[0]), detail["undo"], now)
            reason = f"undo of merge {change_id}"
            split = db.execute(
                "INSERT INTO entity_history (namespace, event, entity_id, detail, at) "
                "VALUES (?, 'SPLIT', ?, ?, ?)",
                (namespace, entity_id, json.dumps({"reason": reason}), now),
            ).lastrowid
            db.execute("UPDATE entity_history SET event = 'MERGE-UNDONE' WHERE id = ?",
                       (change_id,))  # fmt: skip
        assert split is not None
        return EntityChange(split, "SPLIT", entity_id, detail["undo"]["name"], reason,
                            from_epoch(now))  # fmt: skip

    def _owns(self, namespace: str, entity_id: int) -> bool:
        return (
            self._db.execute(
                "SELECT 1 FROM entities WHERE namespace = ? AND id = ?", (namespace, entity_id)
            ).fetchone()
            is not None
        )

    def compact(self) -> None:
        """Rewrite the full-text index and the file: words of forgotten memories, which the
        index keeps in old segments until they are merged, are gone afterwards."""
        with self._write() as db:
            db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')")
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.execute("VACUUM")

    def prune(self, namespace: str, now: datetime, below: float) -> int:
        with self._write() as db:
            return graph.prune(db, namespace, to_epoch(now), self.half_life, below)

    def vector_of(self, namespace: str, ids: Sequence[int]) -> dict[int, npt.NDArray[np.float32]]:
        return self._sync().vectors(namespace, ids)
