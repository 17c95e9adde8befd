"""Contract suite for the claim, diary and job side of the store port.

Only the methods of `ClaimStore`, `DiaryStore` and `JobStore` (plus `add_episodes`, the
episode reads and the search methods to check re-indexing) are used, so every adapter in
`STORE_BACKENDS` runs the same cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from kuzya.errors import InvalidInput, NotFound
from kuzya.language.text import terms
from kuzya.model import DiaryEntry, Episode, Message
from kuzya.store.base import NewClaim, NewDiaryEntry, NewEpisode, Store, StoredClaim
from kuzya.testing import HashEmbedder

NS = "ns-facts"
OTHER_NS = "ns-facts-other"
T0 = datetime(2024, 5, 17, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)


class Boom(Exception):
    """Raised on purpose inside a write transaction."""


# -- helpers ----------------------------------------------------------------------------------


def vec(embedder: HashEmbedder, text: str) -> np.ndarray:
    return embedder.embed([text])[0]


def new_episode(
    embedder: HashEmbedder,
    text: str,
    *,
    speaker: str = "ana",
    participants: Sequence[str] = (),
    conversation: str = "c1",
    time: datetime = T0,
) -> NewEpisode:
    audience = tuple(dict.fromkeys((*participants, speaker)))
    message = Message(text, speaker, conversation, audience, time)
    return NewEpisode(message, vec(embedder, text), " ".join(terms(text)))


def episode(
    store: Store, embedder: HashEmbedder, text: str = "a message", *, ns: str = NS, **kw: Any
) -> Episode:
    [stored] = store.add_episodes(ns, [new_episode(embedder, text, **kw)])
    return stored


def new_claim(
    embedder: HashEmbedder,
    episode_id: int,
    *,
    subject: str = "ana",
    attribute: str = "lives_in",
    value: str = "Lisbon",
    negated: bool = False,
    origin: str = "rules",
) -> NewClaim:
    statement = f"{subject} {attribute} {value}"
    return NewClaim(
        episode_id=episode_id,
        subject=subject,
        attribute=attribute,
        value=value,
        value_key=" ".join(terms(value)),
        negated=negated,
        statement=statement,
        origin=origin,
        vector=vec(embedder, statement),
        own_vector=vec(embedder, f"my {attribute} {value}"),
    )


def claim_ids(claims: Sequence[StoredClaim]) -> list[int]:
    return [c.id for c in claims]


def one_claim(store: Store, new: NewClaim, ns: str = NS) -> int:
    assert store.add_claims(ns, [new]) == 1
    return max(claim_ids(store.claims(ns, participants=None)))


def new_diary(
    embedder: HashEmbedder,
    *,
    kind: str = "day",
    key: str = "2024-05-17",
    level: int = 0,
    text: str = "ana talked about Lisbon",
    start: datetime = T0,
    end: datetime | None = None,
    audience: Sequence[str] = ("ana",),
    sources: Sequence[int] = (),
    origin: str = "extractive",
    covers: Sequence[int] = (),
) -> NewDiaryEntry:
    return NewDiaryEntry(
        kind=kind,
        key=key,
        level=level,
        text=text,
        start=start,
        end=end or start + timedelta(hours=1),
        audience=tuple(audience),
        sources=tuple(sources),
        origin=origin,
        vector=vec(embedder, text),
        covers=tuple(covers),
    )


def diary_ids(entries: Sequence[DiaryEntry]) -> list[int]:
    return [e.id for e in entries]


# -- claims -----------------------------------------------------------------------------------


def test_add_claims_round_trips_every_field(store, store_embedder):
    source = episode(store, store_embedder, participants=["bruno"], time=T0 + DAY)
    before = datetime.now(UTC)
    claim_id = one_claim(store, new_claim(store_embedder, source.id, negated=True, origin="llm:x"))
    (found,) = store.claims(NS, participants=["ana"])
    assert found == StoredClaim(
        id=claim_id,
        episode_id=source.id,
        subject="ana",
        attribute="lives_in",
        value="Lisbon",
        value_key="lisbon",
        negated=True,
        statement="ana lives_in Lisbon",
        said_at=T0 + DAY,
        audience=frozenset({"ana", "bruno"}),
        origin="llm:x",
        recorded_at=found.recorded_at,
    )
    assert before - timedelta(seconds=5) <= found.recorded_at <= datetime.now(UTC)
    vectors = store.claim_vectors(NS, [claim_id])[claim_id]
    assert np.allclose(vectors[0], vec(store_embedder, "ana lives_in Lisbon"))
    assert np.allclose(vectors[1], vec(store_embedder, "my lives_in Lisbon"))


def test_claims_come_in_the_order_they_were_said(store, store_embedder):
    late = episode(store, store_embedder, "late", time=T0 + 2 * DAY).id
    early = episode(store, store_embedder, "early", time=T0).id
    store.add_claims(NS, [new_claim(store_embedder, late), new_claim(store_embedder, early)])
    assert [c.episode_id for c in store.claims(NS, participants=["ana"])] == [early, late]


def test_add_claims_skips_what_was_stored_before(store, store_embedder):
    source = episode(store, store_embedder).id
    assert store.add_claims(NS, [new_claim(store_embedder, source)]) == 1
    assert store.add_claims(NS, [new_claim(store_embedder, source, value="lisbon.")]) == 0
    version = store.claims_version(NS)
    assert store.add_claims(NS, [new_claim(store_embedder, source)]) == 0
    assert store.claims_version(NS) == version
    assert store.add_claims(NS, [new_claim(store_embedder, source, negated=True)]) == 1
    assert store.add_claims(NS, [new_claim(store_embedder, source, subject="bo")]) == 1
    assert len(store.claims(NS, participants=None)) == 3


@pytest.mark.parametrize("where", ["unknown", "other namespace"])
def test_add_claims_refuses_an_episode_it_cannot_see_and_writes_nothing(
    store, store_embedder, where
):
    good = episode(store, store_embedder).id
    bad = episode(store, store_embedder, ns=OTHER_NS).id if where != "unknown" else good + 999
    with pytest.raises(InvalidInput):
        store.add_claims(NS, [new_claim(store_embedder, good), new_claim(store_embedder, bad)])
    assert store.claims(NS, participants=None) == []
    assert store.claims(OTHER_NS, participants=None) == []
    assert store.claims_version(NS) == 0


def test_claims_filter_by_subject_and_episodes(store, store_embedder):
    first, second = (episode(store, store_embedder, t).id for t in ("one", "two"))
    store.add_claims(
        NS,
        [
            new_claim(store_embedder, first),
            new_claim(store_embedder, first, subject="Priya", attribute="job", value="nurse"),
            new_claim(store_embedder, second, attribute="likes", value="jazz"),
        ],
    )
    assert [c.subject for c in store.claims(NS, participants=None, subject="Priya")] == ["Priya"]
    assert [c.value for c in store.claims(NS, participants=["ana"], episodes=[second])] == ["jazz"]
    assert len(store.claims(NS, participants=None, episodes=[first, second])) == 3
    assert store.claims(NS, participants=None, episodes=[second + 100]) == []


def test_forget_claims_leaves_a_record_without_words(store, store_embedder):
    private_ = episode(store, store_embedder, participants=["bruno"]).id
    kept, gone = (
        one_claim(store, new_claim(store_embedder, private_, attribute=a, value=v))
        for a, v in (("likes", "jazz"), ("address", "12 Oak Street"))
    )
    version = store.claims_version(NS)
    assert store.forget_claims(NS, [gone, gone + 100], "asked to forget", "ana") == 1
    assert claim_ids(store.claims(NS, participants=None)) == [kept]
    assert store.claims_version(NS) != version
    assert store.claim_vectors(NS, [gone]) == {}
    ((event, reason, _),) = store.forgotten(NS, gone, ["ana", "bruno"])
    assert event == "FORGET" and reason == "asked to forget"
    assert store.forgotten(NS, gone, None) == store.forgotten(NS, gone, ["bruno"])
    assert store.forgotten(NS, gone, ["carol"]) == []
    assert store.forgotten(NS, kept, None) == []
    assert store.forget_claims(NS, [], "nothing", None) == 0


def test_deleting_an_episode_deletes_its_claims(store, store_embedder):
    first, second = (episode(store, store_embedder, t).id for t in ("one", "two"))
    gone = one_claim(store, new_claim(store_embedder, first))
    kept = one_claim(store, new_claim(store_embedder, second))
    version = store.claims_version(NS)
    store.delete_episode(NS, first, "ana")
    assert claim_ids(store.claims(NS, participants=None)) == [kept]
    assert store.claims_version(NS) != version
    assert [event for event, _, _ in store.forgotten(NS, gone, ["ana"])] == ["FORGET"]


def test_claims_never_cross_namespaces(store, store_embedder):
    source = episode(store, store_embedder).id
    mine = one_claim(store, new_claim(store_embedder, source))
    assert store.claims(OTHER_NS, participants=None) == []
    assert store.claim_vectors(OTHER_NS, [mine]) == {}
    assert store.claims_version(OTHER_NS) == 0
    assert store.forget_claims(OTHER_NS, [mine], "elsewhere", "mallory") == 0
    assert claim_ids(store.claims(NS, participants=None)) == [mine]
    assert store.forgotten(OTHER_NS, mine, None) == []


def test_derivations_link_a_reply_to_its_sources(store, store_embedder):
    source, other = (episode(store, store_embedder, t) for t in ("the source", "other"))
    message = Message(
        "a reply", "assistant", "c1", ("ana", "assistant"), T0, derived_from=(source.id, other.id)
    )
    [reply] = store.add_episodes(NS, [NewEpisode(message, vec(store_embedder, "a reply"), "reply")])
    assert store.derived_from(NS, [source.id]) == [reply.id]
    assert store.derived_from(NS, [source.id, other.id]) == [reply.id]
    assert store.derived_from(OTHER_NS, [source.id]) == []
    assert store.derived_from(NS, [reply.id]) == []
    store.delete_episode(NS, source.id, None)
    assert store.derived_from(NS, [source.id]) == []
    assert store.derived_from(NS, [other.id]) == [reply.id]


def test_history_is_shown_to_those_who_may_see_the_memory(store, store_embedder):
    said = episode(store, store_embedder, participants=["bruno"])
    assert [h.event for h in store.history(NS, said.id, ["bruno"])] == ["ADD"]
    store.delete_episode(NS, said.id, "ana")
    assert [h.event for h in store.history(NS, said.id, ["ana", "bruno"])] == ["ADD", "DELETE"]
    with pytest.raises(NotFound):
        store.history(NS, said.id, ["carol"])
    assert len(store.history(NS, said.id)) == 2


def test_matching_needs_every_term_and_has_no_limit(store, store_embedder):
    made = [episode(store, store_embedder, f"trip to Oslo number {i}").id for i in range(250)]
    episode(store, store_embedder, "a trip to Bergen")
    hidden = episode(store, store_embedder, "my trip to Oslo", speaker="bruno").id
    assert store.matching(store.scope(NS, ["ana"]), terms("trip Oslo")) == made
    assert hidden in store.matching(store.scope(NS, ["bruno"]), terms("trip Oslo"))
    assert store.matching(store.scope(NS, ["ana"]), []) == []
    assert store.matching(store.scope(OTHER_NS, ["ana"]), terms("trip Oslo")) == []


# -- privacy ------------------------------------------------------------------------------------


AUDIENCES = {
    "ana": ("ana",),
    "ana+bruno": ("ana", "bruno"),
    "ana+bruno+carol": ("ana", "bruno", "carol"),
    "bruno": ("bruno",),
}
VISIBLE = [
    (["ana"], {"ana", "ana+bruno", "ana+bruno+carol"}),
    (["bruno"], {"bruno", "ana+bruno", "ana+bruno+carol"}),
    (["ana", "bruno"], {"ana+bruno", "ana+bruno+carol"}),
    (["carol"], {"ana+bruno+carol"}),
    (["ana", "bruno", "carol"], {"ana+bruno+carol"}),
    (["ana", "dave"], set()),
    (["dave"], set()),
]


@pytest.fixture
def private(store, store_embedder) -> dict[str, dict[str, int]]:
    """One claim and one diary entry per audience: {"claims": {key: id}, "diary": {...}}."""
    made: dict[str, dict[str, int]] = {"claims": {}, "diary": {}}
    for key, audience in AUDIENCES.items():
        source = episode(
            store, store_embedder, speaker=audience[0], participants=audience, conversation=key
        ).id
        made["claims"][key] = one_claim(store, new_claim(store_embedder, source, value=key))
        made["diary"][key] = store.put_diary(
            NS,
            new_diary(
                store_embedder,
                key=key,
                text=f"secret plan of {key}",
                audience=audience,
                sources=[source],
            ),
        ).id
    return made


@pytest.mark.parametrize(("present", "expected"), VISIBLE)
@pytest.mark.parametrize("channel", ["claims", "diary"])
def test_claims_and_diary_obey_the_privacy_rule(store, private, channel, present, expected):
    if channel == "claims":
        found = claim_ids(store.claims(NS, participants=present))
    else:
        found = diary_ids(store.diary(NS, participants=present))
    assert sorted(found) == sorted(private[channel][key] for key in expected)


def test_unfiltered_reads_return_every_audience(store, private):
    assert sorted(claim_ids(store.claims(NS, participants=None))) == sorted(
        private["claims"].values()
    )
    assert sorted(diary_ids(store.diary(NS))) == sorted(private["diary"].values())


def test_reading_with_no_one_present_is_refused(store, private):
    with pytest.raises(InvalidInput):
        store.claims(NS, participants=[])
    with pytest.raises(InvalidInput):
        store.diary(NS, participants=[])


# -- namespaces ---------------------------------------------------------------------------------


def test_diary_and_jobs_never_cross_namespaces(store, store_embedder):
    entry = store.put_diary(NS, new_diary(store_embedder))
    assert store.diary(OTHER_NS) == [] and store.diary(OTHER_NS, ids=[entry.id]) == []
    twin = store.put_diary(
        OTHER_NS, new_diary(store_embedder, text="elsewhere", covers=[entry.id], level=1)
    )
    same_key = store.put_diary(OTHER_NS, new_diary(store_embedder, text="other text"))
    assert len({entry.id, twin.id, same_key.id}) == 3
    assert store.diary(NS) == [entry]
    assert store.diary(NS, uncompressed=True) == [entry]
    assert sorted(diary_ids(store.diary(OTHER_NS))) == sorted([twin.id, same_key.id])
    store.set_job_position(NS, "facts", 40)
    assert store.job_position(OTHER_NS, "facts") == 0
    store.set_job_position(OTHER_NS, "facts", 7)
    assert store.job_position(NS, "facts") == 40
    assert store.job_position(OTHER_NS, "facts") == 7


# -- diary --------------------------------------------------------------------------------------


def test_put_diary_round_trips_every_field(store, store_embedder):
    sources = tuple(episode(store, store_embedder, t).id for t in ("one", "two"))
    start = datetime(2024, 5, 17, 0, 0, tzinfo=timezone(timedelta(hours=3)))
    new = new_diary(
        store_embedder,
        kind="conversation",
        key="c1",
        level=0,
        text="Ана рассказала про Лиссабон 🌊",
        start=start,
        end=start + DAY,
        audience=("bruno", "ana"),
        sources=sources,
        origin="llm:test-model",
    )
    before = datetime.now(UTC) - timedelta(seconds=1)
    put = store.put_diary(NS, new)
    after = datetime.now(UTC) + timedelta(seconds=1)
    for entry in (put, *store.diary(NS), *store.diary(NS, ids=[put.id], participants=["bruno"])):
        assert entry.id == put.id
        assert (entry.kind, entry.key, entry.level) == ("conversation", "c1", 0)
        assert entry.text == "Ана рассказала про Лиссабон 🌊"
        assert entry.start == start and entry.end == start + DAY
        assert entry.start.utcoffset() == timedelta(0)
        assert entry.audience == frozenset({"ana", "bruno"})
        assert entry.sources == sources and entry.origin == "llm:test-model"
        assert before <= entry.created_at <= after
    assert np.allclose(store.diary_vectors(NS, [put.id])[0], new.vector, atol=1e-6)


def test_put_diary_replaces_the_entry_of_the_same_kind_key_level_and_audience(
    store, store_embedder
):
    first = store.put_diary(NS, new_diary(store_embedder, text="a quiet day", sources=[1]))
    second = store.put_diary(
        NS, new_diary(store_embedder, text="a busy day in Porto", sources=[1, 2])
    )
    assert second.id == first.id
    [stored] = store.diary(NS)
    assert stored.text == "a busy day in Porto" and stored.sources == (1, 2)
    expected = vec(store_embedder, "a busy day in Porto")
    assert np.allclose(store.diary_vectors(NS, [first.id])[0], expected, atol=1e-6)


@pytest.mark.parametrize(
    "change",
    [{"kind": "period"}, {"key": "2024-05-18"}, {"level": 1}, {"audience": ("ana", "bruno")}],
    ids=["kind", "key", "level", "audience"],
)
def test_put_diary_keeps_entries_that_differ_in_one_part_of_the_key(store, store_embedder, change):
    first = store.put_diary(NS, new_diary(store_embedder, text="first"))
    second = store.put_diary(NS, new_diary(store_embedder, text="second", **change))
    assert second.id != first.id
    assert sorted(e.text for e in store.diary(NS)) == ["first", "second"]


def test_covered_entries_are_compressed(store, store_embedder):
    days = [
        store.put_diary(
            NS, new_diary(store_embedder, key=f"day{i}", start=T0 + i * DAY, text=f"day {i}")
        )
        for i in range(3)
    ]
    period = store.put_diary(
        NS,
        new_diary(
            store_embedder,
            kind="period",
            key="week",
            level=1,
            text="a week",
            start=T0,
            end=T0 + 3 * DAY,
            covers=[days[0].id, days[1].id],
        ),
    )
    assert sorted(diary_ids(store.diary(NS))) == sorted([*diary_ids(days), period.id])
    assert sorted(diary_ids(store.diary(NS, uncompressed=True))) == sorted([days[2].id, period.id])
    assert diary_ids(store.diary(NS, kind="day", uncompressed=True)) == [days[2].id]


def test_diary_before_and_kind_filters(store, store_embedder):
    days = [
        store.put_diary(
            NS,
            new_diary(store_embedder, key=f"day{i}", start=T0 + i * DAY, end=T0 + (i + 1) * DAY),
        )
        for i in range(3)
    ]
    period = store.put_diary(
        NS, new_diary(store_embedder, kind="period", key="p", start=T0, end=T0 + 3 * DAY)
    )
    cut = T0 + 2 * DAY + timedelta(hours=1)
    assert sorted(diary_ids(store.diary(NS, before=cut))) == sorted(diary_ids(days[:2]))
    assert store.diary(NS, before=T0) == []
    assert sorted(diary_ids(store.diary(NS, before=T0 + 10 * DAY))) == sorted(
        [*diary_ids(days), period.id]
    )
    assert sorted(diary_ids(store.diary(NS, kind="day"))) == sorted(diary_ids(days))
    assert diary_ids(store.diary(NS, kind="period")) == [period.id]
    assert store.diary(NS, kind="conversation") == []


def test_diary_vectors_follow_the_order_of_the_ids(store, store_embedder):
    texts = ["rain in Porto", "sun in Faro", "snow in Braga"]
    entries = [
        store.put_diary(NS, new_diary(store_embedder, key=text, text=text)) for text in texts
    ]
    order = [entries[2].id, entries[0].id, entries[1].id]
    vectors = store.diary_vectors(NS, order)
    assert vectors.shape == (3, store_embedder.dim)
    for row, index in zip(vectors, (2, 0, 1), strict=True):
        assert np.allclose(row, vec(store_embedder, texts[index]), atol=1e-6)


# -- jobs ---------------------------------------------------------------------------------------


def test_job_position_starts_at_zero(store):
    assert store.job_position(NS, "facts") == 0
    assert store.job_position(NS, "diary") == 0


@pytest.mark.parametrize(
    ("moves", "expected"),
    [([5], 5), ([5, 3], 5), ([5, 5], 5), ([5, 9], 9), ([2, 8, 4, 6], 8), ([0], 0)],
)
def test_set_job_position_only_moves_forward(store, moves, expected):
    for position in moves:
        store.set_job_position(NS, "facts", position)
    assert store.job_position(NS, "facts") == expected


def test_job_positions_are_kept_per_job(store):
    store.set_job_position(NS, "facts", 12)
    store.set_job_position(NS, "diary", 3)
    assert store.job_position(NS, "facts") == 12
    assert store.job_position(NS, "diary") == 3
    assert store.job_position(NS, "entities") == 0


def test_episodes_after_returns_every_audience_in_id_order(store, store_embedder):
    made = [
        episode(store, store_embedder, f"turn {i}", speaker=speaker, participants=extra).id
        for i, (speaker, extra) in enumerate(
            [("ana", []), ("bruno", []), ("ana", ["bruno"]), ("carol", []), ("ana", [])]
        )
    ]
    episode(store, store_embedder, "elsewhere", ns=OTHER_NS)
    assert [e.id for e in store.episodes_after(NS, 0, 100)] == made
    assert [e.id for e in store.episodes_after(NS, made[1], 2)] == made[2:4]
    assert [e.text for e in store.episodes_after(NS, made[1], 2)] == ["turn 2", "turn 3"]
    assert store.episodes_after(NS, made[-1], 100) == []
    assert [e.text for e in store.episodes_after(OTHER_NS, 0, 100)] == ["elsewhere"]


def test_redact_episode_replaces_the_text_and_every_trace_of_it(store, store_embedder):
    original = episode(store, store_embedder, "I met Rodrigo at the lighthouse")
    other = episode(store, store_embedder, "the lighthouse was closed")
    store.update_episode(
        NS, original.id, new_episode(store_embedder, "I met Rodrigo at the old lighthouse"), "ana"
    )
    redacted_text = "I met someone at the old lighthouse"
    redacted = store.redact_episode(
        NS, original.id, new_episode(store_embedder, redacted_text), "ana"
    )
    assert redacted.id == original.id and redacted.text == redacted_text
    assert store.get_episode(NS, original.id).text == redacted_text
    assert store.text_search(store.scope(NS, ["ana"]), terms("Rodrigo"), 10) == []
    assert [i for i, _ in store.text_search(store.scope(NS, ["ana"]), terms("someone"), 10)] == [
        original.id
    ]
    lighthouse = {
        i for i, _ in store.text_search(store.scope(NS, ["ana"]), terms("lighthouse"), 10)
    }
    assert lighthouse == {original.id, other.id}
    hits = store.dense_search(store.scope(NS, ["ana"]), vec(store_embedder, redacted_text), 1)
    assert hits[0][0] == original.id and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    history = store.history(NS, original.id)
    assert history[-1].event == "FORGET" and history[-1].actor == "ana"
    for event in history:
        assert event.old_text is None
        assert "rodrigo" not in (event.new_text or "").lower()
    with pytest.raises(NotFound):
        store.redact_episode(NS, original.id + 1000, new_episode(store_embedder, "x"), None)


# -- reopening ----------------------------------------------------------------------------------


def test_claims_diary_and_jobs_survive_reopening(store, store_backend, store_embedder):
    first, second = (episode(store, store_embedder, t).id for t in ("one", "two"))
    kept = one_claim(store, new_claim(store_embedder, first, attribute="likes", value="tea"))
    one_claim(store, new_claim(store_embedder, second, attribute="likes", value="tea"))
    forgotten = one_claim(store, new_claim(store_embedder, second, attribute="pet", value="cat"))
    store.forget_claims(NS, [forgotten], "asked to forget", "ana")
    day = store.put_diary(NS, new_diary(store_embedder, sources=[first]))
    week = store.put_diary(
        NS, new_diary(store_embedder, kind="period", key="w", level=1, covers=[day.id])
    )
    store.set_job_position(NS, "facts", second)

    def snapshot(s: Store) -> tuple[Any, ...]:
        return (
            s.claims(NS, participants=["ana"]),
            {i: [v.tolist() for v in pair] for i, pair in s.claim_vectors(NS, [kept]).items()},
            s.forgotten(NS, forgotten, ["ana"]),
            s.claims_version(NS),
            s.diary(NS),
            diary_ids(s.diary(NS, uncompressed=True)),
            s.diary_vectors(NS, [day.id, week.id]).tolist(),
            s.job_position(NS, "facts"),
        )

    before = snapshot(store)
    assert len(before[0]) == 2 and before[5] == [week.id] and before[7] == second
    store.close()
    reopened = store_backend.open()
    try:
        reopened.bind_embedder(store_embedder.name, store_embedder.dim)
        assert snapshot(reopened) == before
        reopened.set_job_position(NS, "facts", first)
        assert reopened.job_position(NS, "facts") == second
        later = one_claim(
            reopened, new_claim(store_embedder, second, attribute="owns", value="car")
        )
        assert later > max(kept, forgotten)
    finally:
        reopened.close()
