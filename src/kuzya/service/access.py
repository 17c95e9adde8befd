"""Who calls and as whom. A key opens one namespace; a key bound to a user asks only as
that user. With no key stored, a service on loopback serves its one namespace to anyone
on this machine. The caller states who is present; every read shows only what all of
them could see (the store's privacy rule), so a user can never name a set of people
that would show them more than they saw themselves."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import HTTPException, Request

from kuzya import validate
from kuzya.service import keys
from kuzya.service.engine import Engine


@dataclass(frozen=True)
class Caller:
    namespace: str
    user: str | None  # set: the key may ask only as this user


def caller(request: Request) -> Caller:
    """The caller the request's key names (401 without a valid one, unless no key exists
    and the service listens on loopback only)."""
    engine: Engine = request.app.state.engine
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if header:
        if scheme.lower() != "bearer" or not token.strip():
            raise HTTPException(401, "use the header Authorization: Bearer <key>")
        key = keys.authenticate(engine.keys, token.strip())
        if key is None:
            raise HTTPException(401, "unknown or revoked key")
        return Caller(key.namespace, key.user)
    if engine.settings.loopback and not engine.keys.has_keys():
        return Caller(engine.settings.namespace, None)
    raise HTTPException(401, "this service needs a key: Authorization: Bearer <key>")


def present(
    who: Caller, user_id: str | None, participants: list[str] | None, default: str | None = None
) -> tuple[str, list[str]]:
    """(the one asking, everyone present): the key's user, else `user_id`, else `default`
    (a session standing for its person); the participants include the asker."""
    if who.user is not None and user_id is not None and user_id != who.user:
        raise HTTPException(403, f"this key asks only as {who.user!r}")
    asker = who.user or user_id or default
    if asker is None:
        if not participants:
            raise HTTPException(422, "say who is present: user_id or participants")
        if len(participants) > 1:
            raise HTTPException(422, "with several participants, say which one asks: user_id")
        asker = participants[0]
    asker = validate.name(asker, "user_id")
    people = list(validate.names([asker] if participants is None else participants, "participants"))
    if asker not in people:
        raise HTTPException(422, f"participants must include the one asking ({asker!r})")
    return asker, people
