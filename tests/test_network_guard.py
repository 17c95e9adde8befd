"""The autouse network guard of conftest: outbound connections fail loudly, local ones work."""

from __future__ import annotations

import socket
import threading

import pytest

from tests.conftest import NetworkBlocked


@pytest.mark.parametrize(
    "address", [("203.0.113.7", 443), ("2001:db8::1", 80), ("example.com", 80), ("10.0.0.1", 5432)]
)
def test_outbound_connections_are_blocked(address):
    with pytest.raises(NetworkBlocked):
        socket.create_connection(address, timeout=0.5)
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock, pytest.raises(NetworkBlocked):
        sock.connect(address)
    with socket.socket(family, socket.SOCK_STREAM) as sock, pytest.raises(NetworkBlocked):
        sock.connect_ex(address)


def test_loopback_connections_still_work():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        accepted = threading.Thread(target=lambda: server.accept()[0].close())
        accepted.start()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            assert client.getpeername()[1] == port
        accepted.join(timeout=5)


def test_unix_sockets_still_work(tmp_path):
    path = str(tmp_path / "s.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(1)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(path)
            conn, _ = server.accept()
            client.sendall(b"ping")
            assert conn.recv(4) == b"ping"
            conn.close()
