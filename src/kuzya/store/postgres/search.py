"""The searches of the PostgreSQL store that need its own indexes.

Dense: pgvector. When the privacy filter keeps few rows (the visible audiences hold at
most `EXACT_BELOW` messages) the visible vectors are scored exactly, from the index on
their audience; otherwise the HNSW index is walked with iterative scans, so a selective
filter still fills k results. Full text: postings with their term frequencies, and
BM25 (k1 1.2, b 0.75, SQLite FTS5's) over the namespace's documents."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kuzya.store.base import Hit, Scope
from kuzya.store.postgres.base import PostgresConnection
from kuzya.store.sql.episodes import Indexed
from kuzya.store.sql.reading import EpisodeReads, affordable_terms
from kuzya.store.sql.tables import Connection, placeholders

EXACT_BELOW = 20_000  # visible messages up to which dense search is exact
K1, B = 1.2, 0.75
_TOKEN = re.compile(r"[^\W_]+")  # as FTS5's unicode61 tokenizer splits the terms


def tokens(terms: str) -> list[str]:
    return _TOKEN.findall(terms.lower())


class PostgresSearch(PostgresConnection, EpisodeReads):
    """Indexing episodes for search, and dense and full-text search."""

    def _index_episodes(self, db: Connection, namespace: str, batch: Sequence[Indexed]) -> None:
        """A batch in one statement per table, however many episodes and terms."""
        if not batch:
            return
        postings: list[tuple[int, int, str, int, int]] = []  # episode, audience, term, tf, length
        documents: list[tuple[int, int, int]] = []  # episode, audience, length
        for episode_id, audience_id, new in batch:
            found = tokens(new.terms)
            postings.extend(
                (episode_id, audience_id, t, n, len(found)) for t, n in Counter(found).items()
            )
            documents.append((episode_id, audience_id, len(found)))
        holding = Counter(posting[2] for posting in postings)
        per_audience = Counter(audience for _, audience, _ in documents)
        db.execute(
            "INSERT INTO postings (namespace, term, episode_id, audience_id, tf, length) "
            "SELECT ?, term, episode, audience, tf, length FROM unnest(?::bigint[], ?::bigint[], "
            "?::text[], ?::integer[], ?::integer[]) AS found (episode, audience, term, tf, length)",
            (namespace, *map(list, zip(*postings, strict=True))) if postings else
            (namespace, [], [], [], [], []),
        )  # fmt: skip
        db.execute(
            "INSERT INTO term_stats SELECT ?, term, n FROM unnest(?::text[], ?::integer[]) "
            "AS found (term, n) ON CONFLICT (namespace, term) DO UPDATE "
            "SET documents = term_stats.documents + excluded.documents",
            (namespace, list(holding), list(holding.values())),
        )
        db.execute(
            "INSERT INTO documents SELECT episode, ?, audience, length FROM unnest(?::bigint[], "
            "?::bigint[], ?::integer[]) AS found (episode, audience, length)",
            (namespace, *map(list, zip(*documents, strict=True))),
        )
        db.execute(
            "INSERT INTO namespace_stats VALUES (?, ?, ?) ON CONFLICT (namespace) DO UPDATE "
            "SET documents = namespace_stats.documents + excluded.documents, "
            "length = namespace_stats.length + excluded.length",
            (namespace, len(documents), sum(length for _, _, length in documents)),
        )
        db.execute(
            "INSERT INTO audience_stats SELECT audience, n FROM unnest(?::bigint[], "
            "?::bigint[]) AS found (audience, n) ON CONFLICT (audience_id) DO UPDATE "
            "SET documents = audience_stats.documents + excluded.documents",
            (list(per_audience), list(per_audience.values())),
        )
        db.executemany(
            "INSERT INTO vectors VALUES (?, ?, ?, ?)",
            [(episode_id, namespace, audience_id, new.vector.astype(np.float32))
             for episode_id, audience_id, new in batch],
        )  # fmt: skip

    def _unindex_episode(self, db: Connection, namespace: str, episode_id: int) -> None:
        document = db.execute(
            "DELETE FROM documents WHERE episode_id = ? RETURNING audience_id, length",
            (episode_id,),
        ).fetchone()
        if document is None:
            return
        terms = [row[0] for row in db.execute(
            "DELETE FROM postings WHERE episode_id = ? RETURNING term", (episode_id,)
        )]  # fmt: skip
        db.execute(
            "UPDATE term_stats SET documents = documents - 1 "
            "WHERE namespace = ? AND term = ANY(?::text[])",
            (namespace, sorted(terms)),
        )
        if terms:
            db.execute(
                "DELETE FROM term_stats WHERE namespace = ? AND documents <= 0 "
                f"AND term IN ({placeholders(terms)})",
                (namespace, *terms),
            )
        db.execute(
            "UPDATE namespace_stats SET documents = documents - 1, length = length - ? "
            "WHERE namespace = ?",
            (document[1], namespace),
        )
        db.execute(
            "UPDATE audience_stats SET documents = documents - 1 WHERE audience_id = ?",
            (document[0],),
        )
        db.execute("DELETE FROM vectors WHERE episode_id = ?", (episode_id,))

    def _after_write(self) -> None:
        """PostgreSQL's indexes change with the rows, in the same transaction."""

    # -- dense --------------------------------------------------------------------------

    def dense_search(self, scope: Scope, vector: npt.NDArray[np.float32], k: int) -> list[Hit]:
        visible = self._seen_by(scope)
        query = vector.astype(np.float32)
        with self._session:
            if not visible or k <= 0:
                return []
            rows = self._db.execute(
                "SELECT COALESCE(SUM(documents), 0) FROM audience_stats "
                f"WHERE audience_id IN ({placeholders(visible)})",
                visible,
            ).fetchone()[0]
            within = f"audience_id IN ({placeholders(visible)})"
            if rows <= EXACT_BELOW:  # "+ 0" keeps the planner off the approximate index
                found = self._db.execute(
                    "SELECT episode_id, -(embedding <#> ?) FROM vectors "
                    f"WHERE {within} ORDER BY (embedding <#> ?) + 0 LIMIT ?",
                    (query, *visible, query, k),
                ).fetchall()
            else:
                with self._db.raw.transaction():
                    self._db.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                    self._db.execute(f"SET LOCAL hnsw.ef_search = {max(64, 2 * k)}")
                    found = self._db.execute(
                        "SELECT episode_id, -(embedding <#> ?) FROM vectors "
                        f"WHERE {within} ORDER BY embedding <#> ? LIMIT ?",
                        (query, *visible, query, k),
                    ).fetchall()
        hits = [(int(row[0]), float(row[1])) for row in found]
        return sorted(hits, key=lambda hit: -hit[1])

    def vector_of(self, namespace: str, ids: Sequence[int]) -> dict[int, npt.NDArray[np.float32]]:
        if not ids:
            return {}
        with self._session:
            rows = self._db.execute(  # the search table's copy: in line, not in TOAST
                "SELECT episode_id, embedding FROM vectors "
                f"WHERE namespace = ? AND episode_id IN ({placeholders(ids)})",
                (namespace, *ids),
            ).fetchall()
        return {int(row[0]): row[1].to_numpy().astype(np.float32) for row in rows}

    # -- full text ----------------------------------------------------------------------

    def text_search(self, scope: Scope, terms: Sequence[str], k: int) -> list[Hit]:
        namespace, visible = scope.namespace, self._seen_by(scope)
        unique = sorted({t for term in terms for t in tokens(term)})
        if not unique or k <= 0:
            return []
        with self._session:
            # One statement, so one snapshot: a term never counts more documents than the
            # namespace does while writers commit between reads.
            rows = self._db.execute(
                "SELECT s.documents, s.length, t.term, t.documents FROM namespace_stats s "
                "LEFT JOIN term_stats t ON t.namespace = s.namespace "
                f"AND t.term IN ({placeholders(unique)}) WHERE s.namespace = ?",
                (*unique, namespace),
            ).fetchall()
            if not visible or not rows or rows[0][0] <= 0:
                return []
            stats = rows[0]
            frequency = {row[2]: int(row[3]) for row in rows if row[2] is not None}
            kept = affordable_terms(frequency)
            if not kept:
                return []
            total, average = int(stats[0]), max(1.0, int(stats[1]) / int(stats[0]))
            weights = [(term, _idf(total, frequency[term])) for term in kept]
            values = ", ".join("(?, ?::float8)" for _ in weights)
            rows = self._db.execute(
                f"SELECT p.episode_id, SUM(w.idf * p.tf * {K1 + 1} / (p.tf + {K1} * "
                f"({1 - B} + {B} * p.length / ?::float8))) AS score "
                f"FROM postings p JOIN (VALUES {values}) AS w (term, idf) ON w.term = p.term "
                f"WHERE p.namespace = ? AND p.term IN ({placeholders(kept)}) "
                f"AND p.audience_id IN ({placeholders(visible)}) "
                "GROUP BY p.episode_id ORDER BY score DESC, p.episode_id LIMIT ?",
                (average, *[v for pair in weights for v in pair], namespace, *kept, *visible, k),
            ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def matching(self, scope: Scope, terms: Sequence[str]) -> list[int]:
        namespace, visible = scope.namespace, self._seen_by(scope)
        unique = sorted({t for term in terms for t in tokens(term)})
        if not unique:
            return []
        with self._session:
            if not visible:
                return []
            rows = self._db.execute(
                "SELECT episode_id FROM postings WHERE namespace = ? "
                f"AND term IN ({placeholders(unique)}) "
                f"AND audience_id IN ({placeholders(visible)}) "
                "GROUP BY episode_id HAVING COUNT(*) = ? ORDER BY episode_id",
                (namespace, *unique, *visible, len(unique)),
            ).fetchall()
        return [int(row[0]) for row in rows]


def _idf(total: int, holding: int) -> float:
    """BM25's idf as FTS5 computes it (never below a millionth)."""
    return max(1e-6, math.log((total - holding + 0.5) / (holding + 0.5)))
