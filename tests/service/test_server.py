"""The service as a user meets it: a real `kuzya serve` process on loopback, the real
embedder, a SQLite file or a PostgreSQL database, requests over HTTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from kuzya.bench.serving import serving

pytestmark = pytest.mark.slow


def test_ask_remembers_across_sessions_and_a_restart(location: str, tmp_path: Path) -> None:
    said = {"message": "Запомни: купить молоко, хлеб и батарейки", "session_id": "kitchen",
            "user_id": "user1"}  # fmt: skip
    sketch = {"message": "Напомни, что я просил купить", "session_id": "user1"}
    with serving(location, log=tmp_path / "first.log") as base:
        first = httpx.post(f"{base}/ask", json=said, timeout=60)
        assert first.status_code == 200, first.text
        asked = httpx.post(f"{base}/ask", json=sketch, timeout=60).json()
        assert "молоко" in asked["reply"], asked
        assert asked["user_id"] == "user1"
        used = [m for m in asked["memories"] if "молоко" in m["text"]]
        assert used and used[0]["sources"] and used[0]["speaker"] == "user1"
        stranger = httpx.post(f"{base}/ask", json={**sketch, "session_id": "user2"}, timeout=60)
        assert "молоко" not in stranger.json()["reply"]
    with serving(location, log=tmp_path / "second.log") as base:
        again = {**sketch, "session_id": "after-restart", "user_id": "user1"}
        reply = httpx.post(f"{base}/ask", json=again, timeout=60).json()
        assert "молоко" in reply["reply"], reply
        listed = httpx.get(f"{base}/v1/memories", params={"user_id": "user1"}).json()
        # both turns of every /ask were remembered, the assistant's replies included
        assert [m["speaker"] for m in listed].count("assistant") >= 2


def _key(db: str, namespace: str, *extra: str) -> str:
    made = subprocess.run(
        [sys.executable, "-m", "kuzya", "keys", "create", "-n", namespace, "--db", db, *extra],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return made.stdout.strip().splitlines()[-1]


def test_two_keys_cannot_see_each_others_memories(location: str, tmp_path: Path) -> None:
    alpha, beta = _key(location, "alpha"), _key(location, "beta")
    bound = _key(location, "alpha", "--user", "ana")
    with serving(location, log=tmp_path / "keys.log") as base:
        a = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {alpha}"})
        b = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {beta}"})
        ana = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {bound}"})
        stored = a.post("/v1/memories", json={"text": "My locker code is 4417", "user_id": "ana"})
        assert stored.status_code == 201, stored.text
        memory_id = stored.json()["id"]
        query = {"query": "locker code", "user_id": "ana"}
        assert [m["text"] for m in a.post("/v1/memories/search", json=query).json()] == [
            "My locker code is 4417"
        ]
        assert b.post("/v1/memories/search", json=query).json() == []
        assert b.get(f"/v1/memories/{memory_id}", params={"user_id": "ana"}).status_code == 404
        assert b.delete(f"/v1/memories/{memory_id}", params={"user_id": "ana"}).status_code == 404
        assert (
            "4417"
            not in b.post(
                "/ask",
                json={"message": "What is my locker code?", "session_id": "s", "user_id": "ana"},
            ).text
        )
        # a key bound to ana asks as ana only; no key, or a made-up one, is refused
        assert ana.post("/v1/memories/search", json=query).json()[0]["id"] == memory_id
        assert ana.post("/v1/memories/search", json={**query, "user_id": "ben"}).status_code == 403
        assert httpx.post(f"{base}/v1/memories/search", json=query).status_code == 401
        forged = httpx.Client(base_url=base, headers={"Authorization": "Bearer kz_made_up"})
        assert forged.post("/v1/memories/search", json=query).status_code == 401
        assert a.get(f"/v1/memories/{memory_id}", params={"user_id": "ana"}).status_code == 200
    subprocess.run(
        [sys.executable, "-m", "kuzya", "keys", "revoke", "1", "--db", location], check=True,
        capture_output=True,
    )  # fmt: skip
    with serving(location, log=tmp_path / "revoked.log") as base:
        a = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {alpha}"})
        assert a.post("/v1/memories/search", json=query).status_code == 401


def test_the_privacy_rule_holds_through_the_api(location: str, tmp_path: Path) -> None:
    with serving(location, log=tmp_path / "privacy.log") as base:
        client = httpx.Client(base_url=base, timeout=60)
        private = {"text": "I'm interviewing at Stripe next week, keep it quiet",
                   "user_id": "ana", "conversation": "dm-ana"}  # fmt: skip
        group = {"text": "Lunch at the ramen place on Friday?", "user_id": "ana",
                 "participants": ["ana", "ben"], "conversation": "team"}  # fmt: skip
        assert client.post("/v1/memories", json=private).status_code == 201
        assert client.post("/v1/memories", json=group).status_code == 201
        both = ["ana", "ben"]
        query = {"query": "Stripe interview", "user_id": "ben", "participants": both}
        assert all("Stripe" not in m["text"] for m in client.post(
            "/v1/memories/search", json=query).json())  # fmt: skip
        asked = client.post("/ask", json={"message": "Where is Ana interviewing?",
                                          "session_id": "team", "user_id": "ben",
                                          "participants": both}).json()  # fmt: skip
        assert "Stripe" not in asked["reply"] and all(
            "Stripe" not in m["text"] for m in asked["memories"]
        )
        listed = client.get("/v1/memories", params={"user_id": "ben", "participants": both})
        assert [m["text"] for m in listed.json()][:1] == [group["text"]]
        # ben cannot stand in for ana to see her DM, nor list a set of people without himself
        alone = client.post("/v1/memories/search", json={**query, "participants": ["ana"]})
        assert alone.status_code == 422
        assert (
            "Stripe"
            in client.post(
                "/v1/memories/search", json={**query, "user_id": "ana", "participants": ["ana"]}
            ).text
        )


def test_the_commands_say_one_line_for_a_mistake(tmp_path: Path) -> None:
    db = str(tmp_path / "k.db")
    open_to_all = subprocess.run(
        [sys.executable, "-m", "kuzya", "serve", "--host", "0.0.0.0", "--db", db],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert open_to_all.returncode == 2
    assert open_to_all.stdout.strip().startswith("error: listening on 0.0.0.0 needs an API key")
    assert "Traceback" not in open_to_all.stderr + open_to_all.stdout
    unknown = subprocess.run(
        [sys.executable, "-m", "kuzya", "keys", "revoke", "42", "--db", db],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (unknown.returncode, unknown.stdout.strip()) == (2, "error: no key 42")
    listed = subprocess.run(
        [sys.executable, "-m", "kuzya", "keys", "list", "--db", db],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert "kz_" not in listed.stdout
