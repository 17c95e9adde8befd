"""Merging two names of one entity and splitting one name used for two, in the SQLite
store. A decision applies to the mentions of the given audiences only (None: all), so
nobody outside them sees its effect; the associations the moved mentions gave go with
them, and later messages follow it (a merged name becomes an alias in those audiences;
a new sense is chosen by the context of its mentions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kuzya.store.sql import graph, views
from kuzya.store.sql.tables import Connection, placeholders


def move_mentions(
    db: Connection, episodes: Sequence[int], source: int, target: int, half_life: float
) -> None:
    """The mentions of `source` in these episodes become mentions of `target` (dropped
    where the episode names `target` too), associations following them."""
    for episode_id in episodes:
        row = db.execute(
            "SELECT audience_id FROM mentions WHERE entity_id = ? AND episode_id = ?",
            (source, episode_id),
        ).fetchone()
        if row is None:
            continue
        graph.contribute(db, episode_id, -1.0, half_life)
        moved = db.execute(
            "UPDATE mentions SET entity_id = ? WHERE entity_id = ? AND episode_id = ? "
            "AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = ? AND m.episode_id = ?)",
            (target, source, episode_id, target, episode_id),
        ).rowcount
        db.execute(
            "DELETE FROM mentions WHERE entity_id = ? AND episode_id = ?", (source, episode_id)
        )
        graph.count(db, row[0], source, -1)
        if moved:
            graph.count(db, row[0], target, 1)
        graph.contribute(db, episode_id, 1.0, half_life)


def _key(db: Connection, entity_id: int) -> str:
    return str(db.execute("SELECT key FROM entities WHERE id = ?", (entity_id,)).fetchone()[0])


def merge(
    db: Connection,
    namespace: str,
    source: int,
    target: int,
    audiences: Sequence[int] | None,
    half_life: float,
) -> dict[str, Any]:
    """Fold the mentions of `source` in these audiences into `target`, with their aliases;
    there its name becomes an alias of `target`, taught by the episodes that said it (it
    goes with the last of them). `source` is erased if nothing else mentions it. Returns
    what `unmerge` needs."""
    moved = {int(e): int(a) for e, a in db.execute(
        "SELECT episode_id, audience_id FROM mentions WHERE entity_id = ? ORDER BY episode_id",
        (source,),
    ) if audiences is None or a in audiences}  # fmt: skip
    episodes, moved_audiences = list(moved), sorted(set(moved.values()))
    undo: dict[str, Any] = {
        "source": source,
        "key": _key(db, source),
        "name": views.first_written(db, source, moved_audiences)[0],
        "episodes": episodes,
        # episodes that named both keep only the target
        "shared": sorted(set(views.mentioned_in(db, target, None)) & set(episodes)),
        "aliases": [list(r) for r in db.execute(
            "SELECT speaker, alias, audience_id, episode_id FROM entity_aliases "
            f"WHERE entity_id = ? AND audience_id IN ({placeholders(moved_audiences)})",
            (source, *moved_audiences),
        )],
    }  # fmt: skip
    move_mentions(db, episodes, source, target, half_life)
    _retarget(db, namespace, undo["aliases"], target)
    if undo["key"] != _key(db, target):
        db.executemany(
            graph.UPSERT_ALIAS,
            [(namespace, "", undo["key"], moved[e], e, target) for e in episodes],
        )
    graph.erase_unmentioned(db, namespace, [source])
    return undo


def _retarget(
    db: Connection, namespace: str, aliases: Sequence[Sequence[Any]], entity_id: int
) -> None:
    db.executemany(
        "UPDATE entity_aliases SET entity_id = ? WHERE namespace = ? AND speaker = ? "
        "AND alias = ? AND audience_id = ? AND episode_id = ?",
        [(entity_id, namespace, *alias) for alias in aliases],
    )


def unmerge(
    db: Connection, namespace: str, target: int, undo: Mapping[str, Any], half_life: float
) -> int:
    """Give a merged entity back the mentions and aliases it had before the merge;
    returns its id (a new one if it was erased). Later mentions stay with the target."""
    source = int(undo["source"])
    if db.execute("SELECT 1 FROM entities WHERE id = ?", (source,)).fetchone() is None:
        source = graph.new_entity(db, namespace, undo["key"])
    shared = {int(e) for e in undo["shared"]}
    move_mentions(db, [int(e) for e in undo["episodes"] if int(e) not in shared], target,
                  source, half_life)  # fmt: skip
    _retarget(db, namespace, undo["aliases"], source)
    db.executemany(
        "DELETE FROM entity_aliases WHERE namespace = ? AND speaker = '' AND alias = ? "
        "AND episode_id = ? AND entity_id = ?",
        [(namespace, undo["key"], episode, target) for episode in undo["episodes"]],
    )
    return source


def split(
    db: Connection,
    namespace: str,
    entity_id: int,
    episodes: Sequence[int],
    audiences: Sequence[int] | None,
    half_life: float,
) -> int | None:
    """Give the mentions in `episodes` (of these audiences) to a new sense of the
    entity's name; returns its id, or None when none of them is there to move."""
    chosen = sorted(set(episodes) & set(views.mentioned_in(db, entity_id, audiences)))
    if not chosen:
        return None
    new_id = graph.new_entity(db, namespace, _key(db, entity_id))
    move_mentions(db, chosen, entity_id, new_id, half_life)
    return new_id
