"""A namespace read and written whole in the SQLite store, in the backend-neutral rows of
`kuzya.store.portable` (`kuzya.transfer.namespace` turns them into an export file and back)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kuzya.clock import from_epoch, to_epoch
from kuzya.model import Conversation
from kuzya.store.portable import (
    AliasRow,
    AssociationRow,
    EntityGraph,
    EntityRef,
    KeptEpisode,
    MentionRow,
    ReinforcementRow,
    RestoredEpisode,
)
from kuzya.store.sql import graph as graph_tables
from kuzya.store.sql.episodes import EpisodeWrites, Indexed
from kuzya.store.sql.reading import EPISODE_COLUMNS
from kuzya.store.sql.tables import Connection, audience_key, placeholders


def _audiences(graph: EntityGraph) -> set[frozenset[str]]:
    return {row.audience for rows in (graph.aliases, graph.associations) for row in rows}


class TransferTables(EpisodeWrites):
    """The transfer side of the store port."""

    def kept_episodes(self, namespace: str, after: int, limit: int) -> list[KeptEpisode]:
        with self._session:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS}, key FROM episodes WHERE namespace = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (namespace, after, limit),
            ).fetchall()
            ids = [int(row[0]) for row in rows]
            sources: dict[int, list[int]] = {}
            for episode_id, source in self._db.execute(
                "SELECT episode_id, source_id FROM derivations "
                f"WHERE episode_id IN ({placeholders(ids)}) ORDER BY source_id",
                ids,
            ):
                sources.setdefault(int(episode_id), []).append(int(source))
            return [
                KeptEpisode(self._episode(row), row[-1], tuple(sources.get(int(row[0]), ())))
                for row in rows
            ]

    def entity_graph(self, namespace: str) -> EntityGraph:
        with self._session:
            db = self._db
            refs: dict[int, EntityRef] = {
                int(i): (key, int(sense))
                for i, key, sense in db.execute(
                    "SELECT id, key, sense FROM entities WHERE namespace = ? ORDER BY id",
                    (namespace,),
                )
            }
            mentions = [
                MentionRow(int(episode), refs[int(entity)], name, kind)
                for episode, entity, name, kind in db.execute(
                    "SELECT m.episode_id, m.entity_id, m.name, m.kind FROM mentions m JOIN "
                    "entities e ON e.id = m.entity_id WHERE e.namespace = ? "
                    "ORDER BY m.episode_id, m.rank, m.entity_id",
                    (namespace,),
                )
            ]
            aliases = sorted(
                (
                    (int(episode), speaker, alias, sorted(self._members_of(audience)), entity)
                    for speaker, alias, audience, episode, entity in db.execute(
                        "SELECT speaker, alias, audience_id, episode_id, entity_id "
                        "FROM entity_aliases WHERE namespace = ?",
                        (namespace,),
                    )
                ),
            )
            associations = sorted(
                (int(a), int(b), sorted(self._members_of(audience)), weight, updated)
                for audience, a, b, weight, updated in db.execute(
                    "SELECT audience_id, a, b, weight, updated_at FROM associations "
                    "WHERE namespace = ?",
                    (namespace,),
                )
            )
            reinforcements = [
                ReinforcementRow(
                    self._members_of(audience),
                    tuple(refs[int(e)] for e in json.loads(entities)),
                    float(amount),
                    from_epoch(at),
                    tuple(
                        int(r[0])
                        for r in db.execute(
                            "SELECT episode_id FROM reinforcement_sources "
                            "WHERE reinforcement_id = ? ORDER BY episode_id",
                            (logged,),
                        )
                    ),
                )
                for logged, audience, entities, amount, at in db.execute(
                    "SELECT id, audience_id, entities, amount, at FROM reinforcements "
                    "WHERE namespace = ? ORDER BY id",
                    (namespace,),
                ).fetchall()
            ]
        return EntityGraph(
            entities=tuple(refs.values()),
            mentions=tuple(mentions),
            aliases=tuple(
                AliasRow(speaker, alias, frozenset(audience), episode or None, refs[entity])
                for episode, speaker, alias, audience, entity in aliases
            ),
            associations=tuple(
                AssociationRow(frozenset(audience), refs[a], refs[b], weight, from_epoch(at))
                for a, b, audience, weight, at in associations
            ),
            reinforcements=tuple(reinforcements),
        )

    def job_positions(self, namespace: str) -> dict[str, int]:
        with self._session:
            rows = self._db.execute(
                "SELECT job, position FROM job_cursors WHERE namespace = ? ORDER BY job",
                (namespace,),
            ).fetchall()
        return {job: int(position) for job, position in rows}

    def add_audiences(self, namespace: str, audiences: Sequence[frozenset[str]]) -> None:
        with self._write() as db:
            for audience in audiences:
                self._audience_id(db, namespace, sorted(audience))

    def restore_episodes(self, namespace: str, batch: Sequence[RestoredEpisode]) -> list[int]:
        ids = []
        with self._write() as db:
            fresh: list[Indexed] = []
            for kept in batch:
                message = kept.new.message
                row = db.execute(
                    "SELECT id FROM episodes WHERE namespace = ? AND key = ?",
                    (namespace, message.key),
                ).fetchone()
                if row is not None:
                    ids.append(int(row[0]))
                    continue
                episode_id = self._insert(db, namespace, kept.new, to_epoch(kept.stored_at), fresh)
                db.execute(
                    "UPDATE episodes SET position = ?, updated_at = ? WHERE id = ?",
                    (
                        kept.position,
                        None if kept.updated_at is None else to_epoch(kept.updated_at),
                        episode_id,
                    ),
                )
                ids.append(episode_id)
            self._index_episodes(db, namespace, fresh)
        self._after_write()
        return ids

    def put_entity_graph(self, namespace: str, graph: EntityGraph) -> None:
        with self._write() as db:
            db.executemany(
                "INSERT INTO entities (namespace, key, sense) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [(namespace, key, sense) for key, sense in graph.entities],
            )
            ids: dict[EntityRef, int] = {
                (key, int(sense)): int(i)
                for i, key, sense in db.execute(
                    "SELECT id, key, sense FROM entities WHERE namespace = ?", (namespace,)
                )
            }
            self._put_mentions(db, graph.mentions, ids)
            audience = {a: self._audience_id(db, namespace, sorted(a)) for a in _audiences(graph)}
            db.executemany(
                graph_tables.UPSERT_ALIAS,
                [
                    (
                        namespace,
                        a.speaker,
                        a.alias,
                        audience[a.audience],
                        a.episode_id or 0,
                        ids[a.entity],
                    )
                    for a in graph.aliases
                ],
            )
            db.executemany(
                graph_tables.UPSERT_ASSOCIATION,
                [
                    (
                        namespace,
                        audience[a.audience],
                        min(ids[a.a], ids[a.b]),
                        max(ids[a.a], ids[a.b]),
                        a.weight,
                        to_epoch(a.updated_at),
                    )
                    for a in graph.associations
                ],
            )
            for logged in graph.reinforcements:
                self._put_reinforcement(db, namespace, logged, ids)

    def _put_mentions(
        self, db: Connection, mentions: Sequence[MentionRow], ids: dict[EntityRef, int]
    ) -> None:
        ranks: dict[int, int] = {}
        for mention in mentions:
            rank = ranks[mention.episode_id] = ranks.get(mention.episode_id, -1) + 1
            (audience_id,) = db.execute(
                "SELECT audience_id FROM episodes WHERE id = ?", (mention.episode_id,)
            ).fetchone()
            entity_id = ids[mention.entity]
            if db.execute(
                "INSERT INTO mentions (entity_id, episode_id, audience_id, rank, name, kind) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (entity_id, mention.episode_id, audience_id, rank, mention.name, mention.kind),
            ).rowcount:
                graph_tables.count(db, int(audience_id), entity_id, 1)

    def _put_reinforcement(
        self,
        db: Connection,
        namespace: str,
        logged: ReinforcementRow,
        ids: dict[EntityRef, int],
    ) -> None:
        row = (
            namespace,
            self._audience_id(db, namespace, sorted(logged.audience)),
            json.dumps(sorted(ids[e] for e in logged.entities)),
            logged.amount,
            to_epoch(logged.at),
        )
        found = db.execute(
            "SELECT id FROM reinforcements WHERE namespace = ? AND audience_id = ? AND "
            "entities = ? AND amount = ? AND at = ?",
            row,
        ).fetchone()
        if found is None:
            found = db.execute(
                "INSERT INTO reinforcements (namespace, audience_id, entities, amount, at) "
                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                row,
            ).fetchone()
        db.executemany(
            "INSERT INTO reinforcement_sources VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(episode, found[0]) for episode in logged.sources],
        )

    def put_conversations(self, namespace: str, conversations: Sequence[Conversation]) -> None:
        with self._write() as db:
            db.executemany(
                "INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, id) "
                "DO UPDATE SET started_at = excluded.started_at, last_at = excluded.last_at, "
                "messages = excluded.messages, participants = excluded.participants",
                [
                    (
                        namespace,
                        c.id,
                        to_epoch(c.started_at),
                        to_epoch(c.last_at),
                        c.messages,
                        audience_key(sorted(c.participants)),
                    )
                    for c in conversations
                ],
            )
