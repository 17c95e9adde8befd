"""Entities, their mentions and their associations in the SQLite store.

Associations are kept per audience (the audience of the episodes they were learned
from), so that spreading activation for a group only walks edges its members could have
learned themselves. A weight decays exponentially between updates (half-life) and grows
by one each time the two entities occur together (Hebbian).
"""

from __future__ import annotations

import itertools
import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from kuzya.entities import Mention
from kuzya.store.sqlite_base import placeholders

LATEST_MENTIONS = 200  # per activated entity, in graph search
MOST_ACTIVE = 8  # activated entities whose mentions graph search reads
STRONGEST_EDGES = 300  # associations one step of spreading activation follows


def decayed(weight: float, since: float, now: float, half_life: float) -> float:
    return float(weight * 0.5 ** (max(0.0, now - since) / half_life))


def gazetteer(db: sqlite3.Connection, namespace: str, speaker: str) -> dict[str, str]:
    """Alias -> entity key for the names known in the namespace, with the speaker's own
    relational aliases ("my brother" -> "leo") on top."""
    rows = db.execute(
        "SELECT a.speaker, a.alias, e.key FROM entity_aliases a JOIN entities e "
        "ON e.id = a.entity_id WHERE a.namespace = ? AND a.speaker IN ('', ?)",
        (namespace, speaker),
    ).fetchall()
    known = {alias: key for who, alias, key in rows if who == ""}
    known.update({alias: key for who, alias, key in rows if who == speaker})
    return known


def _new_entity(
    db: sqlite3.Connection, namespace: str, key: str, name: str, kind: str, at: float
) -> int:
    """A new entity, or a new sense of a name that already has one."""
    sense = db.execute(
        "SELECT COALESCE(MAX(sense) + 1, 0) FROM entities WHERE namespace = ? AND key = ?",
        (namespace, key),
    ).fetchone()[0]
    entity_id = db.execute(
        "INSERT INTO entities (namespace, key, sense, name, kind, mentions, first_seen, "
        "last_seen) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
        (namespace, key, sense, name, kind, at, at),
    ).lastrowid
    assert entity_id is not None
    db.execute(
        "INSERT OR IGNORE INTO entity_aliases VALUES (?, '', ?, ?)", (namespace, key, entity_id)
    )
    return entity_id


def _sense(db: sqlite3.Connection, senses: Sequence[int], vector: np.ndarray) -> int:
    """Of several entities sharing a name, the one whose recent mentions are most like
    this message."""
    best, best_score = senses[0], -2.0
    for entity_id in senses:
        rows = db.execute(
            "SELECT e.embedding FROM mentions m JOIN episodes e ON e.id = m.episode_id "
            "WHERE m.entity_id = ? ORDER BY m.episode_id DESC LIMIT 50",
            (entity_id,),
        ).fetchall()
        if not rows:
            continue
        centroid = np.mean([np.frombuffer(r[0], dtype=np.float32) for r in rows], axis=0)
        score = float(centroid @ vector) / (float(np.linalg.norm(centroid)) or 1.0)
        if score > best_score:
            best, best_score = entity_id, score
    return best


def _entity(
    db: sqlite3.Connection,
    namespace: str,
    mention: Mention,
    speaker: str,
    said_at: float,
    vector: np.ndarray,
) -> int:
    senses = [
        int(r[0])
        for r in db.execute(
            "SELECT id FROM entities WHERE namespace = ? AND key = ? ORDER BY sense",
            (namespace, mention.key),
        )
    ]
    if not senses:
        entity_id = _new_entity(db, namespace, mention.key, mention.name, mention.kind, said_at)
        db.execute("UPDATE entities SET mentions = 1 WHERE id = ?", (entity_id,))
    else:
        entity_id = senses[0] if len(senses) == 1 else _sense(db, senses, vector)
        db.execute(
            "UPDATE entities SET mentions = mentions + 1, last_seen = max(last_seen, ?), "
            "kind = CASE WHEN kind = 'name' THEN ? ELSE kind END WHERE id = ?",
            (said_at, mention.kind, entity_id),
        )
    if mention.relation:
        db.execute(
            "INSERT OR REPLACE INTO entity_aliases VALUES (?, ?, ?, ?)",
            (namespace, speaker, f"my {mention.relation}", entity_id),
        )
    return entity_id


def record(
    db: sqlite3.Connection,
    namespace: str,
    episode_id: int,
    audience_id: int,
    speaker: str,
    said_at: float,
    found: Sequence[Mention],
    vector: np.ndarray,
    half_life: float,
) -> None:
    """Link an episode to its entities and strengthen the associations among them."""
    ids = sorted({_entity(db, namespace, m, speaker, said_at, vector) for m in found})
    db.executemany("INSERT OR IGNORE INTO mentions VALUES (?, ?)", [(i, episode_id) for i in ids])
    strengthen(db, namespace, audience_id, itertools.combinations(ids, 2), said_at, 1.0,
               half_life)  # fmt: skip


def add_mentions(
    db: sqlite3.Connection,
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
    linked = dict(db.execute(
        "SELECT e.key, e.id FROM mentions m JOIN entities e ON e.id = m.entity_id "
        "WHERE m.episode_id = ?", (episode_id,),
    ).fetchall())  # fmt: skip
    vector = np.frombuffer(embedding, dtype=np.float32)
    new: set[int] = set()
    for mention in {m.key: m for m in found if m.key and m.key not in linked}.values():
        new.add(_entity(db, namespace, mention, speaker, said_at, vector))
    new -= set(linked.values())
    db.executemany("INSERT OR IGNORE INTO mentions VALUES (?, ?)", [(i, episode_id) for i in new])
    old = sorted(set(linked.values()))
    pairs = [*itertools.combinations(sorted(new), 2), *itertools.product(sorted(new), old)]
    strengthen(db, namespace, audience_id, pairs, said_at, 1.0, half_life)
    return len(new)


def set_kinds(db: sqlite3.Connection, namespace: str, kinds: Mapping[str, str]) -> int:
    """Give entities still of the generic kind ("name") a kind by key; returns how many."""
    typed = 0
    for key, kind in kinds.items():
        typed += db.execute(
            "UPDATE entities SET kind = ? WHERE namespace = ? AND key = ? AND kind = 'name'",
            (kind, namespace, key),
        ).rowcount
    return typed


def strengthen(
    db: sqlite3.Connection,
    namespace: str,
    audience_id: int,
    pairs: Iterable[tuple[int, int]],
    now: float,
    amount: float,
    half_life: float,
) -> None:
    for a, b in pairs:
        a, b = min(a, b), max(a, b)
        row = db.execute(
            "SELECT weight, updated_at FROM associations "
            "WHERE namespace = ? AND audience_id = ? AND a = ? AND b = ?",
            (namespace, audience_id, a, b),
        ).fetchone()
        weight = amount + (0.0 if row is None else decayed(row[0], row[1], now, half_life))
        updated = now if row is None else max(now, row[1])
        db.execute(
            "INSERT OR REPLACE INTO associations VALUES (?, ?, ?, ?, ?, ?)",
            (namespace, audience_id, a, b, weight, updated),
        )


def entity_ids(db: sqlite3.Connection, namespace: str, keys: Sequence[str]) -> dict[int, int]:
    """Entity id -> mention count for the given keys."""
    if not keys:
        return {}
    rows = db.execute(
        f"SELECT id, mentions FROM entities WHERE namespace = ? AND key IN ({placeholders(keys)})",
        (namespace, *keys),
    )
    return {int(r[0]): int(r[1]) for r in rows}


def entities_of(db: sqlite3.Connection, episode_ids: Sequence[int]) -> dict[int, list[int]]:
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


def spread(
    db: sqlite3.Connection,
    namespace: str,
    seeds: Mapping[int, float],
    visible: Sequence[int],
    now: float,
    half_life: float,
) -> dict[int, float]:
    """One step of spreading activation over the associations the audience may use.

    What an entity passes on is divided by its total association weight, so that a hub
    linked to everything hands each neighbour only a little. Only the strongest edges
    (by stored weight) are followed.
    """
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
    out_weight: dict[int, float] = {}
    edges: list[tuple[int, int, float]] = []
    for a, b, weight, updated in rows:
        w = decayed(weight, updated, now, half_life)
        for source, target in ((a, b), (b, a)):
            if source in seeds:
                edges.append((source, target, w))
                out_weight[source] = out_weight.get(source, 0.0) + w
    activation = dict(seeds)
    for source, target, w in edges:
        share = seeds[source] * w / (1.0 + out_weight[source])
        activation[target] = activation.get(target, 0.0) + share
    return activation


def episodes_of(
    db: sqlite3.Connection,
    namespace: str,
    activation: Mapping[int, float],
    visible: Sequence[int],
    k: int,
) -> list[tuple[int, float]]:
    """Visible episodes that mention activated entities, scored by the activation they
    carry, rarer entities counting more."""
    if not activation or not visible:
        return []
    scores: dict[int, float] = {}
    strongest = sorted(activation.items(), key=lambda pair: -pair[1])[:MOST_ACTIVE]
    for entity_id, strength in strongest:
        # Only the latest mentions of each entity are read: a hub costs no more.
        count = db.execute("SELECT mentions FROM entities WHERE id = ?", (entity_id,)).fetchone()
        rows = db.execute(
            "SELECT m.episode_id FROM (SELECT episode_id FROM mentions WHERE entity_id = ? "
            "ORDER BY episode_id DESC LIMIT ?) m JOIN episodes e ON e.id = m.episode_id "
            f"WHERE e.namespace = ? AND +e.audience_id IN ({placeholders(visible)})",
            (entity_id, LATEST_MENTIONS, namespace, *visible),
        ).fetchall()
        for (episode_id,) in rows:
            score = strength / math.log(2.0 + (count[0] if count else 0))
            scores[int(episode_id)] = scores.get(int(episode_id), 0.0) + score
    return sorted(scores.items(), key=lambda pair: -pair[1])[:k]


def prune(
    db: sqlite3.Connection, namespace: str, now: float, half_life: float, below: float
) -> int:
    """Delete associations whose decayed weight fell below `below`; returns how many."""
    weak = [
        (audience, a, b)
        for audience, a, b, weight, updated in db.execute(
            "SELECT audience_id, a, b, weight, updated_at FROM associations WHERE namespace = ?",
            (namespace,),
        ).fetchall()
        if decayed(weight, updated, now, half_life) < below
    ]
    db.executemany(
        "DELETE FROM associations WHERE namespace = ? AND audience_id = ? AND a = ? AND b = ?",
        [(namespace, *edge) for edge in weak],
    )
    return len(weak)


def forget_mentions(db: sqlite3.Connection, episode_id: int) -> None:
    """Unlink an episode; an entity no longer mentioned anywhere is erased with its
    aliases and associations (its name must not outlive the words it came from)."""
    ids = [int(r[0]) for r in db.execute(
        "SELECT entity_id FROM mentions WHERE episode_id = ?", (episode_id,)
    )]  # fmt: skip
    db.execute("DELETE FROM mentions WHERE episode_id = ?", (episode_id,))
    if not ids:
        return
    db.execute(
        f"UPDATE entities SET mentions = mentions - 1 WHERE id IN ({placeholders(ids)})", ids
    )
    orphans = [int(r[0]) for r in db.execute(
        f"SELECT id FROM entities WHERE id IN ({placeholders(ids)}) AND mentions <= 0", ids
    )]  # fmt: skip
    if orphans:
        marks = placeholders(orphans)
        db.execute(f"DELETE FROM entity_aliases WHERE entity_id IN ({marks})", orphans)
        db.execute(f"DELETE FROM associations WHERE a IN ({marks}) OR b IN ({marks})", orphans * 2)
        db.execute(f"DELETE FROM entities WHERE id IN ({marks})", orphans)
        db.execute(f"DELETE FROM entity_history WHERE entity_id IN ({marks})", orphans)


def entity_rows(
    db: sqlite3.Connection, namespace: str
) -> list[tuple[int, str, int, str, str, int]]:
    """(id, key, sense, name, kind, mentions) of every entity in the namespace."""
    return [
        (int(r[0]), r[1], int(r[2]), r[3], r[4], int(r[5]))
        for r in db.execute(
            "SELECT id, key, sense, name, kind, mentions FROM entities WHERE namespace = ? "
            "ORDER BY id",
            (namespace,),
        )
    ]


def split(
    db: sqlite3.Connection, namespace: str, entity_id: int, episodes: Sequence[int], now: float
) -> int:
    """Give the mentions in `episodes` to a new sense of the entity's name; returns its id."""
    key, name, kind = db.execute(
        "SELECT key, name, kind FROM entities WHERE id = ?", (entity_id,)
    ).fetchone()
    new_id = _new_entity(db, namespace, key, name, kind, now)
    db.executemany(
        "UPDATE mentions SET entity_id = ? WHERE entity_id = ? AND episode_id = ?",
        [(new_id, entity_id, e) for e in episodes],
    )
    _recount(db, entity_id)
    _recount(db, new_id)
    return new_id


def mentioned_in(db: sqlite3.Connection, entity_id: int) -> list[int]:
    return [
        int(r[0])
        for r in db.execute(
            "SELECT episode_id FROM mentions WHERE entity_id = ? ORDER BY episode_id",
            (entity_id,),
        )
    ]


def merge(db: sqlite3.Connection, namespace: str, source: int, target: int) -> dict[str, Any]:
    """Fold `source` into `target`: its mentions, aliases and associations move over.
    Returns what `unmerge` needs to undo it."""
    name, key, kind = db.execute(
        "SELECT name, key, kind FROM entities WHERE id = ?", (source,)
    ).fetchone()
    undo = {
        "name": name,
        "key": key,
        "kind": kind,
        "episodes": mentioned_in(db, source),
        "target_episodes": mentioned_in(db, target),
        "aliases": [list(row) for row in db.execute(
            "SELECT speaker, alias FROM entity_aliases WHERE entity_id = ?", (source,)
        )],
    }  # fmt: skip
    edges = db.execute(
        "SELECT audience_id, a, b, weight, updated_at FROM associations "
        "WHERE namespace = ? AND (a = ? OR b = ?)",
        (namespace, source, source),
    ).fetchall()
    db.executemany(
        "INSERT OR IGNORE INTO mentions VALUES (?, ?)", [(target, e) for e in undo["episodes"]]
    )
    db.execute("DELETE FROM mentions WHERE entity_id = ?", (source,))
    db.execute("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?", (target, source))
    db.execute(
        "DELETE FROM associations WHERE namespace = ? AND (a = ? OR b = ?)",
        (namespace, source, source),
    )
    for audience, a, b, weight, updated in edges:
        other = b if a == source else a
        if other != target:
            db.execute(
                "INSERT INTO associations VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                "weight = weight + excluded.weight, "
                "updated_at = max(updated_at, excluded.updated_at)",
                (namespace, audience, min(other, target), max(other, target), weight, updated),
            )
    _recount(db, target)
    db.execute("DELETE FROM entities WHERE id = ?", (source,))
    return undo


def unmerge(
    db: sqlite3.Connection, namespace: str, target: int, undo: Mapping[str, Any], now: float
) -> int:
    """Split a merged entity out again; returns its new id. It gets back its aliases and
    the episodes it was mentioned in before the merge; associations stay with the target."""
    episodes = [int(e) for e in undo["episodes"]]
    entity_id = _new_entity(db, namespace, undo["key"], undo["name"], undo["kind"], now)
    db.executemany(
        "UPDATE entity_aliases SET entity_id = ? WHERE namespace = ? AND speaker = ? AND alias = ?",
        [(entity_id, namespace, speaker, alias) for speaker, alias in undo["aliases"]],
    )
    db.executemany(
        "INSERT OR IGNORE INTO mentions VALUES (?, ?)", [(entity_id, e) for e in episodes]
    )
    only_source = set(episodes) - {int(e) for e in undo["target_episodes"]}
    db.executemany(
        "DELETE FROM mentions WHERE entity_id = ? AND episode_id = ?",
        [(target, e) for e in sorted(only_source)],
    )
    _recount(db, target)
    _recount(db, entity_id)
    return entity_id


def _recount(db: sqlite3.Connection, entity_id: int) -> None:
    db.execute(
        "UPDATE entities SET mentions = (SELECT COUNT(*) FROM mentions WHERE entity_id = ?) "
        "WHERE id = ?",
        (entity_id, entity_id),
    )
