"""Shared fixtures: a network guard, the embedders, a Memory and the store adapters.

The store fixture is parametrized over the adapters (SQLite, and PostgreSQL on one
embedded server for the run, a database per test): every contract test runs on both.
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kuzya.embed import Embedder, load_embedder
from kuzya.memory import Memory
from kuzya.store.base import Store
from kuzya.store.postgres.embedded import EmbeddedServer, embedded
from kuzya.store.postgres.store import PostgresStore
from kuzya.store.sqlite.store import SQLiteStore
from kuzya.testing import HashEmbedder

# -- network guard -------------------------------------------------------------------------


class NetworkBlocked(RuntimeError):
    """Raised when a test tries to reach a non-local address."""


def _is_local_host(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in ("localhost", "localhost.localdomain", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _is_local(family: int, address: Any) -> bool:
    if family == getattr(socket, "AF_UNIX", object()):
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    return _is_local_host(host)


@pytest.fixture(autouse=True, scope="session")
def network_guard() -> Iterator[None]:
    """Any connection to a non-loopback, non-unix address fails loudly."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create_connection = socket.create_connection

    def connect(self: socket.socket, address: Any) -> None:
        if not _is_local(self.family, address):
            raise NetworkBlocked(f"tests may not connect to {address!r}")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_local(self.family, address):
            raise NetworkBlocked(f"tests may not connect to {address!r}")
        return real_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if not _is_local_host(address[0]):
            raise NetworkBlocked(f"tests may not connect to {address!r}")
        return real_create_connection(address, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)
        patch.setattr(socket, "create_connection", create_connection)
        yield


# Prepended to scripts run in child processes, which do not inherit the monkeypatch.
CHILD_NETWORK_GUARD = """
import ipaddress as _ip, socket as _socket
def _local(family, address):
    if family == getattr(_socket, "AF_UNIX", object()):
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host in ("localhost", ""):
        return True
    try:
        return _ip.ip_address(str(host).split("%", 1)[0]).is_loopback
    except ValueError:
        return False
_real_connect = _socket.socket.connect
def _guarded(self, address):
    if not _local(self.family, address):
        raise RuntimeError(f"tests may not connect to {address!r}")
    return _real_connect(self, address)
_socket.socket.connect = _guarded
"""


@pytest.fixture(scope="session")
def child_network_guard() -> str:
    """Python source that installs the network guard in a child process."""
    return CHILD_NETWORK_GUARD


# -- embedders and Memory --------------------------------------------------------------------


@pytest.fixture(scope="session")
def use_embedder() -> Embedder:
    """The real default embedder (multilingual USE, numpy only), loaded once."""
    embedder = load_embedder("use")
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def memory(tmp_path: Path, use_embedder: Embedder) -> Iterator[Memory]:
    with Memory.open(tmp_path / "k.db", namespace="test", embedder=use_embedder) as opened:
        yield opened


@pytest.fixture(params=["sqlite", "postgres"])
def hash_memory(
    request: pytest.FixtureRequest, tmp_path: Path, hash_embedder: HashEmbedder
) -> Iterator[Memory]:
    """A Memory with the fast fake embedder, for tests that do not need semantics: on a
    SQLite file and on a PostgreSQL database."""
    location: str | Path = tmp_path / "h.db"
    if request.param == "postgres":
        server = request.getfixturevalue("postgres_server")
        location = server.database(
            "m_" + hashlib.blake2b(str(tmp_path).encode(), digest_size=8).hexdigest()
        )
    with Memory.open(location, namespace="test", embedder=hash_embedder) as opened:
        yield opened


# -- store adapters ---------------------------------------------------------------------------


class SQLiteBackend:
    """Opens (and reopens) one SQLite store file."""

    name = "sqlite"

    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "s.db"

    def open(self) -> Store:
        return SQLiteStore(self.path)


class PostgresBackend:
    """Opens (and reopens) one database of the embedded PostgreSQL server, its own."""

    name = "postgres"

    def __init__(self, server: EmbeddedServer, tmp_path: Path) -> None:
        name = "t_" + hashlib.blake2b(str(tmp_path).encode(), digest_size=8).hexdigest()
        self.url = server.database(name)

    def open(self) -> Store:
        return PostgresStore(self.url)


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """One embedded PostgreSQL (with pgvector) for the whole run."""
    with embedded(tmp_path_factory.mktemp("postgres") / "data") as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def store_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "postgres":
        return PostgresBackend(request.getfixturevalue("postgres_server"), tmp_path)
    return SQLiteBackend(tmp_path)


@pytest.fixture
def store_embedder(hash_embedder: HashEmbedder) -> HashEmbedder:
    """The embedder whose vectors the contract suite stores."""
    return hash_embedder


@pytest.fixture
def store(store_backend: Any, store_embedder: HashEmbedder) -> Iterator[Store]:
    opened = store_backend.open()
    opened.bind_embedder(store_embedder.name, store_embedder.dim)
    yield opened
    opened.close()
