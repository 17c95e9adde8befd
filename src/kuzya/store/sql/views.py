"""What the entity graph shows a group: names, aliases and entities computed from the
rows learned in audiences the group may see (`visible`, audience ids); None is the
admin view of everything in the namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kuzya.model import Entity
from kuzya.store.sql.tables import Connection, placeholders


def _within(visible: Sequence[int] | None, column: str) -> tuple[str, list[Any]]:
    if visible is None:
        return "", []
    return f" AND {column} IN ({placeholders(visible)})", list(visible)


def gazetteer(
    db: Connection, namespace: str, speaker: str, visible: Sequence[int]
) -> dict[str, str]:
    """Alias -> entity key for the names the visible episodes mention, with the aliases
    they taught on top (a merge's, then the speaker's own "my brother"); of two aliases
    the latest wins."""
    where, params = _within(visible, "c.audience_id")
    known = {key: key for (key,) in db.execute(
        "SELECT DISTINCT e.key FROM entity_counts c JOIN entities e ON e.id = c.entity_id "
        f"WHERE e.namespace = ?{where}", (namespace, *params),
    )}  # fmt: skip
    where, params = _within(visible, "a.audience_id")
    rows = db.execute(
        "SELECT a.speaker, a.alias, e.key FROM entity_aliases a JOIN entities e "
        f"ON e.id = a.entity_id WHERE a.namespace = ? AND a.speaker IN ('', ?){where} "
        "ORDER BY a.episode_id, e.key",
        (namespace, speaker, *params),
    ).fetchall()
    known.update({alias: key for who, alias, key in rows if who == ""})
    known.update({alias: key for who, alias, key in rows if who == speaker})
    return known


def first_written(db: Connection, entity_id: int, visible: Sequence[int] | None) -> tuple[str, str]:
    """The entity's name as first written, and the first kind a mention gave it."""
    where, params = _within(visible, "audience_id")
    name = db.execute(
        f"SELECT name FROM mentions WHERE entity_id = ?{where} ORDER BY episode_id LIMIT 1",
        (entity_id, *params),
    ).fetchone()
    kind = db.execute(
        f"SELECT kind FROM mentions WHERE entity_id = ? AND kind != 'name'{where} "
        "ORDER BY episode_id LIMIT 1",
        (entity_id, *params),
    ).fetchone()
    return ("" if name is None else name[0]), ("name" if kind is None else kind[0])


def entities(db: Connection, namespace: str, visible: Sequence[int] | None) -> list[Entity]:
    """Entities with a visible mention: visible counts, names, kinds and aliases; the
    senses of one name numbered in the order they were made."""
    where, params = _within(visible, "c.audience_id")
    rows = db.execute(
        "SELECT e.id, e.key, SUM(c.mentions) FROM entities e JOIN entity_counts c "
        f"ON c.entity_id = e.id WHERE e.namespace = ?{where} GROUP BY e.id ORDER BY e.id",
        (namespace, *params),
    ).fetchall()
    where, params = _within(visible, "audience_id")
    aliases: dict[int, set[str]] = {}
    for entity_id, alias in db.execute(
        f"SELECT entity_id, alias FROM entity_aliases WHERE namespace = ?{where}",
        (namespace, *params),
    ):
        aliases.setdefault(int(entity_id), set()).add(alias)
    senses: dict[str, int] = {}
    found = []
    for entity_id, key, count in rows:
        name, kind = first_written(db, entity_id, visible)
        sense = senses[key] = senses.get(key, -1) + 1
        found.append(Entity(entity_id, key, name, kind, int(count),
                            frozenset({key, *aliases.get(entity_id, ())}), sense))  # fmt: skip
    return found


def mentioned_in(db: Connection, entity_id: int, visible: Sequence[int] | None) -> list[int]:
    """Episodes of the visible audiences that mention the entity, oldest first."""
    where, params = _within(visible, "audience_id")
    return [int(r[0]) for r in db.execute(
        f"SELECT episode_id FROM mentions WHERE entity_id = ?{where} ORDER BY episode_id",
        (entity_id, *params),
    )]  # fmt: skip
