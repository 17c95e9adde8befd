"""The store each service test runs on: a SQLite file, and a PostgreSQL database."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kuzya.store.postgres.embedded import EmbeddedServer


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        server: EmbeddedServer = request.getfixturevalue("postgres_server")
        return server.database(
            "s_" + hashlib.blake2b(str(tmp_path).encode(), digest_size=8).hexdigest()
        )
    return str(tmp_path / "service.db")
