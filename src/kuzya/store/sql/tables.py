"""What every relational backend shares: the connection's shape, the metadata, and the
audiences that carry the privacy rule."""

from __future__ import annotations

import functools
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from kuzya.errors import InvalidInput, StoreError
from kuzya.store.base import Scope


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """The part of a DB-API connection the tables use: `?` placeholders, and whether a
    transaction is open."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def executemany(self, sql: str, rows: Any, /) -> Cursor: ...


VISIBLE_KEPT = 4096  # sets of participants whose visible audiences are kept


Class = TypeVar("Class", bound=type)


def translating_errors(
    error: type[BaseException], translate: Callable[[Any, Any], StoreError]
) -> Callable[[Class], Class]:
    """A class decorator: every public method of the class (and its bases) lets a
    backend's `error` leave as the `StoreError` that `translate(store, exc)` makes."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except error as exc:
                raise translate(self, exc) from exc

        return wrapper

    def decorate(cls: Class) -> Class:
        for name in {name for klass in cls.__mro__ for name in vars(klass)}:
            attribute = getattr(cls, name)
            if not name.startswith("_") and callable(attribute):
                setattr(cls, name, wrap(attribute))
        return cls

    return decorate


def audience_key(members: Sequence[str]) -> str:
    return json.dumps(sorted(set(members)), ensure_ascii=False)


def placeholders(values: Sequence[Any]) -> str:
    """`?, ?, ?` for an IN list; NULL for none (an IN list may not be empty, and
    `x IN (NULL)` holds for no row)."""
    return ",".join("?" * len(values)) or "NULL"


PER_AUDIENCE = 16  # up to this many visible audiences, the newest rows are read per audience


def newest_per_audience(
    db: Connection,
    sql: str,
    head: tuple[Any, ...],
    visible: Sequence[int],
    limit: int,
    key: Callable[[Any], Any],
) -> list[Any]:
    """The `limit` newest rows (by `key`) over the audiences, each audience's read by
    `sql` (parameters: *head, its id, limit) from an index that starts with it."""
    rows = [row for audience in visible for row in db.execute(sql, (*head, audience, limit))]
    return sorted(rows, key=key, reverse=True)[:limit]


def visible_audiences(db: Connection, namespace: str, participants: Sequence[str]) -> list[int]:
    """Audiences that include every present participant (the privacy rule)."""
    present = sorted(set(participants))
    if not present:
        raise InvalidInput("recall needs the participants present (at least one)")
    rows = db.execute(
        "SELECT m.audience_id FROM audience_members m "
        "JOIN audiences a ON a.id = m.audience_id "
        f"WHERE a.namespace = ? AND m.participant IN ({placeholders(present)}) "
        "GROUP BY m.audience_id HAVING COUNT(*) = ?",
        (namespace, *present, len(present)),
    )
    return [int(row[0]) for row in rows]


class Tables(ABC):
    """The state every part of a relational store shares: the connection, the half-life
    of associations, and the audiences seen so far. A backend sets `_db`, `location` and
    `read_only`, and gives write transactions.

    Every use of `_db` happens inside `with self._session:` (re-entrant). By default
    that is a lock around one connection (SQLite); a backend with a pool makes it the
    checkout of a connection that `_db` stands for in this thread until the outermost
    block ends (PostgreSQL)."""

    _db: Connection
    location: str  # the file or server, as errors name it
    read_only: bool

    def __init__(self, half_life_days: float) -> None:
        self.half_life = half_life_days * 86400.0  # of association weights, in seconds
        self._session: AbstractContextManager[Any] = threading.RLock()
        self._cache_lock = threading.Lock()  # the caches below, whatever the session is
        self._members: dict[int, frozenset[str]] = {}
        self._visible_for: dict[tuple[int | None, str, tuple[str, ...]], list[int]] = {}
        self._dimension: int | None = None  # of the vectors, once an embedder is bound

    @abstractmethod
    def _write(self) -> AbstractContextManager[Connection]:
        """One write transaction: committed when the block ends, rolled back (nothing
        changed) when it raises."""

    # -- lifecycle and metadata -------------------------------------------------------

    @property
    def embedder_name(self) -> str | None:
        with self._session:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return None if row is None else str(row[0])

    def bind_embedder(self, name: str, dim: int) -> None:
        """Tie the store to the embedder its vectors come from (recorded on first use; a
        read-only open only checks)."""
        with self._session:
            rows = dict(
                self._db.execute("SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')")
            )
        if rows and (rows.get("embedder") != name or rows.get("dim") != str(dim)):
            raise InvalidInput(
                f"store {self.location} was built with embedder {rows.get('embedder')!r} "
                f"({rows.get('dim')}-d); open it with that embedder, or use a new store "
                f"for {name!r}"
            )
        if not rows and not self.read_only:
            with self._write() as db:
                db.execute(
                    "INSERT INTO meta VALUES ('embedder', ?), ('dim', ?) ON CONFLICT DO NOTHING",
                    (name, str(dim)),
                )
            self.bind_embedder(name, dim)  # another process may have bound it first
            return
        self._dimension = dim
        self._bound(dim)

    def _dim(self) -> int:
        if self._dimension is None:
            raise StoreError("bind_embedder must be called before storing or searching")
        return self._dimension

    @abstractmethod
    def _bound(self, dim: int) -> None:
        """The store now knows its vectors' dimension (the backend may build its index)."""

    # -- audiences ----------------------------------------------------------------------

    def _audience_id(self, db: Connection, namespace: str, members: Sequence[str]) -> int:
        key = audience_key(members)
        row = db.execute(
            "SELECT id FROM audiences WHERE namespace = ? AND key = ?", (namespace, key)
        ).fetchone()
        if row is not None:
            return int(row[0])
        audience_id = db.execute(
            "INSERT INTO audiences (namespace, key) VALUES (?, ?) RETURNING id", (namespace, key)
        ).fetchone()[0]
        db.executemany(
            "INSERT INTO audience_members VALUES (?, ?)",
            [(audience_id, member) for member in sorted(set(members))],
        )
        return int(audience_id)

    def _members_of(self, audience_id: int) -> frozenset[str]:
        with self._cache_lock:
            members = self._members.get(audience_id)
        if members is None:
            with self._session:
                members = frozenset(
                    row[0]
                    for row in self._db.execute(
                        "SELECT participant FROM audience_members WHERE audience_id = ?",
                        (audience_id,),
                    )
                )
                kept = not self._db.in_transaction  # a new audience's id may roll back
            if kept:
                with self._cache_lock:
                    self._members[audience_id] = members
        return members

    def _visible_audiences(self, namespace: str, participants: Sequence[str]) -> list[int]:
        """Audiences that include every present participant (the privacy rule), kept for
        the next call: an audience's members never change and audiences are never
        deleted, so an answer stays right while no newer audience exists (the newest
        id is part of the key; writers are serialised, so ids grow in commit order),
        and none is kept from inside a write transaction, whose new audiences may roll
        back."""
        with self._session:
            newest = self._db.execute("SELECT MAX(id) FROM audiences").fetchone()[0]
            key = (newest, namespace, tuple(sorted(set(participants))))
            with self._cache_lock:
                found = self._visible_for.get(key)
            if found is None:
                found = visible_audiences(self._db, namespace, participants)
                if not self._db.in_transaction:
                    with self._cache_lock:
                        if len(self._visible_for) >= VISIBLE_KEPT:
                            self._visible_for.clear()
                        self._visible_for[key] = found
            return list(found)

    def scope(self, namespace: str, participants: Sequence[str]) -> Scope:
        present = frozenset(participants)
        return Scope(
            namespace, present, tuple(self._visible_audiences(namespace, sorted(present))), self
        )

    def _seen_by(self, scope: Scope) -> list[int]:
        """The audiences a scope may see; a scope issued by another store (whose audience
        ids mean other people) is refused."""
        if scope.issuer is not self:
            raise InvalidInput("this scope was issued by another store")
        return list(scope.audiences)

    def _visible_rows(
        self, namespace: str, participants: Sequence[str] | None
    ) -> tuple[list[str], list[Any]]:
        """WHERE conditions (joined by AND) and their parameters for the namespace's rows,
        only those the participants may see when they are named (the privacy rule)."""
        where: list[str] = ["namespace = ?"]
        params: list[Any] = [namespace]
        if participants is not None:
            visible = self._visible_audiences(namespace, participants)
            where.append(f"audience_id IN ({placeholders(visible)})")
            params.extend(visible)
        return where, params
