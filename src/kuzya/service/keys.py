"""API keys: made at random, shown once, stored as a SHA-256 digest bound to a namespace
(and optionally to one user). A key carries 256 random bits, so a fast digest is as safe
as a slow password hash and a lookup costs one index probe."""

from __future__ import annotations

import hashlib
import secrets

from kuzya import validate
from kuzya.errors import NotFound
from kuzya.store.keys import ApiKey, KeyStore

PREFIX = "kz_"


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create(
    store: KeyStore, namespace: str, *, user: str | None = None, name: str = ""
) -> tuple[str, ApiKey]:
    """A new key for `namespace` (asking only as `user`, if given): the key, to hand out
    now, and what is stored of it."""
    key = PREFIX + secrets.token_urlsafe(32)
    stored = store.add_key(
        validate.name(namespace, "namespace"),
        None if user is None else validate.name(user, "user"),
        name.strip() or f"key for {user or namespace}",
        digest(key),
    )
    return key, stored


def authenticate(store: KeyStore, key: str) -> ApiKey | None:
    """The live key `key` is, or None."""
    if not key.startswith(PREFIX) or len(key) > 200:
        return None
    return store.key_by_digest(digest(key))


def revoke(store: KeyStore, key_id: int) -> ApiKey:
    revoked = store.revoke_key(validate.integer(key_id, "key id", 1, validate.MAX_ID))
    if revoked is None:
        raise NotFound(f"no key {key_id}")
    return revoked
