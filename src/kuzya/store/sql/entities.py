"""Entities, aliases, mentions and associations of the SQLite store (see sqlite_graph).

Every view takes the participants it is for and reads only rows learned in audiences
they may see; without participants (`entities`, `entity_episodes`) it is the admin view
of the whole namespace.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from datetime import datetime

from kuzya.clock import from_epoch, to_epoch
from kuzya.entities.graph import seeded
from kuzya.errors import InvalidInput, NotFound
from kuzya.model import Entity, EntityChange, Mention
from kuzya.store.base import Hit, Scope
from kuzya.store.sql import graph, senses, views
from kuzya.store.sql.tables import Connection, Tables, audience_key, placeholders


class EntityTables(Tables):
    """The entity side of the store port."""

    def gazetteer(self, scope: Scope, speaker: str) -> dict[str, str]:
        visible = self._seen_by(scope)
        with self._session:
            return views.gazetteer(self._db, scope.namespace, speaker, visible)

    def graph_search(
        self, scope: Scope, keys: Sequence[str], seeds: Mapping[int, float], now: datetime, k: int
    ) -> list[Hit]:
        visible = self._seen_by(scope)
        namespace = scope.namespace
        with self._session:
            activation = seeded(
                graph.entity_ids(self._db, namespace, keys),
                graph.entities_of(self._db, list(seeds)),
                seeds,
            )
            spread = graph.activated(
                self._db, namespace, activation, visible, to_epoch(now), self.half_life
            )
            return graph.episodes_of(self._db, spread, visible, k)

    def reinforce(
        self,
        namespace: str,
        episode_ids: Sequence[int],
        participants: Sequence[str],
        now: datetime,
    ) -> None:
        if not episode_ids:
            return
        with self._write() as db:
            visible = self._visible_audiences(namespace, participants)
            used = [int(r[0]) for r in db.execute(
                f"SELECT id FROM episodes WHERE id IN ({placeholders(episode_ids)}) "
                f"AND namespace = ? AND audience_id IN ({placeholders(visible)})",
                (*episode_ids, namespace, *visible),
            )]  # fmt: skip
            audience = self._audience_id(db, namespace, participants)
            graph.reinforce(db, namespace, audience, used, to_epoch(now), self.half_life)

    def add_mentions(self, namespace: str, episode_id: int, mentions: Sequence[Mention]) -> int:
        with self._write() as db:
            return graph.add_mentions(db, namespace, episode_id, mentions, self.half_life)

    def set_entity_kinds(self, namespace: str, episode_id: int, kinds: Mapping[str, str]) -> int:
        with self._write() as db:
            return graph.set_kinds(db, namespace, episode_id, kinds)

    def entities(self, namespace: str, participants: Sequence[str] | None = None) -> list[Entity]:
        with self._session:
            return views.entities(self._db, namespace, self._visible(namespace, participants))

    def entity_episodes(
        self,
        namespace: str,
        entity_id: int,
        participants: Sequence[str] | None = None,
        *,
        exactly: bool = False,
    ) -> list[int]:
        with self._session:
            if not self._owns(namespace, entity_id):
                return []
            audiences = (
                self._exactly(namespace, participants)
                if exactly and participants is not None
                else self._visible(namespace, participants)
            )
            return views.mentioned_in(self._db, entity_id, audiences)

    def audiences(self, namespace: str) -> list[frozenset[str]]:
        with self._session:
            rows = self._db.execute(
                "SELECT key FROM audiences WHERE namespace = ? ORDER BY id", (namespace,)
            ).fetchall()
        return [frozenset(json.loads(r[0])) for r in rows]

    def _visible(self, namespace: str, participants: Sequence[str] | None) -> list[int] | None:
        return None if participants is None else self._visible_audiences(namespace, participants)

    def _exactly(self, namespace: str, participants: Sequence[str] | None) -> list[int] | None:
        """The audience of exactly these participants (None: every audience)."""
        if participants is None:
            return None
        row = self._db.execute(
            "SELECT id FROM audiences WHERE namespace = ? AND key = ?",
            (namespace, audience_key(participants)),
        ).fetchone()
        return [] if row is None else [int(row[0])]

    def _history(
        self, db: Connection, namespace: str, event: str, entity_id: int,
        detail: Mapping[str, object], at: float,
    ) -> int:  # fmt: skip
        change = db.execute(
            "INSERT INTO entity_history (namespace, event, entity_id, detail, at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            (namespace, event, entity_id, json.dumps(detail, ensure_ascii=False), at),
        ).fetchone()[0]
        return int(change)

    def merge_entities(
        self,
        namespace: str,
        source: int,
        target: int,
        reason: str,
        audience: Sequence[str] | None = None,
    ) -> EntityChange:
        now = time.time()
        with self._write() as db:
            if source == target or not (self._owns(namespace, source)
                                         and self._owns(namespace, target)):  # fmt: skip
                raise NotFound(f"no entities {source} and {target} to merge in {namespace!r}")
            audiences = self._exactly(namespace, audience)
            if not views.mentioned_in(db, source, audiences):
                raise InvalidInput(f"entity {source} is not mentioned before that audience")
            undo = senses.merge(db, namespace, source, target, audiences, self.half_life)
            change = self._history(db, namespace, "MERGE", target,
                                   {"undo": undo, "reason": reason}, now)  # fmt: skip
        return EntityChange(change, "MERGE", target, undo["name"], reason, from_epoch(now))

    def split_entity(
        self,
        namespace: str,
        entity_id: int,
        episodes: Sequence[int],
        reason: str,
        audience: Sequence[str] | None = None,
    ) -> EntityChange:
        now = time.time()
        with self._write() as db:
            if not self._owns(namespace, entity_id):
                raise NotFound(f"no entity {entity_id} in namespace {namespace!r}")
            audiences = self._exactly(namespace, audience)
            new_id = senses.split(db, namespace, entity_id, episodes, audiences, self.half_life)
            if new_id is None:
                raise InvalidInput(f"entity {entity_id} is not mentioned in those episodes")
            name = views.first_written(db, new_id, None)[0]
            change = self._history(db, namespace, "SPLIT", new_id,
                                   {"reason": reason, "from": entity_id}, now)  # fmt: skip
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
            undo = json.loads(row[1])["undo"]
            entity_id = senses.unmerge(db, namespace, int(row[0]), undo, self.half_life)
            reason = f"undo of merge {change_id}"
            split = self._history(db, namespace, "SPLIT", entity_id, {"reason": reason}, now)
            db.execute("UPDATE entity_history SET event = 'MERGE-UNDONE' WHERE id = ?",
                       (change_id,))  # fmt: skip
        return EntityChange(split, "SPLIT", entity_id, undo["name"], reason, from_epoch(now))

    def _owns(self, namespace: str, entity_id: int) -> bool:
        return (
            self._db.execute(
                "SELECT 1 FROM entities WHERE namespace = ? AND id = ?", (namespace, entity_id)
            ).fetchone()
            is not None
        )

    def prune(self, namespace: str, now: datetime, below: float) -> int:
        with self._write() as db:
            return graph.prune(db, namespace, to_epoch(now), self.half_life, below)

    def faded(self, namespace: str, now: datetime, below: float) -> int:
        with self._session:
            return len(graph.faded(self._db, namespace, to_epoch(now), self.half_life, below))
