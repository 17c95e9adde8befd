"""The API keys port: who may call the service, each key bound to one namespace (and
optionally to one user). Only a key's digest is stored; the key itself is shown once,
when it is made (`kuzya.service.keys`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class ApiKey:
    """A key as stored: what it opens, never the key."""

    id: int
    namespace: str
    user: str | None  # None: the key may ask as anyone of its namespace
    name: str
    created_at: datetime
    revoked_at: datetime | None = None


class KeyStore(Protocol):
    def add_key(self, namespace: str, user: str | None, name: str, digest: str) -> ApiKey:
        """Store a key by its digest (refused if the digest is stored already)."""
        ...

    def key_by_digest(self, digest: str) -> ApiKey | None:
        """The live key with this digest; None if there is none or it was revoked."""
        ...

    def api_keys(self, namespace: str | None = None) -> list[ApiKey]:
        """Every key (of one namespace), revoked ones included, oldest first."""
        ...

    def revoke_key(self, key_id: int) -> ApiKey | None:
        """Revoke a key from now on; None if no key has that id. Revoking twice keeps
        the first time."""
        ...

    def has_keys(self) -> bool:
        """Whether any live key exists: without one, the service serves loopback only."""
        ...
