"""Entities, aliases, mentions and associations of the SQLite store (see sqlite_graph)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from datetime import datetime

from kuzya.clock import from_epoch, to_epoch
from kuzya.entities import Mention
from kuzya.errors import NotFound
from kuzya.model import (
    Entity,
    EntityChange,
)
from kuzya.store import sqlite_graph as graph
from kuzya.store.base import Hit
from kuzya.store.sqlite_base import SQLiteConnection


class EntityTables(SQLiteConnection):
    """The entity side of the store port."""

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

    def add_mentions(self, namespace: str, episode_id: int, mentions: Sequence[Mention]) -> int:
        with self._write() as db:
            return graph.add_mentions(db, namespace, episode_id, mentions, self.half_life)

    def set_entity_kinds(self, namespace: str, kinds: Mapping[str, str]) -> int:
        with self._write() as db:
            return graph.set_kinds(db, namespace, kinds)

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

    def prune(self, namespace: str, now: datetime, below: float) -> int:
        with self._write() as db:
            return graph.prune(db, namespace, to_epoch(now), self.half_life, below)
