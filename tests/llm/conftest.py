"""The scripted OpenAI-compatible server, as a fixture of the model tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.llm.scripted_server import FakeServer, running


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with running() as fake:
        yield fake
