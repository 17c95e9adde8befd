"""The service's rules, in process (the app itself, through Starlette's test client,
on a SQLite file and a PostgreSQL database): who may see and change what, and that
every mistake is a JSON error with a 4xx status."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kuzya.errors import InvalidInput
from kuzya.service import keys
from kuzya.service.app import create_app
from kuzya.service.engine import Engine
from kuzya.service.settings import ServiceSettings, service_settings

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


def _settings(location: str, **given: Any) -> ServiceSettings:
    if location.startswith("postgresql://"):
        return service_settings(database_url=location, embedder="hash", llm="none", **given)
    return service_settings(db=location, embedder="hash", llm="none", **given)


@pytest.fixture
def client(location: str) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(location))) as opened:
        yield opened


def _add(client: TestClient, text: str, user: str, *others: str, **more: Any) -> int:
    body = {
        "text": text,
        "user_id": user,
        "participants": [user, *others],
        "time": NOW.isoformat(),
        **more,
    }
    made = client.post("/v1/memories", json=body)
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def test_facts_profile_and_diary_show_only_what_those_present_saw(client: TestClient) -> None:
    _add(client, "I live in Lisbon and I'm allergic to peanuts", "ana")
    _add(client, "We should book the offsite in Porto", "ana", "ben", conversation="team")
    engine: Engine = client.app.state.engine  # type: ignore[attr-defined]
    engine.space("default").memory.sleep(now=NOW)
    own = client.get("/v1/profile/ana", params={"user_id": "ana"}).json()
    assert {"Lisbon", "peanuts"} <= {f["value"] for f in own["facts"]}
    seen_by_ben = client.get(
        "/v1/profile/ana", params={"user_id": "ben", "participants": ["ana", "ben"]}
    )
    assert seen_by_ben.status_code == 200
    assert not {"Lisbon", "peanuts"} & {f["value"] for f in seen_by_ben.json()["facts"]}
    facts = client.get("/v1/facts", params={"user_id": "ben"}).json()
    assert all("Lisbon" not in f["statement"] for f in facts)
    ben_diary = client.get("/v1/diary", params={"user_id": "ben"}).json()
    assert all("Lisbon" not in e["text"] and "peanuts" not in e["text"] for e in ben_diary)
    ana_diary = client.get("/v1/diary", params={"user_id": "ana"}).json()
    assert any("Lisbon" in e["text"] for e in ana_diary)
    conversations = client.get("/v1/conversations", params={"user_id": "ben"}).json()
    assert [c["id"] for c in conversations] == ["team"]


def test_only_the_speaker_changes_a_memory_and_its_history_keeps_the_change(
    client: TestClient,
) -> None:
    memory_id = _add(client, "The wifi password is tulip42", "ana", "ben", conversation="flat")
    as_ben = {"user_id": "ben", "participants": ["ana", "ben"]}
    refused = client.put(f"/v1/memories/{memory_id}", json={"text": "hacked", **as_ben})
    assert refused.status_code == 403
    assert client.delete(f"/v1/memories/{memory_id}", params=as_ben).status_code == 403
    changed = client.put(
        f"/v1/memories/{memory_id}",
        json={
            "text": "The wifi password is rose7",
            "user_id": "ana",
            "participants": ["ana", "ben"],
        },
    )
    assert changed.status_code == 200 and changed.json()["text"] == "The wifi password is rose7"
    events = client.get(f"/v1/memories/{memory_id}/history", params=as_ben).json()
    assert [e["event"] for e in events] == ["ADD", "UPDATE"]
    gone = client.delete(f"/v1/memories/{memory_id}", params={"user_id": "ana"})
    assert gone.json() == {"id": memory_id, "deleted": True}
    assert client.get(f"/v1/memories/{memory_id}", params=as_ben).status_code == 404
    search = client.post("/v1/memories/search", json={"query": "wifi password", **as_ben}).json()
    assert all("rose7" not in m["text"] for m in search)


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("post", "/ask", b"{not json", 422),
        ("post", "/ask", b'{"message": "", "session_id": "s"}', 422),
        ("post", "/ask", b'{"message": "hi"}', 422),
        ("post", "/ask", b'{"message": "hi", "session_id": "s", "extra": 1}', 422),
        ("post", "/ask", b'{"message": "hi", "session_id": "s", "time": "yesterday"}', 422),
        ("post", "/v1/memories", b'{"text": "hi"}', 422),
        ("post", "/v1/memories", b'{"text": "hi", "user_id": "a\\u0000b"}', 422),
        ("post", "/v1/memories", b'{"text": "hi", "user_id": "a", "participants": []}', 422),
        ("post", "/v1/memories/search", b'{"query": "x", "user_id": "a", "limit": 0}', 422),
        ("get", "/v1/memories/99999?user_id=a", None, 404),
        ("get", "/v1/memories/-5?user_id=a", None, 404),
        ("get", "/v1/memories/99999999999999999999999?user_id=a", None, 404),
        ("get", "/v1/memories/abc?user_id=a", None, 422),
        ("get", "/v1/memories", None, 422),
        ("get", "/v1/diary?user_id=a&kind=week", None, 422),
        ("delete", "/ask", None, 405),
        ("get", "/nowhere", None, 404),
    ],
)
def test_every_mistake_is_a_json_error(
    client: TestClient, method: str, path: str, body: bytes | None, status: int
) -> None:
    response = client.request(
        method, path, content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == status, response.text
    assert isinstance(response.json()["error"], str) and response.json()["error"]


def test_a_body_past_the_limit_is_refused_before_it_is_read(location: str) -> None:
    with TestClient(create_app(_settings(location, max_body_bytes=2048))) as client:
        huge = {"message": "x" * 5000, "session_id": "s"}
        assert client.post("/ask", json=huge).status_code == 413

        def chunks() -> Iterator[bytes]:  # no declared length: counted as it arrives
            yield b'{"message": "'
            for _ in range(10):
                yield b"y" * 500
            yield b'", "session_id": "s"}'

        streamed = client.post(
            "/ask", content=chunks(), headers={"content-type": "application/json"}
        )
        assert streamed.status_code == 413 and "bytes" in streamed.json()["error"]
        assert client.post("/ask", json={"message": "hello", "session_id": "s"}).status_code == 200


def test_a_service_past_loopback_needs_a_key(location: str) -> None:
    engine = Engine(_settings(location, host="0.0.0.0"))
    try:
        app = create_app(engine.settings, engine)
        with pytest.raises(InvalidInput, match="needs an API key"), TestClient(app):
            pass
    finally:
        engine.close()
    engine = Engine(_settings(location, host="0.0.0.0"))
    key, _ = keys.create(engine.keys, "shop")
    with TestClient(create_app(engine.settings, engine)) as client:
        assert client.get("/v1/memories", params={"user_id": "a"}).status_code == 401
        authorised = {"Authorization": f"Bearer {key}"}
        assert client.get("/v1/memories", params={"user_id": "a"}, headers=authorised).json() == []
        assert client.get("/health").json()["auth"] == "keys"


def test_metrics_count_requests_by_route_and_status(client: TestClient) -> None:
    client.post("/v1/memories/search", json={"query": "x", "user_id": "a"})
    client.get("/v1/memories/123", params={"user_id": "a"})
    text = client.get("/metrics").text
    assert (
        'kuzya_requests_total{method="POST",route="/v1/memories/search",status="200"} 1.0' in text
    )
    assert 'route="/v1/memories/{memory_id}",status="404"' in text
    assert client.get("/openapi.json").json()["paths"]["/ask"]["post"]
