"""`check` on PostgreSQL: the search tables against the messages they index (vectors,
full-text documents and postings, and the BM25 statistics kept beside them). The
server's own files and indexes are checked with its tools (pg_amcheck)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import psycopg

from kuzya.store.postgres.base import PostgresConnection
from kuzya.store.sql.checks import Check, Checks

# (check, SQL counting the rows that break it)
_INDEXES = (
    ("messages without a full-text document",
     "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
     "(SELECT 1 FROM documents d WHERE d.episode_id = e.id)"),
    ("full-text documents or postings without a message",
     "SELECT (SELECT COUNT(*) FROM documents d WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = d.episode_id)) + "
     "(SELECT COUNT(*) FROM postings p WHERE NOT EXISTS "
     "(SELECT 1 FROM episodes e WHERE e.id = p.episode_id))"),
    ("postings whose length or audience is not their document's",
     "SELECT COUNT(*) FROM postings p JOIN documents d ON d.episode_id = p.episode_id "
     "WHERE p.length != d.length OR p.audience_id != d.audience_id"),
    ("term statistics against the postings",
     "SELECT COUNT(*) FROM (SELECT namespace, term, COUNT(*) AS n FROM postings "
     "GROUP BY namespace, term) p FULL JOIN term_stats t USING (namespace, term) "
     "WHERE COALESCE(p.n, 0) != COALESCE(t.documents, 0)"),
    ("namespace statistics against the documents",
     "SELECT COUNT(*) FROM (SELECT namespace, COUNT(*) AS n, SUM(length) AS words "
     "FROM documents GROUP BY namespace) d FULL JOIN namespace_stats s USING (namespace) "
     "WHERE COALESCE(d.n, 0) != COALESCE(s.documents, 0) "
     "OR COALESCE(d.words, 0) != COALESCE(s.length, 0)"),
    ("audience statistics against the documents",
     "SELECT COUNT(*) FROM (SELECT audience_id, COUNT(*) AS n FROM documents "
     "GROUP BY audience_id) d FULL JOIN audience_stats s USING (audience_id) "
     "WHERE COALESCE(d.n, 0) != COALESCE(s.documents, 0)"),
)  # fmt: skip

_VECTORS = (
    ("messages without a vector",
     "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
     "(SELECT 1 FROM vectors v WHERE v.episode_id = e.id)"),
    ("vectors without a message or of another audience",
     "SELECT COUNT(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM episodes e "
     "WHERE e.id = v.episode_id AND e.audience_id = v.audience_id "
     "AND e.namespace = v.namespace)"),
)  # fmt: skip


class PostgresChecks(Checks, PostgresConnection):
    """Checks of the whole database (every namespace)."""

    _failure = psycopg.Error

    def _index_checks(self) -> Sequence[Check]:
        checks: list[Check] = [(name, partial(self._count, sql)) for name, sql in _INDEXES]
        (vectors,) = self._db.execute("SELECT to_regclass('vectors') IS NOT NULL").fetchone()
        if vectors:  # made when the first embedder is bound
            checks.extend((name, partial(self._count, sql)) for name, sql in _VECTORS)
        return checks
