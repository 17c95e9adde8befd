"""Entities, their mentions and their associations in the SQLite store.

Every derived row carries the audience of the episodes it was learned from: a mention
its episode's audience (with the name and kind as written there), a relation alias the
audience and episode that taught it, an association the audience of the episodes whose
names it links. What a group is shown is computed from the rows its members may see
(`kuzya.store.sql.views`).

The rules that weigh and spread associations are `kuzya.entities.graph`'s; here they
meet the tables.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from kuzya.entities.graph import (
    LATEST_MENTIONS,
    SENSE_MENTIONS,
    STRONGEST_EDGES,
    added,
    decayed,
    episode_scores,
    linked_pairs,
    most_active,
    nearest_sense,
    ordered,
    spread,
)
from kuzya.entities.mentions import MAX_NAMES
from kuzya.model import Mention
from kuzya.store.sql.tables import (
    PER_AUDIENCE,
    Connection,
    newest_per_audience,
    placeholders,
    visible_audiences,
)

UPSERT_ASSOCIATION = (
    "INSERT INTO associations VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, audience_id, a, b) "
    "DO UPDATE SET weight = excluded.weight, updated_at = excluded.updated_at"
)
UPSERT_ALIAS = (
    "INSERT INTO entity_aliases VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, speaker, "
    "alias, audience_id, episode_id) DO UPDATE SET entity_id = excluded.entity_id"
)


def strengthen(
    db: Connection,
    namespace: str,
    audience_id: int,
    pairs: Iterable[tuple[int, int]],
    at: float,
    amount: float,
    half_life: float,
) -> None:
    """Add `amount` made at `at` to each pair's weight; a negative amount takes an
    earlier addition back (a weight that falls to nothing is dropped)."""
    for a, b in ordered(pairs):
        row = db.execute(
            "SELECT weight, updated_at FROM associations "
            "WHERE namespace = ? AND audience_id = ? AND a = ? AND b = ?",
            (namespace, audience_id, a, b),
        ).fetchone()
        kept = added(None if row is None else (row[0], row[1]), amount, at, half_life)
        if kept is None and row is not None:
            db.execute(
                "DELETE FROM associations WHERE namespace = ? AND audience_id = ? AND a = ? "
                "AND b = ?",
                (namespace, audience_id, a, b),
            )
        elif kept is not None:
            db.execute(UPSERT_ASSOCIATION, (namespace, audience_id, a, b, *kept))


def contribute(db: Connection, episode_id: int, sign: float, half_life: float) -> None:
    """Add (+1) or take back (-1) what an episode's mentions give the associations."""
    row = db.execute(
        "SELECT namespace, audience_id, said_at FROM episodes WHERE id = ?", (episode_id,)
    ).fetchone()
    if row is None:
        return
    ids = [int(r[0]) for r in db.execute(
        "SELECT entity_id FROM mentions WHERE episode_id = ? ORDER BY rank, entity_id",
        (episode_id,),
    )]  # fmt: skip
    strengthen(db, row[0], int(row[1]), linked_pairs(ids), row[2], sign, half_life)


def count(db: Connection, audience_id: int, entity_id: int, delta: int) -> None:
    """Keep the mention count of an entity in an audience (no row: none)."""
    db.execute(
        "INSERT INTO entity_counts VALUES (?, ?, ?) ON CONFLICT (audience_id, entity_id) DO UPDATE "
        "SET mentions = entity_counts.mentions + excluded.mentions",
        (audience_id, entity_id, delta),
    )
    if delta < 0:
        db.execute(
            "DELETE FROM entity_counts WHERE audience_id = ? AND entity_id = ? AND mentions <= 0",
            (audience_id, entity_id),
        )


def new_entity(db: Connection, namespace: str, key: str) -> int:
    """A new entity, or a new sense of a name that already has one."""
    sense = db.execute(
        "SELECT COALESCE(MAX(sense) + 1, 0) FROM entities WHERE namespace = ? AND key = ?",
        (namespace, key),
    ).fetchone()[0]
    entity_id = db.execute(
        "INSERT INTO entities (namespace, key, sense) VALUES (?, ?, ?) RETURNING id",
        (namespace, key, sense),
    ).fetchone()[0]
    return int(entity_id)


def _supersets(db: Connection, audience_id: int) -> list[int]:
    """Audiences that include everyone of this one: what its members may all see."""
    namespace = db.execute("SELECT namespace FROM audiences WHERE id = ?", (audience_id,))
    members = db.execute(
        "SELECT participant FROM audience_members WHERE audience_id = ?", (audience_id,)
    )
    return visible_audiences(db, namespace.fetchone()[0], [r[0] for r in members])


def _sense(db: Connection, senses: Sequence[int], vector: np.ndarray, audience_id: int) -> int:
    """Of several entities sharing a name, the one whose recent mentions (those the
    message's audience may see) are most like this message."""
    visible = _supersets(db, audience_id)
    query = (
        "SELECT e.embedding FROM mentions m JOIN episodes e ON e.id = m.episode_id "
        f"WHERE m.entity_id = ? AND m.audience_id IN ({placeholders(visible)}) "
        "ORDER BY m.episode_id DESC LIMIT ?"
    )
    recent = {
        entity_id: [np.frombuffer(row[0], dtype=np.float32)
                    for row in db.execute(query, (entity_id, *visible, SENSE_MENTIONS))]
        for entity_id in senses
    }  # fmt: skip
    best = nearest_sense(recent, vector)
    return senses[0] if best is None else best


def _entity(
    db: Connection,
    namespace: str,
    mention: Mention,
    episode: tuple[int, int, str],
    vector: np.ndarray,
) -> int:
    """The entity a mention in episode (id, audience, speaker) stands for; a relation
    ("my brother Leo") becomes the speaker's alias in that audience."""
    episode_id, audience_id, speaker = episode
    senses = [int(r[0]) for r in db.execute(
        "SELECT id FROM entities WHERE namespace = ? AND key = ? ORDER BY sense",
        (namespace, mention.key),
    )]  # fmt: skip
    if not senses:
        entity_id = new_entity(db, namespace, mention.key)
    else:
        entity_id = senses[0] if len(senses) == 1 else _sense(db, senses, vector, audience_id)
    if mention.relation:
        db.execute(
            UPSERT_ALIAS,
            (namespace, speaker, f"my {mention.relation}", audience_id, episode_id, entity_id),
        )
    return entity_id


def _link(
    db: Connection,
    linked: Mapping[int, Mention],
    episode_id: int,
    audience_id: int,
    first_rank: int,
) -> None:
    db.executemany(
        "INSERT INTO mentions (entity_id, episode_id, audience_id, rank, name, kind) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(entity_id, episode_id, audience_id, first_rank + rank, m.name, m.kind)
         for rank, (entity_id, m) in enumerate(linked.items())],
    )  # fmt: skip
    for entity_id in linked:
        count(db, audience_id, entity_id, 1)


def record(
    db: Connection,
    namespace: str,
    episode: tuple[int, int, str],
    said_at: float,
    found: Sequence[Mention],
    vector: np.ndarray,
    half_life: float,
) -> None:
    """Link an episode (id, audience, speaker) to its entities and strengthen the
    associations among them."""
    linked: dict[int, Mention] = {}
    for mention in found[:MAX_NAMES]:
        linked.setdefault(_entity(db, namespace, mention, episode, vector), mention)
    _link(db, linked, episode[0], episode[1], 0)
    strengthen(db, namespace, episode[1], linked_pairs(list(linked)), said_at, 1.0, half_life)


def add_mentions(
    db: Connection,
    namespace: str,
    episode_id: int,
    found: Sequence[Mention],
    half_life: float,
) -> int:
    """Link a stored episode to the entities of `found` it does not mention yet (found
    later, by a model); only the new pairs are strengthened. Returns the new links."""
    row = db.execute(
        "SELECT audience_id, speaker, said_at, embedding FROM episodes "
        "WHERE namespace = ? AND id = ?",
        (namespace, episode_id),
    ).fetchone()
    if row is None:
        return 0
    audience_id, speaker, said_at, embedding = row
    old = {key: int(i) for key, i in db.execute(
        "SELECT e.key, e.id FROM mentions m JOIN entities e ON e.id = m.entity_id "
        "WHERE m.episode_id = ? ORDER BY m.rank, m.entity_id", (episode_id,),
    )}  # fmt: skip
    fresh = list({m.key: m for m in found if m.key and m.key not in old}.values())
    vector = np.frombuffer(embedding, dtype=np.float32)
    linked: dict[int, Mention] = {}
    for mention in fresh[: max(0, MAX_NAMES - len(old))]:
        entity_id = _entity(db, namespace, mention, (episode_id, audience_id, speaker), vector)
        if entity_id not in old.values():
            linked.setdefault(entity_id, mention)
    _link(db, linked, episode_id, audience_id, len(old))
    before = list(old.values())
    pairs = set(linked_pairs([*before, *linked])) - set(linked_pairs(before))
    strengthen(db, namespace, audience_id, sorted(pairs), said_at, 1.0, half_life)
    return len(linked)


def set_kinds(db: Connection, namespace: str, episode_id: int, kinds: Mapping[str, str]) -> int:
    """Give an episode's mentions still of the generic kind ("name") a kind by key;
    returns how many."""
    typed = 0
    for key, kind in kinds.items():
        typed += db.execute(
            "UPDATE mentions SET kind = ? WHERE episode_id = ? AND kind = 'name' AND entity_id "
            "IN (SELECT id FROM entities WHERE namespace = ? AND key = ?)",
            (kind, episode_id, namespace, key),
        ).rowcount
    return typed


def reinforce(
    db: Connection,
    namespace: str,
    audience_id: int,
    episode_ids: Sequence[int],
    now: float,
    half_life: float,
) -> None:
    """Strengthen (by a half) the associations among the entities of these episodes,
    logged so that deleting one of them takes it back."""
    by_episode = entities_of(db, episode_ids)
    together = sorted({e for ids in by_episode.values() for e in ids})
    if len(together) < 2:
        return
    logged = db.execute(
        "INSERT INTO reinforcements (namespace, audience_id, entities, amount, at) "
        "VALUES (?, ?, ?, 0.5, ?) RETURNING id",
        (namespace, audience_id, json.dumps(together), now),
    ).fetchone()[0]
    db.executemany(
        "INSERT INTO reinforcement_sources VALUES (?, ?)", [(e, logged) for e in by_episode]
    )
    pairs = itertools.combinations(together, 2)
    strengthen(db, namespace, audience_id, pairs, now, 0.5, half_life)


def _take_back_reinforcements(db: Connection, episode_id: int, half_life: float) -> None:
    rows = db.execute(
        "SELECT r.id, r.namespace, r.audience_id, r.entities, r.amount, r.at "
        "FROM reinforcements r JOIN reinforcement_sources s ON s.reinforcement_id = r.id "
        "WHERE s.episode_id = ?",
        (episode_id,),
    ).fetchall()
    for logged, namespace, audience_id, ids, amount, at in rows:
        pairs = itertools.combinations(json.loads(ids), 2)
        strengthen(db, namespace, audience_id, pairs, at, -amount, half_life)
        db.execute("DELETE FROM reinforcement_sources WHERE reinforcement_id = ?", (logged,))
        db.execute("DELETE FROM reinforcements WHERE id = ?", (logged,))


def forget_mentions(db: Connection, episode_id: int, half_life: float) -> None:
    """Unlink a stored episode and take back what it added: its associations (also those
    of recalls it was part of), the aliases it taught; an entity no longer mentioned
    anywhere is erased (its name must not outlive the words it came from)."""
    contribute(db, episode_id, -1.0, half_life)
    _take_back_reinforcements(db, episode_id, half_life)
    db.execute("DELETE FROM entity_aliases WHERE episode_id = ?", (episode_id,))
    rows = db.execute(
        "SELECT m.entity_id, m.audience_id, e.namespace FROM mentions m "
        "JOIN entities e ON e.id = m.entity_id WHERE m.episode_id = ?",
        (episode_id,),
    ).fetchall()
    db.execute("DELETE FROM mentions WHERE episode_id = ?", (episode_id,))
    for entity_id, audience_id, _ in rows:
        count(db, audience_id, entity_id, -1)
    if rows:
        erase_unmentioned(db, rows[0][2], [int(r[0]) for r in rows])


def erase_unmentioned(db: Connection, namespace: str, ids: Sequence[int]) -> None:
    """Erase those of the entities no episode mentions, with everything about them."""
    orphans = [i for i in ids if db.execute(
        "SELECT 1 FROM entity_counts WHERE entity_id = ? LIMIT 1", (i,)
    ).fetchone() is None]  # fmt: skip
    if not orphans:
        return
    marks = placeholders(orphans)
    db.execute(f"DELETE FROM entity_aliases WHERE entity_id IN ({marks})", orphans)
    db.execute(
        f"DELETE FROM associations WHERE namespace = ? AND (a IN ({marks}) OR b IN ({marks}))",
        (namespace, *orphans, *orphans),
    )
    db.execute(f"DELETE FROM entities WHERE id IN ({marks})", orphans)
    db.execute(f"DELETE FROM entity_history WHERE entity_id IN ({marks})", orphans)


def entity_ids(db: Connection, namespace: str, keys: Sequence[str]) -> list[int]:
    """Ids of the entities (every sense) of the given keys."""
    if not keys:
        return []
    rows = db.execute(
        f"SELECT id FROM entities WHERE namespace = ? AND key IN ({placeholders(keys)})",
        (namespace, *keys),
    )
    return [int(r[0]) for r in rows]


def entities_of(db: Connection, episode_ids: Sequence[int]) -> dict[int, list[int]]:
    if not episode_ids:
        return {}
    found: dict[int, list[int]] = {}
    for entity_id, episode_id in db.execute(
        "SELECT entity_id, episode_id FROM mentions "
        f"WHERE episode_id IN ({placeholders(episode_ids)})",
        episode_ids,
    ):
        found.setdefault(int(episode_id), []).append(int(entity_id))
    return found


def activated(
    db: Connection,
    namespace: str,
    seeds: Mapping[int, float],
    visible: Sequence[int],
    now: float,
    half_life: float,
) -> dict[int, float]:
    """One step of spreading activation over the strongest associations (by stored
    weight) the audience may use."""
    if not seeds or not visible:
        return dict(seeds)
    ids = list(seeds)
    rows = db.execute(
        "SELECT a, b, weight, updated_at FROM associations WHERE namespace = ? "
        f"AND audience_id IN ({placeholders(visible)}) "
        f"AND (a IN ({placeholders(ids)}) OR b IN ({placeholders(ids)})) "
        "ORDER BY weight DESC LIMIT ?",
        (namespace, *visible, *ids, *ids, STRONGEST_EDGES),
    ).fetchall()
    return spread(seeds, rows, now, half_life)


def episodes_of(
    db: Connection, activation: Mapping[int, float], visible: Sequence[int], k: int
) -> list[tuple[int, float]]:
    """Visible episodes that mention activated entities, scored by the activation they
    carry, entities with fewer visible mentions counting more."""
    if not activation or not visible:
        return []
    mentioned = []
    within = f"audience_id IN ({placeholders(visible)})"
    for entity_id, strength in most_active(activation):
        mentions = db.execute(
            f"SELECT COALESCE(SUM(mentions), 0) FROM entity_counts WHERE entity_id = ? "
            f"AND {within}",
            (entity_id, *visible),
        ).fetchone()[0]
        # Only the latest visible mentions of each entity are read: a hub costs no more.
        if len(visible) <= PER_AUDIENCE:
            rows = newest_per_audience(
                db,
                "SELECT episode_id FROM mentions WHERE entity_id = ? AND audience_id = ? "
                "ORDER BY episode_id DESC LIMIT ?",
                (entity_id,), visible, LATEST_MENTIONS, lambda row: row[0],
            )  # fmt: skip
        else:
            rows = db.execute(
                f"SELECT episode_id FROM mentions WHERE entity_id = ? AND {within} "
                "ORDER BY episode_id DESC LIMIT ?",
                (entity_id, *visible, LATEST_MENTIONS),
            ).fetchall()
        mentioned.append((strength, int(mentions), [int(row[0]) for row in rows]))
    return episode_scores(mentioned, k)


def faded(
    db: Connection, namespace: str, now: float, half_life: float, below: float
) -> list[tuple[int, int, int]]:
    """Associations (audience, a, b) whose decayed weight is below `below` at `now`."""
    return [
        (audience, a, b)
        for audience, a, b, weight, updated in db.execute(
            "SELECT audience_id, a, b, weight, updated_at FROM associations WHERE namespace = ?",
            (namespace,),
        ).fetchall()
        if decayed(weight, updated, now, half_life) < below
    ]


def prune(db: Connection, namespace: str, now: float, half_life: float, below: float) -> int:
    """Delete associations whose decayed weight fell below `below`, and the log of
    reinforcements that added less than that by now; returns how many associations."""
    spent = [
        (logged,)
        for logged, amount, at in db.execute(
            "SELECT id, amount, at FROM reinforcements WHERE namespace = ?", (namespace,)
        ).fetchall()
        if decayed(amount, at, now, half_life) < below
    ]
    db.executemany("DELETE FROM reinforcement_sources WHERE reinforcement_id = ?", spent)
    db.executemany("DELETE FROM reinforcements WHERE id = ?", spent)
    weak = faded(db, namespace, now, half_life, below)
    db.executemany(
        "DELETE FROM associations WHERE namespace = ? AND audience_id = ? AND a = ? AND b = ?",
        [(namespace, *edge) for edge in weak],
    )
    return len(weak)
