"""The privacy rule, end to end with the real embedder.

Recall for participants P returns only memories whose audience includes every member
of P; namespaces never mix. Every test has a positive control (the memory *is*
recalled by someone allowed), so a broken recall cannot pass by returning nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from kuzya import InvalidInput, Memory, NotFound

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)
PIN = "My bank PIN code is 4512, please keep it secret"


def recalled(memory: Memory, query: str, participants: Sequence[str], **kw) -> list[int]:
    return [
        item.id
        for item in memory.recall(
            query, participants=participants, budget_words=None, limit=1000, **kw
        )
    ]


def seen_by(memory: Memory, participants: Sequence[str]) -> set[int]:
    """Everything any recall channel could surface for these participants."""
    found: set[int] = set()
    for query in ("secret plans", "what did we talk about?", "bank PIN code 4512", "party"):
        found.update(recalled(memory, query, participants))
    return found


def test_direct_message_is_not_recalled_when_someone_else_is_present(memory):
    dm = memory.remember(
        PIN, speaker="alice", conversation="dm:alice", participants=["alice"], time=T0
    )
    memory.remember(
        "We should plan the summer party",
        speaker="bob",
        conversation="group",
        participants=["alice", "bob"],
        time=T0 + timedelta(hours=1),
    )
    assert dm.audience == frozenset({"alice"})
    assert recalled(memory, "what is my bank PIN?", ["alice"])[0] == dm.id
    assert dm.id not in recalled(memory, "what is my bank PIN?", ["alice", "bob"])
    assert dm.id not in recalled(memory, "what is my bank PIN?", ["bob"])
    assert dm.id not in seen_by(memory, ["alice", "bob"])


def test_group_memory_is_recalled_for_any_subset_but_not_with_an_outsider(memory):
    group = memory.remember(
        "The surprise party for Dana is on Saturday at Carol's flat",
        speaker="carol",
        conversation="group:abc",
        participants=["alice", "bob", "carol"],
        time=T0,
    )
    query = "when is the surprise party?"
    for present in (
        ["alice"],
        ["bob"],
        ["carol"],
        ["alice", "bob"],
        ["bob", "carol"],
        ["alice", "bob", "carol"],
    ):
        assert group.id in recalled(memory, query, present), present
    for present in (["dana"], ["alice", "dana"], ["alice", "bob", "carol", "dana"]):
        assert group.id not in recalled(memory, query, present), present


def test_a_third_partys_words_stay_with_their_audience(memory):
    said = memory.remember(
        "I am planning to quit my job at the bank next month",
        speaker="carol",
        conversation="carol+dave",
        participants=["carol", "dave"],
        time=T0,
    )
    memory.remember(
        "I like hiking in the mountains",
        speaker="alice",
        conversation="dm:alice",
        participants=["alice"],
        time=T0,
    )
    query = "is Carol going to quit her job?"
    assert said.id in recalled(memory, query, ["dave"])
    assert said.id in recalled(memory, query, ["carol"])
    assert said.id in recalled(memory, query, ["carol", "dave"])
    assert said.id not in recalled(memory, query, ["alice"])
    assert said.id not in recalled(memory, query, ["alice", "dave"])
    assert said.id not in seen_by(memory, ["alice"])
    assert said.id not in [e.id for e in memory.get_all(user_id="alice")]
    assert said.id not in [i.id for i in memory.search(query, user_id="alice")]


def test_no_recall_channel_leaks_a_private_memory(memory):
    """The private memory is at once the best dense match, the best full-text match and
    the most recent memory; it must still never reach a group that includes bob."""
    for i, text in enumerate(
        [
            "We agreed to meet at the cinema on Friday",
            "Bob recommended a good pizza place downtown",
            "The weather was terrible during the hike",
            "Let's split the cost of the gift for Dana",
        ]
    ):
        memory.remember(
            text,
            speaker="bob",
            conversation="group",
            participants=["alice", "bob"],
            time=T0 + timedelta(hours=i),
        )
    private = memory.remember(
        PIN,
        speaker="alice",
        conversation="dm:alice",
        participants=["alice"],
        time=T0 + timedelta(days=30),
    )
    store, ns = memory.store, memory.namespace
    vector = memory.embedder.embed([PIN])[0]
    # control: for alice alone it wins every channel
    assert store.dense_search(store.scope(ns, ["alice"]), vector, 10)[0][0] == private.id
    assert (
        store.text_search(
            store.scope(ns, ["alice"]), ["bank", "pin", "code", "4512", "secret"], 10
        )[0][0]
        == private.id
    )
    assert store.recent_search(store.scope(ns, ["alice"]), 10)[0][0] == private.id
    assert recalled(memory, PIN, ["alice"])[0] == private.id
    # with bob present it appears nowhere
    group = ["alice", "bob"]
    assert private.id not in [
        i for i, _ in store.dense_search(store.scope(ns, group), vector, 1000)
    ]
    assert private.id not in [
        i
        for i, _ in store.text_search(
            store.scope(ns, group), ["bank", "pin", "code", "4512", "secret"], 1000
        )
    ]
    assert private.id not in [i for i, _ in store.recent_search(store.scope(ns, group), 1000)]
    assert store.fetch(store.scope(ns, group), [private.id]) == []
    assert private.id not in recalled(memory, PIN, group)
    assert private.id not in recalled(memory, "secret", group)
    assert private.id not in recalled(memory, "4512", group)
    result = memory.recall(PIN, participants=group, budget_words=None, limit=1000)
    assert len(result) == 4
    assert "4512" not in result.as_prompt()
    # working memory of alice's own DM does not bring it back either
    assert private.id not in recalled(memory, "what was it?", group, conversation="dm:alice")


def test_namespaces_never_mix(memory, tmp_path, use_embedder):
    mine = memory.remember(PIN, speaker="alice", participants=["alice"], time=T0)
    with Memory.open(tmp_path / "k.db", namespace="other", embedder=use_embedder) as other:
        theirs = other.remember(
            "Alice's favourite colour is teal", speaker="alice", participants=["alice"], time=T0
        )
        assert theirs.id != mine.id
        assert mine.id not in recalled(other, PIN, ["alice"])
        assert recalled(other, PIN, ["alice"]) == [theirs.id]
        assert [i.id for i in other.search(PIN, user_id="alice")] == [theirs.id]
        assert [e.id for e in other.get_all()] == [theirs.id]
        assert [e.id for e in other.get_all(user_id="alice")] == [theirs.id]
        with pytest.raises(NotFound):
            other.get(mine.id)
        with pytest.raises(NotFound):
            other.update(mine.id, "hijacked", actor="mallory")
        with pytest.raises(NotFound):
            other.delete(mine.id, actor="mallory")
        with pytest.raises(NotFound):
            other.history(mine.id)
        assert other.stats()["episodes"] == 1
        # and the other way round
        assert theirs.id not in recalled(memory, "favourite colour", ["alice"])
        with pytest.raises(NotFound):
            memory.get(theirs.id)
    assert memory.get(mine.id).text == PIN
    assert [h.event for h in memory.history(mine.id)] == ["ADD"]
    assert recalled(memory, PIN, ["alice"]) == [mine.id]
    assert memory.stats()["episodes"] == 1


# -- adversarial participant ids -----------------------------------------------------------------


def test_duplicate_participants_are_one_participant(memory):
    group = memory.remember(
        "The boat trip is on Sunday",
        speaker="alice",
        participants=["alice", "alice", "bob", "bob"],
        time=T0,
    )
    assert group.audience == frozenset({"alice", "bob"})
    assert recalled(memory, "boat trip", ["alice", "alice"]) == [group.id]
    assert recalled(memory, "boat trip", ["bob", "alice", "bob"]) == [group.id]
    assert recalled(memory, "boat trip", ["alice", "alice", "carol"]) == []


def test_surrounding_whitespace_is_ignored_in_participant_ids(memory):
    dm = memory.remember(PIN, speaker=" alice ", participants=["alice\t"], time=T0)
    assert dm.speaker == "alice" and dm.audience == frozenset({"alice"})
    assert recalled(memory, PIN, ["  alice"]) == [dm.id]
    assert recalled(memory, PIN, ["alice", " bob "]) == []


def test_participant_ids_are_case_sensitive(memory):
    """'Alice' and 'alice' are two different people as far as Kuzya is concerned."""
    dm = memory.remember(PIN, speaker="alice", participants=["alice"], time=T0)
    assert recalled(memory, PIN, ["alice"]) == [dm.id]
    assert recalled(memory, PIN, ["Alice"]) == []
    assert recalled(memory, PIN, ["ALICE"]) == []
    assert memory.get_all(user_id="Alice") == []


def _recall_or_refused(memory: Memory, query: str, participants: Sequence[str]) -> list[int]:
    try:
        return recalled(memory, query, participants)
    except InvalidInput:
        return []


def test_separator_in_a_participant_id_does_not_unlock_a_group(memory):
    """The audience key joins ids with \\x1f; an id containing it must not impersonate
    the group {alice, bob} (refusing such an id is also acceptable)."""
    group = memory.remember(
        "The safe combination is 12-34-56", speaker="alice", participants=["alice", "bob"], time=T0
    )
    assert recalled(memory, "safe combination", ["alice", "bob"]) == [group.id]
    assert group.id not in _recall_or_refused(memory, "safe combination", ["alice\x1fbob"])
    assert group.id not in _recall_or_refused(memory, "safe combination", ["bob\x1falice"])


def test_separator_in_a_speaker_id_does_not_join_an_existing_group(memory):
    memory.remember(
        "Our shared shopping list: eggs, milk",
        speaker="alice",
        participants=["alice", "bob"],
        time=T0,
    )
    try:
        planted = memory.remember(
            "mallory's private note", speaker="alice\x1fbob", participants=["alice\x1fbob"], time=T0
        )
    except InvalidInput:
        return  # refusing the id is a correct answer
    assert planted.audience == frozenset({"alice\x1fbob"})
    assert planted.id not in recalled(memory, "mallory's private note", ["alice"])
    assert planted.id not in recalled(memory, "mallory's private note", ["bob"])


def test_separator_id_created_first_does_not_capture_a_later_group(memory):
    try:
        memory.remember("mallory was here first", speaker="alice\x1fbob", time=T0)
    except InvalidInput:
        return  # refusing the id is a correct answer
    group = memory.remember(
        "Alice and Bob's wedding budget is 20k",
        speaker="alice",
        participants=["alice", "bob"],
        time=T0,
    )
    assert group.audience == frozenset({"alice", "bob"})
    assert group.id in recalled(memory, "wedding budget", ["alice", "bob"])
    assert group.id not in recalled(memory, "wedding budget", ["alice\x1fbob"])


@pytest.mark.parametrize("sneaky", ["x' OR '1'='1", "%", "*", "alice' --", '") OR 1=1 --'])
def test_sql_like_participant_ids_are_plain_ids(memory, sneaky):
    dm = memory.remember(PIN, speaker="alice", participants=["alice"], time=T0)
    own = memory.remember(
        "I am a perfectly normal user", speaker=sneaky, participants=[sneaky], time=T0
    )
    assert own.audience == frozenset({sneaky})
    assert recalled(memory, PIN, [sneaky]) == [own.id]
    assert dm.id not in recalled(memory, PIN, [sneaky])
    assert [e.id for e in memory.get_all(user_id=sneaky)] == [own.id]
    assert [i.id for i in memory.search(PIN, user_id=sneaky)] == [own.id]
    assert own.id not in recalled(memory, "normal user", ["alice"])


def test_empty_participants_are_refused(memory):
    memory.remember(PIN, speaker="alice", time=T0)
    with pytest.raises(InvalidInput):
        memory.recall(PIN, participants=[])
    with pytest.raises(InvalidInput):
        memory.recall(PIN, participants=["", "  "])
    with pytest.raises(InvalidInput):
        memory.remember("hello", speaker="alice", participants=[])
    with pytest.raises(InvalidInput):
        memory.get_all(user_id="")
    with pytest.raises(InvalidInput):
        memory.search(PIN, user_id=" ")


def test_explicit_audience_always_includes_the_speaker(memory):
    said = memory.remember(
        "I'll bring the cake on Saturday", speaker="alice", participants=["bob", "carol"], time=T0
    )
    assert said.audience == frozenset({"alice", "bob", "carol"})
    query = "who brings the cake?"
    assert said.id in recalled(memory, query, ["bob", "carol"])
    assert said.id in recalled(memory, query, ["alice", "carol"])
    assert said.id not in recalled(memory, query, ["bob", "dave"])


def test_get_all_and_search_by_user_return_only_visible_memories(memory):
    own = memory.add("I love jazz concerts", user_id="alice", time=T0)
    shared = memory.remember(
        "Jazz night at the club on Friday",
        speaker="bob",
        participants=["alice", "bob"],
        time=T0 + timedelta(hours=1),
    )
    bobs = memory.add("I secretly hate jazz", user_id="bob", time=T0 + timedelta(hours=2))
    assert {e.id for e in memory.get_all(user_id="alice")} == {own.id, shared.id}
    assert {e.id for e in memory.get_all(user_id="bob")} == {shared.id, bobs.id}
    assert {e.id for e in memory.get_all()} == {own.id, shared.id, bobs.id}
    assert {i.id for i in memory.search("jazz", user_id="alice")} == {own.id, shared.id}
    assert {i.id for i in memory.search("jazz", user_id="bob")} == {shared.id, bobs.id}
    assert memory.search("jazz", user_id="carol") == []
