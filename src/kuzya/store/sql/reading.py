"""Reading episodes, and the searches every relational backend runs the same way:
recency, time windows, neighbouring turns, conversations and history. Every read that
serves people applies the privacy rule (their visible audiences) in its query."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from kuzya.clock import from_epoch, to_epoch
from kuzya.errors import NotFound
from kuzya.model import Attachment, Conversation, Episode, HistoryEvent, Span
from kuzya.store.base import Hit, Scope
from kuzya.store.sql.tables import PER_AUDIENCE, Tables, newest_per_audience, placeholders

EPISODE_COLUMNS = (
    "id, namespace, conversation, speaker, text, attachments, metadata, "
    "said_at, stored_at, updated_at, audience_id, position, events"
)


def _json(value: str) -> Any:
    """JSON text to a value; the common empty cases skip the parser."""
    if value == "[]":
        return []
    return {} if value == "{}" else json.loads(value)


def _events_from_json(value: str) -> tuple[Span, ...]:
    return tuple(
        Span(e["phrase"], from_epoch(e["start"]), from_epoch(e["end"])) for e in _json(value)
    )


# Full-text postings read per query at most: frequent terms carry little weight and
# cost the most, so they are dropped first (bounds latency on large stores).
MAX_POSTINGS = 6_000


def affordable_terms(frequency: dict[str, int]) -> list[str]:
    """Of the query's terms found in the index (term -> documents holding it), the
    rarest first, until the postings to read would exceed the bound."""
    kept: list[str] = []
    postings = 0
    for term in sorted(frequency, key=lambda t: (frequency[t], t)):
        postings += frequency[term]
        if kept and postings > MAX_POSTINGS:
            break
        kept.append(term)
    return kept


class EpisodeReads(Tables):
    """Episode rows as episodes, and the searches that need no index of their own."""

    def _episode(self, row: tuple[Any, ...]) -> Episode:
        attachments = tuple(Attachment(**a) for a in _json(row[5]))
        return Episode(
            id=int(row[0]),
            namespace=row[1],
            conversation=row[2],
            speaker=row[3],
            text=row[4],
            attachments=attachments,
            metadata=_json(row[6]),
            said_at=from_epoch(row[7]),
            stored_at=from_epoch(row[8]),
            updated_at=None if row[9] is None else from_epoch(row[9]),
            audience=self._members_of(int(row[10])),
            position=int(row[11]),
            events=_events_from_json(row[12]),
        )

    def _episodes(
        self, namespace: str, ids: Sequence[int], visible: Sequence[int] | None = None
    ) -> list[Episode]:
        # An expression (namespace || '', +audience_id) keeps the planner on id lookups
        # instead of scanning a namespace index.
        where, params = f"id IN ({placeholders(ids)}) AND namespace || '' = ?", [*ids, namespace]
        if visible is not None:
            where += f" AND +audience_id IN ({placeholders(visible)})"
            params.extend(visible)
        with self._session:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE {where}", params
            ).fetchall()
            by_id = {int(row[0]): self._episode(row) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def recent_search(self, scope: Scope, k: int) -> list[Hit]:
        visible = self._seen_by(scope)
        with self._session:
            if len(visible) <= PER_AUDIENCE:
                rows = newest_per_audience(
                    self._db,
                    "SELECT id, said_at FROM episodes WHERE audience_id = ? "
                    "ORDER BY said_at DESC, id DESC LIMIT ?",
                    (), visible, k, lambda row: (row[1], row[0]),
                )  # fmt: skip
            else:
                rows = self._db.execute(
                    "SELECT id, said_at FROM episodes WHERE namespace = ? "
                    f"AND +audience_id IN ({placeholders(visible)}) "
                    "ORDER BY said_at DESC, id DESC LIMIT ?",
                    (scope.namespace, *visible, k),
                ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def window_search(self, scope: Scope, start: datetime, end: datetime, k: int) -> list[Hit]:
        low, high = to_epoch(start), to_epoch(end)
        visible = self._seen_by(scope)
        with self._session:
            rows = self._db.execute(
                "SELECT id, said_at FROM episodes WHERE namespace = ? AND ("
                "(said_at >= ? AND said_at < ?) OR (event_start < ? AND event_end > ?)) "
                f"AND +audience_id IN ({placeholders(visible)}) ORDER BY said_at DESC LIMIT ?",
                (scope.namespace, low, high, high, low, *visible, k),
            ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def fetch(self, scope: Scope, ids: Sequence[int]) -> list[Episode]:
        visible = self._seen_by(scope)
        return self._episodes(scope.namespace, ids, visible) if ids else []

    def neighbours(self, scope: Scope, episodes: Sequence[Episode], span: int) -> list[Episode]:
        visible = self._seen_by(scope)
        if not episodes or span <= 0:
            return []
        given = {e.id for e in episodes}
        # Each clause matches the (namespace, conversation, position) index on its own, so
        # the planner unions index ranges instead of scanning the namespace.
        around = " OR ".join(
            "(namespace = ? AND conversation = ? AND position BETWEEN ? AND ?)" for _ in episodes
        )
        params: list[Any] = []
        for e in episodes:
            params.extend((scope.namespace, e.conversation, e.position - span, e.position + span))
        with self._session:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE ({around}) "
                f"AND +audience_id IN ({placeholders(visible)})",
                (*params, *visible),
            ).fetchall()
            return [self._episode(row) for row in rows if int(row[0]) not in given]

    def get_episode(self, namespace: str, episode_id: int) -> Episode:
        found = self._episodes(namespace, [episode_id])
        if not found:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return found[0]

    def list_episodes(
        self,
        namespace: str,
        *,
        participants: Sequence[str] | None = None,
        conversation: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]:
        with self._session:
            where, params = self._visible_rows(namespace, participants)
            if conversation is not None:
                where.append("conversation = ?")
                params.append(conversation)
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE {' AND '.join(where)} "
                "ORDER BY said_at, id LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            return [self._episode(row) for row in rows]

    def conversations(
        self, namespace: str, participants: Sequence[str] | None = None
    ) -> list[Conversation]:
        with self._session:
            rows = self._db.execute(
                "SELECT id, participants, started_at, last_at, messages FROM conversations "
                "WHERE namespace = ? ORDER BY last_at DESC, id",
                (namespace,),
            ).fetchall()
        present = set(participants or ())
        found = [
            Conversation(
                r[0], frozenset(json.loads(r[1])), from_epoch(r[2]), from_epoch(r[3]), int(r[4])
            )
            for r in rows
        ]
        return [c for c in found if present <= c.participants]

    def history(
        self, namespace: str, episode_id: int, participants: Sequence[str] | None = None
    ) -> list[HistoryEvent]:
        with self._session:
            where, params = self._visible_rows(namespace, participants)
            rows = self._db.execute(
                "SELECT memory_id, event, old_text, new_text, at, actor FROM history "
                f"WHERE {' AND '.join(where)} AND memory_id = ? ORDER BY id",
                (*params, episode_id),
            ).fetchall()
        if not rows:
            raise NotFound(f"no memory {episode_id} in namespace {namespace!r}")
        return [HistoryEvent(int(r[0]), r[1], r[2], r[3], from_epoch(r[4]), r[5]) for r in rows]

    def derived_from(self, namespace: str, sources: Sequence[int]) -> list[int]:
        if not sources:
            return []
        with self._session:
            rows = self._db.execute(
                "SELECT DISTINCT d.episode_id FROM derivations d JOIN episodes e ON "
                f"e.id = d.episode_id WHERE d.source_id IN ({placeholders(sources)}) "
                "AND e.namespace = ? ORDER BY d.episode_id",
                (*sources, namespace),
            ).fetchall()
        return [int(row[0]) for row in rows]

    def episodes_after(self, namespace: str, after: int, limit: int) -> list[Episode]:
        with self._session:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (namespace, after, limit),
            ).fetchall()
            return [self._episode(row) for row in rows]

    def recent_turns(self, scope: Scope, conversation: str, limit: int) -> list[Episode]:
        visible = self._seen_by(scope)
        with self._session:
            rows = self._db.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE namespace = ? AND "
                f"conversation = ? AND audience_id IN ({placeholders(visible)}) "
                "ORDER BY position DESC LIMIT ?",
                (scope.namespace, conversation, *visible, limit),
            ).fetchall()
            return [self._episode(row) for row in reversed(rows)]

    def last_said_at(self, namespace: str) -> datetime | None:
        with self._session:
            (newest,) = self._db.execute(
                "SELECT MAX(said_at) FROM episodes WHERE namespace = ?", (namespace,)
            ).fetchone()
        return None if newest is None else from_epoch(newest)
