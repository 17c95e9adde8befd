"""`check` for a relational store: do the rows derived from messages (claims, mentions,
aliases, replies, diary entries) point at messages that exist, do the audiences hold,
are the vectors of the store's size, and do the backend's search indexes agree with
the messages (each backend adds its own checks)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from functools import partial

from kuzya.store.base import Finding
from kuzya.store.sql.tables import Tables

Check = tuple[str, Callable[[], tuple[int, str]]]  # (what is checked, how many are wrong)


# (check, SQL counting the rows that break it): derived rows must point at live sources
RELATIONS = (
    ("rows whose audience is missing",
     "SELECT (SELECT COUNT(*) FROM episodes WHERE audience_id NOT IN (SELECT id FROM audiences))"
     " + (SELECT COUNT(*) FROM claims WHERE audience_id NOT IN (SELECT id FROM audiences))"
     " + (SELECT COUNT(*) FROM diary WHERE audience_id NOT IN (SELECT id FROM audiences))"),
    ("audiences without members",
     "SELECT COUNT(*) FROM audiences a WHERE NOT EXISTS "
     "(SELECT 1 FROM audience_members m WHERE m.audience_id = a.id)"),
    ("claims of deleted messages",
     "SELECT COUNT(*) FROM claims c WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = c.episode_id)"),
    ("mentions in deleted messages",
     "SELECT COUNT(*) FROM mentions m WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = m.episode_id)"),
    ("aliases taught by deleted messages",
     "SELECT COUNT(*) FROM entity_aliases a WHERE a.episode_id != 0 AND NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = a.episode_id)"),
    ("replies derived from deleted messages",
     "SELECT COUNT(*) FROM derivations d WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = d.source_id) OR NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = d.episode_id)"),
    ("diary entries citing deleted messages",
     "SELECT COUNT(DISTINCT s.diary_id) FROM diary_sources s WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = s.episode_id)"),
)  # fmt: skip

_VECTORS = (("episodes", "embedding"), ("claims", "embedding"), ("claims", "own_embedding"),
            ("diary", "embedding"))  # fmt: skip


class Checks(Tables):
    """Checks of the whole store (every namespace)."""

    _failure: type[Exception]  # the backend's error: a check that meets it counts one problem

    def check(self) -> list[Finding]:
        """Every check with the number of problems it found (0: fine); a check that
        cannot read what it checks counts as one problem, with the backend's words."""
        findings = []
        with self._session:
            checks: list[Check] = [
                *self._index_checks(),
                *((name, partial(self._count, sql)) for name, sql in RELATIONS),
                ("vectors of the store's dimension", self._vector_sizes),
            ]
            for name, run in checks:
                try:
                    findings.append(Finding(name, *run()))
                except self._failure as exc:
                    findings.append(Finding(name, 1, str(exc).strip().splitlines()[0]))
        return findings

    @abstractmethod
    def _index_checks(self) -> Sequence[Check]:
        """The backend's own: its files, and its search indexes against the messages."""

    def _count(self, sql: str) -> tuple[int, str]:
        return int(self._db.execute(sql).fetchone()[0]), ""

    def _vector_sizes(self) -> tuple[int, str]:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()
        if row is None:
            return 0, ""
        size = 4 * int(row[0])
        wrong = sum(
            int(self._db.execute(f"SELECT COUNT(*) FROM {table} WHERE length({column}) != ?",
                                 (size,)).fetchone()[0])
            for table, column in _VECTORS
        )  # fmt: skip
        return wrong, ""
