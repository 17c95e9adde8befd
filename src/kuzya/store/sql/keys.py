"""The API keys of a relational store (the `KeyStore` port)."""

from __future__ import annotations

import time
from typing import Any

from kuzya.clock import from_epoch
from kuzya.errors import InvalidInput
from kuzya.store.keys import ApiKey
from kuzya.store.sql.tables import Tables

_COLUMNS = "id, namespace, user_id, name, created_at, revoked_at"


def _key(row: Any) -> ApiKey:
    revoked = None if row[5] is None else from_epoch(row[5])
    return ApiKey(int(row[0]), row[1], row[2], row[3], from_epoch(row[4]), revoked)


class KeyTables(Tables):
    def add_key(self, namespace: str, user: str | None, name: str, digest: str) -> ApiKey:
        with self._write() as db:
            if db.execute("SELECT 1 FROM api_keys WHERE digest = ?", (digest,)).fetchone():
                raise InvalidInput("that key is stored already")
            row = db.execute(
                "INSERT INTO api_keys (namespace, user_id, name, digest, created_at) "
                f"VALUES (?, ?, ?, ?, ?) RETURNING {_COLUMNS}",
                (namespace, user, name, digest, time.time()),
            ).fetchone()
        return _key(row)

    def key_by_digest(self, digest: str) -> ApiKey | None:
        with self._session:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM api_keys WHERE digest = ? AND revoked_at IS NULL",
                (digest,),
            ).fetchone()
        return None if row is None else _key(row)

    def api_keys(self, namespace: str | None = None) -> list[ApiKey]:
        where, parameters = ("WHERE namespace = ?", (namespace,)) if namespace else ("", ())
        with self._session:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM api_keys {where} ORDER BY id", parameters
            ).fetchall()
        return [_key(row) for row in rows]

    def revoke_key(self, key_id: int) -> ApiKey | None:
        with self._write() as db:
            db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (time.time(), key_id),
            )
            row = db.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        return None if row is None else _key(row)

    def has_keys(self) -> bool:
        with self._session:
            row = self._db.execute(
                "SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1"
            ).fetchone()
        return row is not None
