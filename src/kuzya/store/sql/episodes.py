"""Episodes written in SQL both backends speak: a message with its audience, conversation
place, vector and time expressions, its entity links, and its history; rewrites and
deletions take back everything the old text gave. A backend indexes an episode for its
searches (`_index_episodes`, a batch at a time) and unindexes it in the same transaction."""

from __future__ import annotations

import json
import time
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya.clock import from_epoch, to_epoch
from kuzya.errors import InvalidInput, NotFound
from kuzya.model import Episode, Span
from kuzya.store.base import NewEpisode
from kuzya.store.sql import graph
from kuzya.store.sql.claims import forget_claims
from kuzya.store.sql.reading import EpisodeReads
from kuzya.store.sql.tables import Connection, audience_key, placeholders

Indexed = tuple[int, int, NewEpisode]  # (episode id, audience id, what it says) to index


def _event_columns(events: Sequence[Span]) -> tuple[str, float | None, float | None]:
    """The events as JSON, and the earliest start and latest end (for time windows)."""
    encoded = json.dumps(
        [{"phrase": e.phrase, "start": to_epoch(e.start), "end": to_epoch(e.end)} for e in events],
        ensure_ascii=False,
    )
    if not events:
        return encoded, None, None
    return encoded, min(to_epoch(e.start) for e in events), max(to_epoch(e.end) for e in events)


class EpisodeWrites(EpisodeReads):
    """The episode side of the store port: writes, and what a backend adds to them."""

    @abstractmethod
    def _index_episodes(self, db: Connection, namespace: str, batch: Sequence[Indexed]) -> None:
        """Index new or rewritten episodes for dense and full-text search."""

    @abstractmethod
    def _unindex_episode(self, db: Connection, namespace: str, episode_id: int) -> None:
        """Take an episode out of the search indexes (before it is deleted or rewritten)."""

    @abstractmethod
    def _after_write(self) -> None:
        """Called once a write that changed episodes has committed."""

    def add_episodes(self, namespace: str, batch: Sequence[NewEpisode]) -> list[Episode]:
        if not batch:
            return []
        for new in batch:
            self._check_vector(new.vector)
        stored_at = time.time()
        with self._write() as db:
            fresh: list[Indexed] = []
            ids = [self._insert(db, namespace, new, stored_at, fresh) for new in batch]
            self._index_episodes(db, namespace, fresh)
        self._after_write()
        by_id = {episode.id: episode for episode in self._episodes(namespace, ids)}
        return [by_id[i] for i in ids]

    def keyed(self, namespace: str, keys: Sequence[str]) -> dict[str, int]:
        with self._session:
            return {
                key: int(episode_id)
                for start in range(0, len(keys), 500)
                for key, episode_id in self._db.execute(
                    f"SELECT key, id FROM episodes WHERE namespace = ? AND "
                    f"key IN ({placeholders(keys[start : start + 500])})",
                    (namespace, *keys[start : start + 500]),
                )
            }

    def _check_vector(self, vector: npt.NDArray[np.float32]) -> None:
        dim = self._dim()
        if vector.shape != (dim,) or not np.all(np.isfinite(vector)):
            raise InvalidInput(
                f"vector of shape {vector.shape} does not fit this store ({dim} finite values)"
            )

    def _insert(
        self,
        db: Connection,
        namespace: str,
        new: NewEpisode,
        stored_at: float,
        fresh: list[Indexed],
    ) -> int:
        """Store one message (its search indexing is added to `fresh`)."""
        msg = new.message
        if msg.key is not None:  # stored meanwhile by another writer, or earlier in the batch
            row = db.execute(
                "SELECT id FROM episodes WHERE namespace = ? AND key = ?", (namespace, msg.key)
            ).fetchone()
            if row is not None:
                return int(row[0])
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
            "UPDATE SET messages = conversations.messages + 1, "
            "last_at = CASE WHEN excluded.last_at > conversations.last_at "
            "THEN excluded.last_at ELSE conversations.last_at END, "
            "started_at = CASE WHEN excluded.started_at < conversations.started_at "
            "THEN excluded.started_at ELSE conversations.started_at END, "
            "participants = excluded.participants",
            (namespace, msg.conversation, said_at, said_at, audience_key(sorted(everyone))),
        )
        episode_id = db.execute(
            "INSERT INTO episodes (namespace, conversation, speaker, text, attachments, "
            "metadata, said_at, stored_at, audience_id, position, embedding, events, "
            "event_start, event_end, key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
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
                msg.key,
            ),
        ).fetchone()[0]
        fresh.append((int(episode_id), audience_id, new))
        graph.record(db, namespace, (episode_id, audience_id, msg.speaker), said_at, new.mentions,
                     new.vector, self.half_life)  # fmt: skip
        if msg.derived_from:
            db.executemany(
                "INSERT INTO derivations VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(episode_id, source) for source in msg.derived_from],
            )
        self._log(db, namespace, episode_id, "ADD", None, msg.text, msg.speaker, stored_at)
        return int(episode_id)

    def _log(
        self,
        db: Connection,
        namespace: str,
        episode_id: int,
        event: str,
        old: str | None,
        new: str | None,
        actor: str | None,
        at: float,
    ) -> None:
        db.execute(
            "INSERT INTO history (namespace, memory_id, event, old_text, new_text, at, actor, "
            "audience_id) VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT audience_id FROM history WHERE "
            "namespace = ? AND memory_id = ? AND audience_id IS NOT NULL UNION ALL SELECT "
            "audience_id FROM episodes WHERE id = ? LIMIT 1))",
            (namespace, episode_id, event, old, new, at, actor, namespace, episode_id, episode_id),
        )

    def update_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        return self._rewrite(namespace, episode_id, new, actor, redact=False)

    def redact_episode(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None
    ) -> Episode:
        return self._rewrite(namespace, episode_id, new, actor, redact=True)

    def _rewrite(
        self, namespace: str, episode_id: int, new: NewEpisode, actor: str | None, *, redact: bool
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
            self._unindex_episode(db, namespace, episode_id)
            self._index_episodes(db, namespace, [(episode_id, int(row[1]), new)])
            graph.forget_mentions(db, episode_id, self.half_life)
            graph.record(db, namespace, (episode_id, row[1], row[2]), row[3], new.mentions,
                         new.vector, self.half_life)  # fmt: skip
            if redact:  # nothing said before the redaction survives, not even in history
                db.execute(
                    "UPDATE history SET old_text = NULL, new_text = NULL "
                    "WHERE namespace = ? AND memory_id = ?",
                    (namespace, episode_id),
                )
                self._log(db, namespace, episode_id, "FORGET", None, new.message.text, actor, now)
            else:
                self._log(db, namespace, episode_id, "UPDATE", row[0], new.message.text, actor, now)
        self._after_write()
        return self.get_episode(namespace, episode_id)

    def delete_episode(self, namespace: str, episode_id: int, actor: str | None) -> None:
        now = time.time()
        with self._write() as db:
            if not db.execute(
                "SELECT 1 FROM episodes WHERE namespace = ? AND id = ?", (namespace, episode_id)
            ).fetchone():
                raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
            graph.forget_mentions(db, episode_id, self.half_life)  # reads the episode
            self._unindex_episode(db, namespace, episode_id)
            db.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))
            forget_claims(db, namespace, "episode_id = ?", [episode_id],
                          f"memory {episode_id} was deleted", actor)  # fmt: skip
            db.execute(
                "DELETE FROM derivations WHERE episode_id = ? OR source_id = ?",
                (episode_id, episode_id),
            )
            db.execute(
                "UPDATE history SET old_text = NULL, new_text = NULL "
                "WHERE namespace = ? AND memory_id = ?",
                (namespace, episode_id),
            )
            self._log(db, namespace, episode_id, "DELETE", None, None, actor, now)
        self._after_write()

    def stats(self, namespace: str) -> dict[str, Any]:
        with self._session:
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
        }
