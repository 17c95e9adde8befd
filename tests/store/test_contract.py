"""Contract suite for the store port: the same cases for every adapter.

Only the methods of the protocols in `kuzya.store.base` are used (plus the backend
factory of conftest to reopen the same data), so a new adapter passes by adding it to
`STORE_BACKENDS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from kuzya.errors import InvalidInput, KuzyaError, NotFound
from kuzya.language.text import terms
from kuzya.model import Attachment, Episode, Mention, Message
from kuzya.store.base import NewEpisode, Store
from kuzya.testing import HashEmbedder

NS = "ns-contract"
OTHER_NS = "ns-other"
T0 = datetime(2024, 5, 17, 9, 30, tzinfo=UTC)


def new(
    embedder: HashEmbedder,
    text: str,
    *,
    speaker: str = "alice",
    conversation: str = "c1",
    participants: Sequence[str] | None = None,
    time: datetime | None = None,
    attachments: Sequence[Attachment] = (),
    metadata: dict[str, Any] | None = None,
) -> NewEpisode:
    audience = tuple(dict.fromkeys((*(participants or ()), speaker)))
    message = Message(
        text=text,
        speaker=speaker,
        conversation=conversation,
        participants=audience,
        time=time or T0,
        attachments=tuple(attachments),
        metadata=dict(metadata or {}),
    )
    content = message.content
    return NewEpisode(message, embedder.embed([content])[0], " ".join(terms(content)))


def add(
    store: Store, embedder: HashEmbedder, *texts: str, ns: str = NS, **kw: Any
) -> list[Episode]:
    return store.add_episodes(ns, [new(embedder, t, **kw) for t in texts])


def ids_of(hits: Sequence[tuple[int, float]]) -> list[int]:
    return [item for item, _ in hits]


def query_terms(text: str) -> list[str]:
    return terms(text)


# -- writing and ids --------------------------------------------------------------------------


def test_ids_are_assigned_in_batch_order_and_increase(store, store_embedder):
    first = add(store, store_embedder, "one apple", "two pears", "three plums")
    second = add(store, store_embedder, "four figs")
    ids = [e.id for e in first + second]
    assert all(isinstance(i, int) and i > 0 for i in ids)
    assert ids == sorted(ids) and len(set(ids)) == 4
    assert [e.text for e in first] == ["one apple", "two pears", "three plums"]
    assert [store.get_episode(NS, i).text for i in ids] == [
        "one apple",
        "two pears",
        "three plums",
        "four figs",
    ]


def test_empty_batch_stores_nothing(store):
    assert store.add_episodes(NS, []) == []
    assert store.stats(NS)["episodes"] == 0
    assert store.list_episodes(NS) == []


def test_round_trip_of_every_field(store, store_embedder):
    lisbon = timezone(timedelta(hours=1))
    said = datetime(2024, 3, 9, 18, 5, 7, 123456, tzinfo=lisbon)
    attachments = (
        Attachment("image", "a red bicycle leaning on a wall", "https://example.invalid/b.jpg"),
        Attachment("file", "receipt for the bike, 900 EUR"),
    )
    metadata = {
        "turn": "D1:5",
        "nested": {"list": [1, 2.5, None, True], "ключ": "значение"},
        "emoji": "🚲",
    }
    before = datetime.now(UTC) - timedelta(seconds=1)
    [stored] = store.add_episodes(
        NS,
        [
            new(
                store_embedder,
                "Купил велосипед 🚲 — finally!",
                speaker="ana",
                conversation="shop-talk",
                participants=["ana", "bruno"],
                time=said,
                attachments=attachments,
                metadata=metadata,
            )
        ],
    )
    after = datetime.now(UTC) + timedelta(seconds=1)
    for episode in (
        stored,
        store.get_episode(NS, stored.id),
        store.list_episodes(NS)[0],
        store.fetch(store.scope(NS, ["ana"]), [stored.id])[0],
    ):
        assert episode.id == stored.id
        assert episode.namespace == NS
        assert episode.conversation == "shop-talk"
        assert episode.position == 0
        assert episode.speaker == "ana"
        assert episode.text == "Купил велосипед 🚲 — finally!"
        assert episode.attachments == attachments
        assert episode.metadata == metadata
        assert episode.audience == frozenset({"ana", "bruno"})
        assert episode.said_at == said
        assert episode.said_at.utcoffset() == timedelta(0)
        assert episode.stored_at.utcoffset() == timedelta(0)
        assert before <= episode.stored_at <= after
        assert episode.updated_at is None
        assert "[shared image: a red bicycle leaning on a wall]" in episode.content
        assert "[shared file: receipt for the bike, 900 EUR]" in episode.content


def test_position_increases_within_each_conversation(store, store_embedder):
    add(store, store_embedder, "c1 first", "c1 second", conversation="c1")
    add(store, store_embedder, "c2 first", conversation="c2")
    add(store, store_embedder, "c1 third", conversation="c1")
    c1 = store.list_episodes(NS, conversation="c1")
    c2 = store.list_episodes(NS, conversation="c2")
    assert [(e.text, e.position) for e in c1] == [
        ("c1 first", 0),
        ("c1 second", 1),
        ("c1 third", 2),
    ]
    assert [(e.text, e.position) for e in c2] == [("c2 first", 0)]


def test_add_is_all_or_nothing_when_a_vector_has_the_wrong_dimension(store, store_embedder):
    good = new(store_embedder, "a perfectly fine message")
    wrong = new(store_embedder, "a message with a broken vector")
    short = np.ones(store_embedder.dim // 2, dtype=np.float32)
    wrong = NewEpisode(wrong.message, short, wrong.terms)
    with pytest.raises(KuzyaError):
        store.add_episodes(NS, [good, wrong])
    assert store.stats(NS)["episodes"] == 0
    assert store.list_episodes(NS) == []
    # the store is still usable afterwards
    [ok] = add(store, store_embedder, "after the failure")
    vector = store_embedder.embed(["after the failure"])[0]
    assert ids_of(store.dense_search(store.scope(NS, ["alice"]), vector, 5)) == [ok.id]


# -- reading ---------------------------------------------------------------------------------


def test_unknown_ids_raise_not_found(store, store_embedder):
    [known] = add(store, store_embedder, "something")
    missing = known.id + 1000
    with pytest.raises(NotFound):
        store.get_episode(NS, missing)
    with pytest.raises(NotFound):
        store.update_episode(NS, missing, new(store_embedder, "x"), None)
    with pytest.raises(NotFound):
        store.delete_episode(NS, missing, None)
    with pytest.raises(NotFound):
        store.history(NS, missing)
    assert store.fetch(store.scope(NS, ["alice"]), [missing]) == []
    assert store.vector_of(NS, [missing]) == {}


def test_ids_from_another_namespace_are_not_found(store, store_embedder):
    [theirs] = add(store, store_embedder, "the vault code is 4512", ns=OTHER_NS)
    with pytest.raises(NotFound):
        store.get_episode(NS, theirs.id)
    with pytest.raises(NotFound):
        store.update_episode(NS, theirs.id, new(store_embedder, "overwritten"), "mallory")
    with pytest.raises(NotFound):
        store.delete_episode(NS, theirs.id, "mallory")
    with pytest.raises(NotFound):
        store.history(NS, theirs.id)
    vector = store_embedder.embed(["the vault code is 4512"])[0]
    assert store.list_episodes(NS) == []
    assert store.list_episodes(NS, participants=["alice"]) == []
    assert store.fetch(store.scope(NS, ["alice"]), [theirs.id]) == []
    assert store.vector_of(NS, [theirs.id]) == {}
    assert store.dense_search(store.scope(NS, ["alice"]), vector, 10) == []
    assert store.text_search(store.scope(NS, ["alice"]), query_terms("vault code 4512"), 10) == []
    assert store.recent_search(store.scope(NS, ["alice"]), 10) == []
    assert store.stats(NS)["episodes"] == 0
    # the failed attempts changed nothing in the owner's namespace
    kept = store.get_episode(OTHER_NS, theirs.id)
    assert kept.text == "the vault code is 4512"
    assert [h.event for h in store.history(OTHER_NS, theirs.id)] == ["ADD"]
    assert ids_of(store.dense_search(store.scope(OTHER_NS, ["alice"]), vector, 10)) == [theirs.id]


def test_list_episodes_orders_by_time_and_filters(store, store_embedder):
    late = add(store, store_embedder, "late", time=T0 + timedelta(hours=2))[0]
    early = add(store, store_embedder, "early", time=T0)[0]
    group = add(
        store,
        store_embedder,
        "group",
        conversation="g",
        participants=["alice", "bob"],
        time=T0 + timedelta(hours=1),
    )[0]
    assert [e.id for e in store.list_episodes(NS)] == [early.id, group.id, late.id]
    assert [e.id for e in store.list_episodes(NS, participants=["bob"])] == [group.id]
    assert [e.id for e in store.list_episodes(NS, participants=["alice", "bob"])] == [group.id]
    assert [e.id for e in store.list_episodes(NS, conversation="g")] == [group.id]
    assert [e.id for e in store.list_episodes(NS, limit=2)] == [early.id, group.id]
    assert [e.id for e in store.list_episodes(NS, limit=2, offset=2)] == [late.id]
    assert store.list_episodes(NS, participants=["carol"]) == []


def test_recent_turns_are_the_last_ones_oldest_first(store, store_embedder):
    for i in range(5):
        add(store, store_embedder, f"c1 turn {i}", conversation="c1")
        add(store, store_embedder, f"c2 turn {i}", conversation="c2")
    last3 = store.recent_turns(store.scope(NS, ["alice"]), "c1", 3)
    assert [e.text for e in last3] == ["c1 turn 2", "c1 turn 3", "c1 turn 4"]
    assert [e.position for e in last3] == [2, 3, 4]
    everything = store.recent_turns(store.scope(NS, ["alice"]), "c1", 50)
    assert [e.text for e in everything] == [f"c1 turn {i}" for i in range(5)]
    assert store.recent_turns(store.scope(NS, ["alice"]), "nope", 3) == []
    assert store.recent_turns(store.scope(OTHER_NS, ["alice"]), "c1", 3) == []


def test_recent_turns_obey_the_privacy_rule(store, store_embedder):
    add(store, store_embedder, "said to all", conversation="c1", participants=["alice", "bob"])
    add(store, store_embedder, "a private aside", conversation="c1", participants=["alice"])
    assert [e.text for e in store.recent_turns(store.scope(NS, ["alice"]), "c1", 5)] == [
        "said to all",
        "a private aside",
    ]
    assert [e.text for e in store.recent_turns(store.scope(NS, ["bob"]), "c1", 5)] == [
        "said to all"
    ]
    assert store.recent_turns(store.scope(NS, ["carol"]), "c1", 5) == []


def test_stats_count_this_namespace_only(store, store_embedder):
    add(store, store_embedder, "a", "b", conversation="c1", time=T0)
    add(
        store,
        store_embedder,
        "c",
        conversation="c2",
        participants=["alice", "bob"],
        time=T0 + timedelta(days=1),
    )
    add(store, store_embedder, "elsewhere", ns=OTHER_NS, speaker="zed")
    stats = store.stats(NS)
    assert stats["episodes"] == 3
    assert stats["conversations"] == 2
    assert stats["participants"] == 2
    assert datetime.fromisoformat(stats["first"]) == T0
    assert datetime.fromisoformat(stats["last"]) == T0 + timedelta(days=1)
    assert stats["embedder"] == store_embedder.name
    assert store.stats(OTHER_NS)["episodes"] == 1


# -- update, delete, history ----------------------------------------------------------------------


def test_update_keeps_history_and_reindexes(store, store_embedder):
    [original] = add(
        store,
        store_embedder,
        "I adopted a cat named Whiskers",
        participants=["alice", "bob"],
        conversation="pets",
    )
    [other] = add(
        store,
        store_embedder,
        "bob likes cats too",
        speaker="bob",
        participants=["alice", "bob"],
        conversation="pets",
    )
    updated = store.update_episode(
        NS,
        original.id,
        new(
            store_embedder,
            "I adopted a parrot named Kesha",
            participants=["alice", "bob"],
            conversation="pets",
        ),
        "alice",
    )
    assert updated.id == original.id
    assert updated.text == "I adopted a parrot named Kesha"
    assert store.get_episode(NS, original.id).text == "I adopted a parrot named Kesha"
    assert updated.position == original.position
    assert updated.audience == original.audience
    assert updated.said_at == original.said_at
    assert updated.updated_at is not None and updated.updated_at >= original.stored_at

    history = store.history(NS, original.id)
    assert [h.event for h in history] == ["ADD", "UPDATE"]
    assert history[0].new_text == "I adopted a cat named Whiskers"
    assert history[1].old_text == "I adopted a cat named Whiskers"
    assert history[1].new_text == "I adopted a parrot named Kesha"
    assert history[1].actor == "alice"
    assert all(h.memory_id == original.id for h in history)
    assert all(h.at.utcoffset() == timedelta(0) for h in history)

    assert ids_of(
        store.text_search(store.scope(NS, ["alice"]), query_terms("parrot Kesha"), 10)
    ) == [original.id]
    assert store.text_search(store.scope(NS, ["alice"]), query_terms("Whiskers"), 10) == []
    assert original.id not in ids_of(
        store.text_search(store.scope(NS, ["alice"]), query_terms("cat"), 10)
    )
    assert other.id in ids_of(
        store.text_search(store.scope(NS, ["alice"]), query_terms("cats"), 10)
    )

    new_vector = store_embedder.embed(["I adopted a parrot named Kesha"])[0]
    hits = store.dense_search(store.scope(NS, ["alice"]), new_vector, 5)
    assert hits[0][0] == original.id and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert np.allclose(store.vector_of(NS, [original.id])[original.id], new_vector, atol=1e-6)


def test_delete_removes_everywhere_and_scrubs_history(store, store_embedder):
    [doomed] = add(store, store_embedder, "my password is hunter2 zebra")
    [kept] = add(store, store_embedder, "the zebra at the zoo was asleep")
    store.update_episode(
        NS, doomed.id, new(store_embedder, "my password is hunter3 zebra"), "alice"
    )
    vector = store_embedder.embed(["my password is hunter3 zebra"])[0]
    store.delete_episode(NS, doomed.id, "alice")

    with pytest.raises(NotFound):
        store.get_episode(NS, doomed.id)
    assert [e.id for e in store.list_episodes(NS)] == [kept.id]
    assert doomed.id not in ids_of(store.dense_search(store.scope(NS, ["alice"]), vector, 10))
    assert (
        store.text_search(store.scope(NS, ["alice"]), query_terms("password hunter2 hunter3"), 10)
        == []
    )
    assert ids_of(store.text_search(store.scope(NS, ["alice"]), query_terms("zebra"), 10)) == [
        kept.id
    ]
    assert ids_of(store.recent_search(store.scope(NS, ["alice"]), 10)) == [kept.id]
    assert store.fetch(store.scope(NS, ["alice"]), [doomed.id, kept.id])[0].id == kept.id
    assert len(store.fetch(store.scope(NS, ["alice"]), [doomed.id, kept.id])) == 1
    assert store.vector_of(NS, [doomed.id]) == {}

    history = store.history(NS, doomed.id)
    assert [h.event for h in history] == ["ADD", "UPDATE", "DELETE"]
    assert history[-1].actor == "alice"
    for event in history:
        assert event.old_text is None and event.new_text is None
    assert store.stats(NS)["episodes"] == 1

    with pytest.raises(NotFound):
        store.delete_episode(NS, doomed.id, None)
    with pytest.raises(NotFound):
        store.update_episode(NS, doomed.id, new(store_embedder, "resurrected"), None)
    assert store.get_episode(NS, kept.id).text == "the zebra at the zoo was asleep"


def test_a_new_memory_never_inherits_the_id_or_history_of_a_deleted_one(store, store_embedder):
    """An id names one memory forever: after deleting the newest memory, the next one
    must get a fresh id, and its history must hold only its own ADD event."""
    [first] = add(store, store_embedder, "first note")
    [second] = add(store, store_embedder, "second note")
    store.delete_episode(NS, second.id, "alice")
    [third] = add(store, store_embedder, "third note")
    assert third.id not in (first.id, second.id)
    assert [h.event for h in store.history(NS, third.id)] == ["ADD"]
    assert [h.event for h in store.history(NS, second.id)] == ["ADD", "DELETE"]
    with pytest.raises(NotFound):
        store.get_episode(NS, second.id)


# -- search -------------------------------------------------------------------------------------


def test_dense_search_ranks_the_exact_vector_first(store, store_embedder):
    texts = ["green tea in the morning", "black coffee at night", "a walk in the park"]
    episodes = add(store, store_embedder, *texts)
    for episode, text in zip(episodes, texts, strict=True):
        hits = store.dense_search(store.scope(NS, ["alice"]), store_embedder.embed([text])[0], 3)
        assert hits[0][0] == episode.id
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
    assert (
        len(store.dense_search(store.scope(NS, ["alice"]), store_embedder.embed(["tea"])[0], 2))
        == 2
    )


def test_text_search_stems_russian(store, store_embedder):
    [dog] = add(store, store_embedder, "У меня есть собака по кличке Шарик")
    add(store, store_embedder, "Мы купили новый диван")
    assert ids_of(store.text_search(store.scope(NS, ["alice"]), query_terms("собаку"), 10)) == [
        dog.id
    ]
    assert ids_of(store.text_search(store.scope(NS, ["alice"]), query_terms("собаки"), 10)) == [
        dog.id
    ]
    assert store.text_search(store.scope(NS, ["alice"]), query_terms("кошка"), 10) == []


def test_text_search_stems_english(store, store_embedder):
    [runner] = add(store, store_embedder, "Maria runs five kilometres every morning")
    add(store, store_embedder, "Maria cooks pasta on Sundays")
    assert ids_of(store.text_search(store.scope(NS, ["alice"]), query_terms("running"), 10)) == [
        runner.id
    ]
    assert ids_of(store.text_search(store.scope(NS, ["alice"]), query_terms("kilometre"), 10)) == [
        runner.id
    ]
    assert store.text_search(store.scope(NS, ["alice"]), [], 10) == []


def test_text_search_ranks_more_matching_terms_higher(store, store_embedder):
    one = add(store, store_embedder, "the bike is red")[0]
    both = add(store, store_embedder, "the bike shop gave a discount on the red bike")[0]
    hits = store.text_search(store.scope(NS, ["alice"]), query_terms("bike shop discount"), 10)
    assert ids_of(hits)[0] == both.id
    assert one.id in ids_of(hits)


def test_text_search_quotes_query_syntax(store, store_embedder):
    [episode] = add(store, store_embedder, "NEAR the OR gate AND the NOT gate")
    for odd in (['"'], ["*"], ["near", "or", "and", "not"], ["x' OR '1'='1"], ["(", ")"]):
        hits = store.text_search(
            store.scope(NS, ["alice"]), odd, 10
        )  # must not raise a syntax error
        assert set(ids_of(hits)) <= {episode.id}
    assert ids_of(store.text_search(store.scope(NS, ["alice"]), ["gate"], 10)) == [episode.id]


def test_recent_search_orders_by_time_said(store, store_embedder):
    middle = add(store, store_embedder, "middle", time=T0 + timedelta(days=1))[0]
    newest = add(store, store_embedder, "newest", time=T0 + timedelta(days=2))[0]
    oldest = add(store, store_embedder, "oldest", time=T0)[0]
    assert ids_of(store.recent_search(store.scope(NS, ["alice"]), 10)) == [
        newest.id,
        middle.id,
        oldest.id,
    ]
    assert ids_of(store.recent_search(store.scope(NS, ["alice"]), 2)) == [newest.id, middle.id]


def test_fetch_keeps_the_requested_order_and_drops_invisible(store, store_embedder):
    a, b = add(store, store_embedder, "alpha", "beta")
    [private] = add(store, store_embedder, "bob only", speaker="bob")
    fetched = store.fetch(store.scope(NS, ["alice"]), [b.id, private.id, a.id])
    assert [e.id for e in fetched] == [b.id, a.id]
    assert store.fetch(store.scope(NS, ["alice"]), []) == []


def test_vector_of_returns_stored_unit_vectors(store, store_embedder):
    a, b = add(store, store_embedder, "alpha beta", "gamma delta")
    vectors = store.vector_of(NS, [a.id, b.id])
    assert set(vectors) == {a.id, b.id}
    assert np.allclose(vectors[a.id], store_embedder.embed(["alpha beta"])[0], atol=1e-6)
    assert vectors[a.id].dtype == np.float32
    assert float(np.linalg.norm(vectors[b.id])) == pytest.approx(1.0, abs=1e-5)


# -- privacy in every search channel -----------------------------------------------------------

ALICE_BOB = ["alice", "bob"]


@pytest.fixture
def audiences(store, store_embedder):
    """One memory per audience, all sharing the word 'secret' and the same time."""
    made = {}
    for key, speaker, participants in (
        ("alice", "alice", ["alice"]),
        ("alice+bob", "alice", ALICE_BOB),
        ("alice+bob+carol", "carol", ["alice", "bob", "carol"]),
        ("bob", "bob", ["bob"]),
    ):
        [episode] = add(
            store,
            store_embedder,
            f"secret plan of {key}",
            speaker=speaker,
            participants=participants,
            conversation=key,
        )
        made[key] = episode.id
    return made


VISIBLE = [
    (["alice"], {"alice", "alice+bob", "alice+bob+carol"}),
    (["bob"], {"bob", "alice+bob", "alice+bob+carol"}),
    (["alice", "bob"], {"alice+bob", "alice+bob+carol"}),
    (["carol"], {"alice+bob+carol"}),
    (["alice", "bob", "carol"], {"alice+bob+carol"}),
    (["alice", "dave"], set()),
    (["dave"], set()),
]


@pytest.mark.parametrize(("present", "expected"), VISIBLE)
@pytest.mark.parametrize("channel", ["dense", "text", "recent", "fetch", "list"])
def test_every_channel_applies_the_privacy_rule(
    store, store_embedder, audiences, channel, present, expected
):
    if channel == "dense":
        vector = store_embedder.embed(["secret plan"])[0]
        found = ids_of(store.dense_search(store.scope(NS, present), vector, 50))
    elif channel == "text":
        found = ids_of(store.text_search(store.scope(NS, present), query_terms("secret plan"), 50))
    elif channel == "recent":
        found = ids_of(store.recent_search(store.scope(NS, present), 50))
    elif channel == "fetch":
        found = [e.id for e in store.fetch(store.scope(NS, present), list(audiences.values()))]
    else:
        found = [e.id for e in store.list_episodes(NS, participants=present)]
    assert sorted(found) == sorted(audiences[key] for key in expected)


def test_a_scope_needs_a_participant(store, store_embedder, audiences):
    with pytest.raises(InvalidInput):
        store.scope(NS, [])


def test_a_scope_is_a_snapshot_that_never_widens(store, store_embedder):
    """Rows of an audience that appears after the scope was issued stay out of it, even
    when the scope saw every audience of the namespace (no shortcut on the namespace)."""
    [mine] = add(store, store_embedder, "alice plans the garden party", speaker="alice")
    scope = store.scope(NS, ["alice"])
    [later] = add(store, store_embedder, "bob plans the garden party", speaker="bob")
    [shared] = add(store, store_embedder, "garden party for both", participants=["bob"])
    vector = store_embedder.embed(["garden party"])[0]
    words = query_terms("garden party")
    for found in (
        ids_of(store.dense_search(scope, vector, 10)),
        ids_of(store.text_search(scope, words, 10)),
        ids_of(store.recent_search(scope, 10)),
        [e.id for e in store.fetch(scope, [mine.id, later.id, shared.id])],
        store.matching(scope, words),
    ):
        assert found == [mine.id]
    fresh = store.scope(NS, ["alice"])
    assert sorted(ids_of(store.text_search(fresh, words, 10))) == [mine.id, shared.id]


def test_a_scope_from_another_store_is_refused(store, store_backend, store_embedder):
    add(store, store_embedder, "a note", speaker="alice")
    other = store_backend.open()
    try:
        foreign = other.scope(NS, ["alice"])
        with pytest.raises(InvalidInput):
            store.recent_search(foreign, 10)
        with pytest.raises(InvalidInput):
            store.fetch(foreign, [1])
    finally:
        other.close()


# -- embedder binding and reopening ------------------------------------------------------------


def test_bind_embedder_refuses_a_different_embedder(store, store_backend, store_embedder):
    assert store.embedder_name == store_embedder.name
    store.bind_embedder(store_embedder.name, store_embedder.dim)  # same again: fine
    with pytest.raises(InvalidInput):
        store.bind_embedder("some-other-model", store_embedder.dim)
    with pytest.raises(InvalidInput):
        store.bind_embedder(store_embedder.name, store_embedder.dim + 1)
    add(store, store_embedder, "still works")
    store.close()
    reopened = store_backend.open()
    try:
        with pytest.raises(InvalidInput):
            reopened.bind_embedder("some-other-model", 384)
        assert reopened.embedder_name == store_embedder.name
    finally:
        reopened.close()


def test_reopening_keeps_everything(store, store_backend, store_embedder):
    texts = [
        f"note {i}: {word} and more {word}"
        for i, word in enumerate(["apple", "banana", "cherry", "damson", "elderberry"])
    ]
    episodes = add(store, store_embedder, *texts, participants=ALICE_BOB)
    [private] = add(store, store_embedder, "alice alone with a fig", conversation="dm")
    store.update_episode(
        NS, episodes[1].id, new(store_embedder, "note 1: blueberry", participants=ALICE_BOB), "bob"
    )
    store.delete_episode(NS, episodes[2].id, "alice")
    query = store_embedder.embed(["note 3: damson and more damson"])[0]

    def snapshot(s: Store) -> tuple[Any, ...]:
        return (
            s.list_episodes(NS),
            [s.history(NS, e.id) for e in episodes],
            s.dense_search(s.scope(NS, ALICE_BOB), query, 10),
            s.dense_search(s.scope(NS, ["alice"]), query, 10),
            s.text_search(s.scope(NS, ["alice"]), query_terms("blueberry fig damson"), 10),
            s.recent_search(s.scope(NS, ["alice"]), 10),
            s.recent_turns(s.scope(NS, ["alice"]), "c1", 10),
            {k: v for k, v in s.stats(NS).items() if k != "bytes"},
        )

    before = snapshot(store)
    store.close()
    reopened = store_backend.open()
    try:
        reopened.bind_embedder(store_embedder.name, store_embedder.dim)
        after = snapshot(reopened)
        assert after[0] == before[0]
        assert after[1] == before[1]
        assert ids_of(after[2]) == ids_of(before[2])
        assert [s for _, s in after[2]] == pytest.approx([s for _, s in before[2]], abs=1e-6)
        assert ids_of(after[3]) == ids_of(before[3])
        assert after[2][0][0] == episodes[3].id
        assert private.id in ids_of(after[3]) and private.id not in ids_of(after[2])
        assert after[4:] == before[4:]
        assert len(after[0]) == 5
        assert reopened.get_episode(NS, episodes[1].id).text == "note 1: blueberry"
        # the reopened store keeps assigning fresh ids
        [later] = add(reopened, store_embedder, "after reopening")
        assert later.id > max(e.id for e in [*episodes, private])
    finally:
        reopened.close()


def test_privacy_holds_when_a_participant_has_many_audiences(store, store_embedder):
    """Someone in a hundred different groups: every channel still returns exactly the
    memories visible to the participants present (adapters may switch strategy when
    the visible audiences are many)."""
    groups = {}
    for i in range(100):
        [episode] = add(
            store,
            store_embedder,
            f"lantern festival note {i}",
            conversation=f"g{i}",
            participants=["alice", f"user{i}"],
        )
        groups[i] = episode.id
    [bobs] = add(store, store_embedder, "lantern festival secret", speaker="bob")
    [elsewhere] = add(store, store_embedder, "lantern festival elsewhere", ns=OTHER_NS)
    vector = store_embedder.embed(["lantern festival"])[0]
    everything = set(groups.values())

    def channels(present: list[str]) -> list[set[int]]:
        return [
            set(
                ids_of(
                    store.text_search(
                        store.scope(NS, present), query_terms("lantern festival"), 500
                    )
                )
            ),
            set(ids_of(store.dense_search(store.scope(NS, present), vector, 500))),
            set(ids_of(store.recent_search(store.scope(NS, present), 500))),
            {
                e.id
                for e in store.fetch(store.scope(NS, present), [*everything, bobs.id, elsewhere.id])
            },
            {e.id for e in store.list_episodes(NS, participants=present, limit=500)},
        ]

    assert channels(["alice"]) == [everything] * 5
    assert channels(["alice", "user7"]) == [{groups[7]}] * 5
    assert channels(["bob"]) == [{bobs.id}] * 5
    assert channels(["alice", "bob"]) == [set()] * 5
    assert ids_of(
        store.text_search(store.scope(OTHER_NS, ["alice"]), query_terms("lantern"), 500)
    ) == [elsewhere.id]


def test_neighbours_are_adjacent_visible_turns_of_the_same_conversation(store, store_embedder):
    turns = [
        add(
            store,
            store_embedder,
            f"c1 turn {i}",
            conversation="c1",
            participants=["alice"] if i == 3 else ["alice", "bob"],
        )[0]
        for i in range(7)
    ]
    add(store, store_embedder, "c2 turn 0", conversation="c2", participants=["alice", "bob"])
    around = store.neighbours(store.scope(NS, ["alice"]), [turns[2]], 2)
    assert sorted(e.text for e in around) == ["c1 turn 0", "c1 turn 1", "c1 turn 3", "c1 turn 4"]
    # bob was not present for turn 3: it is not his neighbour to see
    around_bob = store.neighbours(store.scope(NS, ["bob"]), [turns[2]], 2)
    assert sorted(e.text for e in around_bob) == ["c1 turn 0", "c1 turn 1", "c1 turn 4"]
    both = store.neighbours(store.scope(NS, ["alice"]), [turns[0], turns[6]], 1)
    assert sorted(e.text for e in both) == ["c1 turn 1", "c1 turn 5"]
    assert store.neighbours(store.scope(NS, ["alice"]), [turns[2]], 0) == []
    assert store.neighbours(store.scope(OTHER_NS, ["alice"]), [turns[2]], 2) == []


def test_conversations_list_their_participants_and_span(store, store_embedder):
    add(store, store_embedder, "hello", conversation="c1", participants=["alice", "bob"], time=T0)
    add(
        store,
        store_embedder,
        "carol joins",
        speaker="carol",
        conversation="c1",
        participants=["alice", "bob", "carol"],
        time=T0 + timedelta(minutes=5),
    )
    add(store, store_embedder, "solo", conversation="c2", time=T0 + timedelta(days=1))
    listed = store.conversations(NS)
    assert [c.id for c in listed] == ["c2", "c1"]
    c1 = listed[1]
    assert c1.participants == {"alice", "bob", "carol"} and c1.messages == 2
    assert c1.started_at == T0 and c1.last_at == T0 + timedelta(minutes=5)
    assert [c.id for c in store.conversations(NS, ["bob"])] == ["c1"]
    assert store.conversations(NS, ["dave"]) == []
    assert store.conversations(OTHER_NS) == []


# -- mentions found later (the sleep job's NER) ------------------------------------------------


def test_mentions_added_later_link_once_and_kinds_fill_only_the_generic_one(store, store_embedder):
    [episode] = add(store, store_embedder, "Melanie and Leo walked Rex around Oslo.")
    found = [Mention("Melanie", "melanie"), Mention("Oslo", "oslo"), Mention("Rex", "rex", "dog")]
    assert store.add_mentions(NS, episode.id, found) == 3
    assert store.add_mentions(NS, episode.id, [*found, Mention("Leo", "leo")]) == 1
    assert store.add_mentions(NS, episode.id, found) == 0
    entities = {e.key: e for e in store.entities(NS)}
    assert {k: (e.kind, e.mentions) for k, e in entities.items()} == {
        "melanie": ("name", 1), "oslo": ("name", 1), "rex": ("pet", 1), "leo": ("name", 1),
    }  # fmt: skip
    assert store.entity_episodes(NS, entities["leo"].id) == [episode.id]
    assert store.add_mentions(OTHER_NS, episode.id, found) == 0  # not an episode of OTHER_NS
    assert store.entities(OTHER_NS) == []

    kinds = {"oslo": "place", "melanie": "person", "rex": "person", "nobody": "org"}
    assert store.set_entity_kinds(NS, episode.id, kinds) == 2
    assert store.set_entity_kinds(NS, episode.id, {"oslo": "org"}) == 0  # not retyped
    assert store.set_entity_kinds(OTHER_NS, episode.id, {"leo": "person"}) == 0
    assert {e.key: e.kind for e in store.entities(NS)} == {
        "melanie": "person", "oslo": "place", "rex": "pet", "leo": "name",
    }  # fmt: skip


# -- entity views: what each audience may see ----------------------------------------------------


def test_entity_views_show_each_audience_only_what_it_may_see(store, store_embedder):
    mentions = (Mention("Leo", "leo", "brother"), Mention("Oslo", "oslo"))
    [dm] = store.add_episodes(NS, [replace(new(store_embedder, "My brother Leo is in Oslo."),
                                           mentions=mentions)])  # fmt: skip
    [group] = store.add_episodes(NS, [replace(
        new(store_embedder, "Oslo is cold.", participants=["alice", "bob"]),
        mentions=(Mention("Oslo", "oslo"),),
    )])  # fmt: skip
    assert store.gazetteer(store.scope(NS, ["alice"]), "alice") == {
        "leo": "leo", "oslo": "oslo", "my brother": "leo",
    }  # fmt: skip
    assert store.gazetteer(store.scope(NS, ["alice", "bob"]), "alice") == {"oslo": "oslo"}
    assert store.gazetteer(store.scope(OTHER_NS, ["alice"]), "alice") == {}
    admin = {e.key: e.mentions for e in store.entities(NS)}
    assert admin == {e.key: e.mentions for e in store.entities(NS, ["alice"])} == {
        "leo": 1, "oslo": 2,
    }  # fmt: skip
    assert {e.key: e.mentions for e in store.entities(NS, ["bob"])} == {"oslo": 1}
    oslo = next(e.id for e in store.entities(NS) if e.key == "oslo")
    assert store.entity_episodes(NS, oslo, ["bob"]) == [group.id]
    assert store.entity_episodes(NS, oslo, ["alice"], exactly=True) == [dm.id]
    assert store.entity_episodes(NS, oslo) == [dm.id, group.id]
    assert sorted(map(sorted, store.audiences(NS))) == [["alice"], ["alice", "bob"]]

    assert store.graph_search(store.scope(NS, ["bob"]), ["leo"], {}, T0, 10) == []
    store.delete_episode(NS, dm.id, None)  # takes its name and alias with it
    assert store.gazetteer(store.scope(NS, ["alice"]), "alice") == {"oslo": "oslo"}
    assert [e.key for e in store.entities(NS)] == ["oslo"]


@pytest.mark.parametrize("groups", [3, 40])  # read per audience, or all at once
def test_recent_search_is_the_newest_of_every_visible_audience(store, store_embedder, groups):
    episodes = []
    for n in range(groups * 3):
        members = ["alice", f"friend{n % groups}"]
        episodes += add(store, store_embedder, f"note {n}", participants=members,
                        time=T0 + timedelta(minutes=n // 2))  # fmt: skip
    add(store, store_embedder, "not hers", speaker="bob", time=T0 + timedelta(days=1))
    newest = sorted(episodes, key=lambda e: (e.said_at, e.id), reverse=True)
    assert ids_of(store.recent_search(store.scope(NS, ["alice"]), 7)) == [e.id for e in newest[:7]]
    group = [e for e in newest if "friend1" in e.audience]
    assert ids_of(store.recent_search(store.scope(NS, ["alice", "friend1"]), 2)) == [
        e.id for e in group[:2]
    ]
