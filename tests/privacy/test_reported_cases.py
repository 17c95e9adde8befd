"""Regression tests for reported privacy and forgetting cases (real SQLite; the real
default embedder where the behaviour depends on it)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from kuzya import InvalidInput, Memory, NotFound
from kuzya.assistant import Assistant
from kuzya.language.text import terms
from kuzya.model import Kind, Recall, RecallItem

T0 = datetime(2025, 2, 3, 10, tzinfo=UTC)
GROUP = ["ana", "ben", "chen"]

# (a) said in the group, then said to the assistant alone: (group message, private
# message, subject, attribute, value of the group's fact, query)
PRIVATE_CHANGES = {
    "quit": (
        "I work at Google",
        "I quit Google yesterday, don't tell the team",
        "ana",
        "works_at",
        "Google",
        "where does Ana work?",
    ),
    "move": (
        "I live in Lisbon",
        "We moved to Porto last week",
        "ana",
        "lives_in",
        "Lisbon",
        "where does Ana live?",
    ),
    "negation": (
        "I live in Lisbon",
        "I don't live in Lisbon anymore",
        "ana",
        "lives_in",
        "Lisbon",
        "where does Ana live?",
    ),
    "opposite taste": (
        "I love sushi",
        "I hate sushi now",
        "ana",
        "likes",
        "sushi",
        "what food does Ana like?",
    ),
    "third party": (
        "My brother Leo lives in Oslo",
        "my brother Leo moved to Bergen",
        "Leo",
        "lives_in",
        "Oslo",
        "where does Leo live?",
    ),
}


@pytest.mark.parametrize("change", sorted(PRIVATE_CHANGES))
def test_a_private_change_does_not_close_the_groups_fact(memory: Memory, change: str) -> None:
    said, private, subject, attribute, value, query = PRIVATE_CHANGES[change]
    group = memory.remember(said, speaker="ana", conversation="team", participants=GROUP, time=T0)
    memory.remember(
        "Nice, congratulations!",
        speaker="ben",
        conversation="team",
        participants=GROUP,
        time=T0 + timedelta(minutes=5),
    )
    memory.remember(
        private,
        speaker="ana",
        conversation="dm:ana",
        participants=["ana"],
        time=T0 + timedelta(days=10),
    )
    now = T0 + timedelta(days=12)
    memory.sleep(now=now)

    def groups_fact() -> list:
        return [
            f
            for f in memory.facts(participants=GROUP, include_past=True)
            if f.subject == subject and f.attribute == attribute and f.value == value
        ]

    # the group: the fact is current, open, with no end, and its message is recalled
    facts = groups_fact()
    assert len(facts) == 1, memory.facts(participants=GROUP, include_past=True)
    assert facts[0].current and facts[0].valid_to is None and facts[0].ended_by is None
    assert facts[0].valid_from == T0
    assert facts[0] in memory.profile(subject, participants=GROUP).facts
    for present in (GROUP, ["ben"], ["ana", "ben"]):
        recalled = memory.recall(query, participants=present, now=now, speaker=present[-1])
        assert group.id in [i.id for i in recalled.items if i.kind is Kind.EPISODE], (
            present,
            recalled.as_prompt(),
        )
        stated = [i.text for i in recalled.items if i.kind is Kind.FACT]
        assert any(t.startswith(facts[0].statement) for t in stated), (present, stated)
        assert "no longer" not in recalled.as_prompt()
    assert not [
        f
        for f in memory.facts(participants=GROUP, include_past=True)
        if f.valid_to is not None and f.subject == subject
    ]
    # control: ana alone sees the private statement take effect
    own = [
        f
        for f in memory.facts(participants=["ana"], include_past=True)
        if f.subject == subject and f.attribute == attribute and f.value == value
    ]
    assert own and not own[0].current, own


def test_delete_removes_the_fact_its_history_and_the_diary_quotes(memory: Memory) -> None:
    gone = memory.remember(
        "My brother Leo lives in Oslo",
        speaker="ana",
        conversation="dm:ana",
        participants=["ana"],
        time=T0,
    )
    kept = memory.remember(
        "I work at Google",
        speaker="ana",
        conversation="dm:ana",
        participants=["ana"],
        time=T0 + timedelta(hours=1),
    )
    memory.remember(
        "I love sushi",
        speaker="ana",
        conversation="dm:ana",
        participants=["ana"],
        time=T0 + timedelta(days=1),
    )
    memory.sleep(now=T0 + timedelta(days=40))
    assert any("Oslo" in d.text for d in memory.diary(participants=["ana"]))  # control
    memory.delete(gone.id, actor="ana")
    facts = memory.facts(include_past=True)
    assert not [f for f in facts if "Oslo" in f.statement or "Leo" in f.statement], facts
    for fact in facts:
        for event, detail, _ in memory.fact_history(fact.id):
            assert "Oslo" not in detail and "Leo" not in detail, (event, detail)
            assert f"memory {gone.id} " not in detail, (event, detail)
    quotes = [d.text for d in memory.diary(participants=["ana"]) if "Oslo" in d.text]
    assert not quotes
    assert "Google" in memory.profile("ana").as_prompt()
    assert kept.id in [e.id for e in memory.get_all(user_id="ana")]


@pytest.mark.parametrize(
    ("request_text", "secret"),
    [
        ("Please forget that I live at 17 Zanzibar Lane", "Zanzibar"),
        ("Forget what I said about Zanzibar Lane", "Zanzibar"),
        ("Forget my address, 17 Zanzibar Lane, please", "Zanzibar"),
        ("Забудь, что я живу в Москве", "Москве"),
        ("Забудь всё, что я говорил про улицу Квакерова", "Квакерова"),
        ("Забудь мой адрес ул. Квакерова 17", "Квакерова"),
    ],
)
def test_the_request_is_stored_without_what_it_forgets(
    memory: Memory, request_text: str, secret: str
) -> None:
    memory.remember(
        "My address is 17 Zanzibar Lane. Я живу в Москве. Мой адрес ул. Квакерова 17.",
        speaker="ana",
        participants=["ana"],
        time=T0,
    )
    stored = memory.remember(
        request_text, speaker="ana", participants=["ana"], time=T0 + timedelta(hours=1)
    )
    forms = {secret, secret.lower(), *terms(secret)}
    try:
        text = memory.get(stored.id).text
    except NotFound:  # a request with nothing else to say may be dropped altogether
        text = ""
    assert not [f for f in forms if f in text or f in text.lower()], text
    for event in memory.history(stored.id) if text else ():
        assert secret not in f"{event.old_text} {event.new_text}", event
    # and the request took effect on what was said before it
    for episode in memory.get_all():
        assert not [f for f in forms if f in episode.text or f in episode.text.lower()], (
            episode.text
        )


def test_forget_about_reaches_more_than_200_messages(hash_memory: Memory) -> None:
    messages = [
        {
            "text": f"Note {i}: the Zanzibar trip needs item number {i}",
            "speaker": "ana",
            "participants": ["ana"],
            "time": T0 + timedelta(minutes=i),
        }
        for i in range(260)
    ]
    messages.append({"text": "I love sushi", "speaker": "ana", "participants": ["ana"], "time": T0})
    hash_memory.remember_many(messages)
    hash_memory.forget("ana", about="Zanzibar")
    left = [e.text for e in hash_memory.get_all(limit=10_000) if "zanzibar" in e.text.lower()]
    assert not left, f"{len(left)} of 260 messages still mention Zanzibar: {left[:3]}"
    assert [e.text for e in hash_memory.get_all()] == ["I love sushi"]


def test_a_reply_with_two_present_and_no_speaker_is_refused(memory: Memory) -> None:
    assistant = Assistant(memory, None)
    try:
        with pytest.raises(InvalidInput):
            assistant.reply("where do I live?", conversation="team", participants=["ana", "ben"])
        assert memory.get_all() == []  # nothing was remembered as said by someone
    finally:
        assistant.close()


def _associations(memory: Memory) -> list[tuple]:
    with sqlite3.connect(memory.store.path) as db:  # type: ignore[attr-defined]
        return sorted(db.execute("SELECT * FROM associations").fetchall())


def test_reinforce_ignores_memories_the_participants_may_not_see(memory, tmp_path, use_embedder):
    group = memory.remember(
        "Dinner with Leo at Marco's",
        speaker="ben",
        conversation="team",
        participants=["ana", "ben"],
        time=T0,
    )
    private = memory.remember(
        "Mia and Oleg are planning to sell the Zanzibar house",
        speaker="chen",
        conversation="dm:chen",
        participants=["chen"],
        time=T0 + timedelta(hours=1),
    )
    with Memory.open(tmp_path / "k.db", namespace="other", embedder=use_embedder) as other:
        elsewhere = other.remember(
            "Tom and Priya from Nokia met Ivan in Tallinn",
            speaker="ana",
            participants=["ana", "ben"],
            time=T0,
        )
    memory.sleep(now=T0 + timedelta(days=1))
    before = _associations(memory)

    def item(number: int) -> RecallItem:
        return RecallItem(number, Kind.EPISODE, "", 1.0, "", "", T0, T0, (number,))

    for ids in ([private.id], [elsewhere.id], [private.id, elsewhere.id]):
        recall = Recall("q", tuple(item(i) for i in ids), T0 + timedelta(days=2))
        memory.reinforce(recall, participants=["ana", "ben"])
        assert _associations(memory) == before, ids
    # control: the group's own memory does strengthen its associations
    recall = Recall("q", (item(group.id),), T0 + timedelta(days=2))
    memory.reinforce(recall, participants=["ana", "ben"])
    assert _associations(memory) != before
