"""Contract suite for the fact, diary and job side of the store port.

Only the methods of `FactStore`, `FactWriter`, `DiaryStore` and `JobStore` (plus
`add_episodes` and the search methods to check re-indexing) are used, so every adapter
in `STORE_BACKENDS` runs the same cases.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from kuzya.errors import InvalidInput, NotFound
from kuzya.model import DiaryEntry, Episode, Fact, Message
from kuzya.store.base import NewDiaryEntry, NewEpisode, NewFact, Store
from kuzya.testing import HashEmbedder
from kuzya.text import terms

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


def new_fact(
    embedder: HashEmbedder,
    source: int,
    *,
    subject: str = "ana",
    attribute: str = "city",
    value: str = "Lisbon",
    statement: str | None = None,
    own: str | None = None,
    category: str = "place",
    priority: int = 1,
    audience: Sequence[str] = ("ana",),
    valid_from: datetime = T0,
    valid_to: datetime | None = None,
    origin: str = "rules",
) -> NewFact:
    statement = statement or f"{subject} {attribute} {value}"
    return NewFact(
        subject=subject,
        attribute=attribute,
        value=value,
        value_key=" ".join(terms(value)),
        statement=statement,
        category=category,
        priority=priority,
        audience=tuple(audience),
        valid_from=valid_from,
        valid_to=valid_to,
        origin=origin,
        vector=vec(embedder, statement),
        own_vector=vec(embedder, own or f"my {attribute} {value}"),
        source=source,
    )


def add_fact(store: Store, new: NewFact, ns: str = NS) -> int:
    with store.fact_writer(ns) as writer:
        return writer.add(new)


def fact(store: Store, fact_id: int, ns: str = NS) -> Fact:
    [found] = store.facts(ns, ids=[fact_id], current_only=False)
    return found


def fact_ids(facts: Sequence[Fact]) -> list[int]:
    return [f.id for f in facts]


def events(store: Store, fact_id: int, ns: str = NS) -> list[str]:
    return [event for event, _, _ in store.fact_history(ns, fact_id)]


def close(store: Store, fact_id: int, when: datetime = T0 + DAY, ns: str = NS) -> None:
    with store.fact_writer(ns) as writer:
        writer.close(fact_id, when, "moved away")


def retire(store: Store, fact_id: int, ns: str = NS) -> None:
    with store.fact_writer(ns) as writer:
        writer.retire(fact_id, "asked to forget", "ana")


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


# -- facts: writing and reading ----------------------------------------------------------------


def test_add_round_trips_every_field(store, store_embedder):
    source = episode(store, store_embedder, participants=["bruno"]).id
    lisbon = timezone(timedelta(hours=1))
    valid_from = datetime(2023, 4, 1, 12, 0, 5, 250000, tzinfo=lisbon)
    new = new_fact(
        store_embedder,
        source,
        value="Lisboa 🌊",
        statement="ana lives in Lisboa 🌊",
        category="home",
        priority=7,
        audience=("bruno", "ana"),
        valid_from=valid_from,
        origin="llm:test-model",
    )
    before = datetime.now(UTC) - timedelta(seconds=1)
    with store.fact_writer(NS) as writer:
        fact_id = writer.add(new)
        inside = writer.current("ana", "city")
    after = datetime.now(UTC) + timedelta(seconds=1)
    query = vec(store_embedder, "ana lives in Lisboa 🌊")
    with store.fact_writer(NS) as writer:
        seen_by_writer = [*writer.current("ana", "city"), *writer.stated_by(source)]
    for found in (
        *inside,
        *seen_by_writer,
        *store.facts(NS),
        *store.facts(NS, participants=["ana", "bruno"], subject="ana"),
        store.fact_search(NS, query, ["bruno"], 1)[0][0],
    ):
        assert found.id == fact_id
        assert (found.subject, found.attribute, found.value) == ("ana", "city", "Lisboa 🌊")
        assert found.statement == "ana lives in Lisboa 🌊"
        assert (found.category, found.priority, found.origin) == ("home", 7, "llm:test-model")
        assert found.audience == frozenset({"ana", "bruno"})
        assert (found.strength, found.sources) == (1, (source,))
        assert found.valid_from == valid_from and found.valid_from.utcoffset() == timedelta(0)
        assert found.valid_to is None and found.retired_at is None
        assert before <= found.recorded_at <= after
        assert found.recorded_at.utcoffset() == timedelta(0)


def test_a_fact_added_with_an_end_is_recorded_as_past(store, store_embedder):
    source = episode(store, store_embedder).id
    ended = T0 + timedelta(days=30)
    fact_id = add_fact(store, new_fact(store_embedder, source, valid_to=ended))
    assert store.facts(NS) == []
    past = fact(store, fact_id)
    assert past.valid_from == T0 and past.valid_to == ended and past.retired_at is None
    with store.fact_writer(NS) as writer:
        assert writer.current("ana", "city") == []


def test_ids_are_distinct_and_facts_are_ordered_by_priority(store, store_embedder):
    source = episode(store, store_embedder).id
    ids = {
        priority: add_fact(
            store, new_fact(store_embedder, source, attribute=f"a{priority}", priority=priority)
        )
        for priority in (2, 9, 0, 5)
    }
    assert len(set(ids.values())) == 4 and all(i > 0 for i in ids.values())
    assert [f.priority for f in store.facts(NS)] == [9, 5, 2, 0]
    assert fact_ids(store.facts(NS)) == [ids[9], ids[5], ids[2], ids[0]]


def test_facts_filter_by_subject_and_ids(store, store_embedder):
    source = episode(store, store_embedder).id
    ana = add_fact(store, new_fact(store_embedder, source, subject="ana"))
    bruno = add_fact(store, new_fact(store_embedder, source, subject="bruno"))
    assert fact_ids(store.facts(NS, subject="bruno")) == [bruno]
    assert fact_ids(store.facts(NS, subject="carol")) == []
    assert fact_ids(store.facts(NS, ids=[ana])) == [ana]
    assert sorted(fact_ids(store.facts(NS, ids=[ana, bruno]))) == sorted([ana, bruno])


def test_current_filters_by_subject_and_attribute_in_every_audience(store, store_embedder):
    source = episode(store, store_embedder, participants=["bruno"]).id
    mine = add_fact(store, new_fact(store_embedder, source))
    shared = add_fact(store, new_fact(store_embedder, source, audience=("ana", "bruno")))
    add_fact(store, new_fact(store_embedder, source, attribute="job", value="pilot"))
    add_fact(store, new_fact(store_embedder, source, subject="bruno"))
    with store.fact_writer(NS) as writer:
        assert sorted(fact_ids(writer.current("ana", "city"))) == sorted([mine, shared])
        assert [f.value for f in writer.current("ana", "job")] == ["pilot"]
        assert writer.current("ana", "pet") == []


def test_current_excludes_closed_and_retired_facts(store, store_embedder):
    source = episode(store, store_embedder).id
    closed, retired, kept = (
        add_fact(store, new_fact(store_embedder, source, value=v))
        for v in ("Porto", "Faro", "Braga")
    )
    close(store, closed)
    retire(store, retired)
    with store.fact_writer(NS) as writer:
        assert fact_ids(writer.current("ana", "city")) == [kept]


def test_a_writer_reads_its_own_uncommitted_changes(store, store_embedder):
    source = episode(store, store_embedder).id
    old = add_fact(store, new_fact(store_embedder, source, value="Porto"))
    with store.fact_writer(NS) as writer:
        added = writer.add(new_fact(store_embedder, source, value="Lisbon"))
        writer.close(old, T0 + DAY, "replaced")
        assert fact_ids(writer.current("ana", "city")) == [added]
        assert sorted(fact_ids(writer.stated_by(source))) == sorted([old, added])


def test_stated_by_lists_the_facts_an_episode_stated_or_repeated(store, store_embedder):
    first, second, third = (episode(store, store_embedder, t).id for t in ("one", "two", "three"))
    from_first = add_fact(store, new_fact(store_embedder, first))
    from_second = add_fact(store, new_fact(store_embedder, second, attribute="job"))
    with store.fact_writer(NS) as writer:
        writer.add_source(from_first, second)
        assert sorted(fact_ids(writer.stated_by(second))) == sorted([from_first, from_second])
        assert fact_ids(writer.stated_by(first)) == [from_first]
        assert writer.stated_by(third) == []


def test_add_source_strengthens_once_per_episode(store, store_embedder):
    first, second, third = (episode(store, store_embedder, t).id for t in ("one", "two", "three"))
    fact_id = add_fact(store, new_fact(store_embedder, first))
    with store.fact_writer(NS) as writer:
        assert writer.add_source(fact_id, third) is True
        assert writer.add_source(fact_id, third) is False
    with store.fact_writer(NS) as writer:
        assert writer.add_source(fact_id, first) is False  # the stating episode counts
        assert writer.add_source(fact_id, second) is True
        assert writer.add_source(fact_id, second) is False
    stored = fact(store, fact_id)
    assert stored.strength == 3
    assert stored.sources == (first, second, third)
    assert events(store, fact_id) == ["ADD", "STRENGTHEN", "STRENGTHEN"]


def test_close_sets_valid_to_and_hides_the_fact_from_current_only(store, store_embedder):
    source = episode(store, store_embedder).id
    fact_id = add_fact(store, new_fact(store_embedder, source))
    ended = datetime(2024, 6, 1, 8, 0, tzinfo=timezone(timedelta(hours=-3)))
    close(store, fact_id, ended)
    assert store.facts(NS) == []
    assert store.facts(NS, ids=[fact_id]) == []
    closed = fact(store, fact_id)
    assert closed.valid_to == ended and closed.valid_to.utcoffset() == timedelta(0)
    assert closed.value == "Lisbon" and closed.retired_at is None
    history = store.fact_history(NS, fact_id)
    assert [event for event, _, _ in history] == ["ADD", "CLOSE"]
    assert "moved away" in history[-1][1]


def test_retire_hides_the_fact_everywhere_and_erases_its_value(store, store_embedder):
    source = episode(store, store_embedder).id
    other = episode(store, store_embedder, "again").id
    new = new_fact(store_embedder, source, value="Zanzibar", statement="ana lives in Zanzibar")
    fact_id = add_fact(store, new)
    with store.fact_writer(NS) as writer:
        writer.add_source(fact_id, other)
        writer.close(fact_id, T0 + DAY, "replaced by 'Zanzibar' somewhere else")
    before = datetime.now(UTC) - timedelta(seconds=1)
    retire(store, fact_id)
    for current_only in (True, False):
        assert store.facts(NS, current_only=current_only) == []
        assert store.facts(NS, ids=[fact_id], current_only=current_only) == []
        assert store.fact_search(NS, new.vector, ["ana"], 10, current_only=current_only) == []
    history = store.fact_history(NS, fact_id)
    assert [event for event, _, _ in history] == ["ADD", "STRENGTHEN", "CLOSE", "FORGET"]
    assert "asked to forget" in history[-1][1]
    assert history[-1][2] >= before
    for _, detail, _ in history:
        assert "zanzibar" not in detail.lower()


def test_a_failed_write_transaction_leaves_nothing_written(store, store_embedder):
    first, second = (episode(store, store_embedder, t).id for t in ("one", "two"))
    to_close = add_fact(store, new_fact(store_embedder, first, value="Porto"))
    to_retire = add_fact(store, new_fact(store_embedder, first, attribute="job", value="pilot"))
    to_strengthen = add_fact(store, new_fact(store_embedder, first, attribute="pet", value="cat"))
    snapshot = store.facts(NS, current_only=False)
    histories = {i: store.fact_history(NS, i) for i in (to_close, to_retire, to_strengthen)}
    added: list[int] = []
    with pytest.raises(Boom), store.fact_writer(NS) as writer:
        added.append(writer.add(new_fact(store_embedder, second, value="Lisbon")))
        writer.add_source(to_strengthen, second)
        writer.close(to_close, T0 + DAY, "moved")
        writer.retire(to_retire, "forget it", "ana")
        raise Boom
    assert store.facts(NS, current_only=False) == snapshot
    assert {i: store.fact_history(NS, i) for i in histories} == histories
    with pytest.raises(NotFound):
        store.fact_history(NS, added[0])
    assert store.superseded_episodes(NS, [first, second]) == set()
    # the store is still writable afterwards
    later = add_fact(store, new_fact(store_embedder, second, attribute="car", value="fiat"))
    assert later in fact_ids(store.facts(NS))


def test_fact_history_records_the_changes_in_order(store, store_embedder):
    first, second = (episode(store, store_embedder, t).id for t in ("one", "two"))
    fact_id = add_fact(store, new_fact(store_embedder, first))
    with store.fact_writer(NS) as writer:
        writer.add_source(fact_id, second)
    close(store, fact_id)
    history = store.fact_history(NS, fact_id)
    assert [event for event, _, _ in history] == ["ADD", "STRENGTHEN", "CLOSE"]
    times = [at for _, _, at in history]
    assert times == sorted(times) and all(at.utcoffset() == timedelta(0) for at in times)


def test_fact_history_of_an_unknown_id_raises_not_found(store, store_embedder):
    fact_id = add_fact(store, new_fact(store_embedder, episode(store, store_embedder).id))
    with pytest.raises(NotFound):
        store.fact_history(NS, fact_id + 1000)
    with pytest.raises(NotFound):
        store.fact_history(OTHER_NS, fact_id)


# -- facts: search ---------------------------------------------------------------------------


def test_fact_search_ranks_by_cosine_and_keeps_k(store, store_embedder):
    source = episode(store, store_embedder).id
    statements = [
        "ana drinks green tea every morning",
        "ana plays the cello in an orchestra",
        "ana keeps a green parrot named Kesha",
    ]
    ids = [
        add_fact(store, new_fact(store_embedder, source, attribute=f"a{i}", statement=s))
        for i, s in enumerate(statements)
    ]
    for fact_id, statement in zip(ids, statements, strict=True):
        query = vec(store_embedder, statement)
        found = store.fact_search(NS, query, ["ana"], 3)
        assert found[0][0].id == fact_id and found[0][1] == pytest.approx(1.0, abs=1e-5)
        scores = [score for _, score in found]
        assert scores == sorted(scores, reverse=True)
        expected = {
            i: float(vec(store_embedder, s) @ query) for i, s in zip(ids, statements, strict=True)
        }
        for hit, score in found:
            assert score == pytest.approx(expected[hit.id], abs=1e-5)
    query = vec(store_embedder, "green")
    assert len(store.fact_search(NS, query, ["ana"], 2)) == 2
    assert len(store.fact_search(NS, query, ["ana"], 10)) == 3


def test_fact_search_skips_closed_facts_unless_asked(store, store_embedder):
    source = episode(store, store_embedder).id
    new = new_fact(store_embedder, source, statement="ana lived in Porto")
    fact_id = add_fact(store, new)
    close(store, fact_id)
    assert store.fact_search(NS, new.vector, ["ana"], 5) == []
    [(found, score)] = store.fact_search(NS, new.vector, ["ana"], 5, current_only=False)
    assert found.id == fact_id and found.valid_to is not None
    assert score == pytest.approx(1.0, abs=1e-5)


ASKERS = [
    # asker, whose own-words vector matches the query: "ana" or "bruno" -> which counts
    (None, set()),
    ("ana", {"ana"}),
    ("bruno", {"bruno"}),
    ("carol", set()),
]


@pytest.mark.parametrize(("asker", "boosted"), ASKERS)
def test_fact_search_compares_own_words_for_the_askers_facts_only(
    store, store_embedder, asker, boosted
):
    source = episode(store, store_embedder, participants=["bruno"]).id
    own = "I am allergic to peanuts"
    query = vec(store_embedder, own)
    ids = {}
    for subject in ("ana", "bruno"):
        new = new_fact(
            store_embedder,
            source,
            subject=subject,
            attribute="allergy",
            statement=f"{subject} cannot eat satay sauce",
            own=own,
            audience=("ana", "bruno"),
        )
        assert float(new.vector @ query) < 0.9  # the third-person statement alone is far
        ids[subject] = (add_fact(store, new), float(new.vector @ query))
    found = {f.id: score for f, score in store.fact_search(NS, query, ["ana"], 5, asker=asker)}
    for subject, (fact_id, statement_score) in ids.items():
        expected = 1.0 if subject in boosted else statement_score
        assert found[fact_id] == pytest.approx(expected, abs=1e-5)


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
    """One fact and one diary entry per audience: {"facts": {key: id}, "diary": {...}}."""
    made: dict[str, dict[str, int]] = {"facts": {}, "diary": {}}
    for key, audience in AUDIENCES.items():
        source = episode(
            store, store_embedder, speaker=audience[0], participants=audience, conversation=key
        ).id
        made["facts"][key] = add_fact(
            store,
            new_fact(
                store_embedder,
                source,
                value=key,
                statement=f"secret plan of {key}",
                audience=audience,
            ),
        )
        made["diary"][key] = store.put_diary(
            NS, new_diary(store_embedder, key=key, text=f"secret plan of {key}", audience=audience)
        ).id
    return made


@pytest.mark.parametrize(("present", "expected"), VISIBLE)
@pytest.mark.parametrize("channel", ["facts", "fact_search", "diary"])
def test_facts_and_diary_obey_the_privacy_rule(
    store, store_embedder, private, channel, present, expected
):
    if channel == "facts":
        found = fact_ids(store.facts(NS, participants=present))
    elif channel == "fact_search":
        query = vec(store_embedder, "secret plan")
        found = [f.id for f, _ in store.fact_search(NS, query, present, 50)]
    else:
        found = diary_ids(store.diary(NS, participants=present))
    kind = "diary" if channel == "diary" else "facts"
    assert sorted(found) == sorted(private[kind][key] for key in expected)


def test_unfiltered_reads_return_every_audience(store, private):
    assert sorted(fact_ids(store.facts(NS))) == sorted(private["facts"].values())
    assert sorted(diary_ids(store.diary(NS))) == sorted(private["diary"].values())


def test_searching_without_participants_is_refused(store, store_embedder, private):
    with pytest.raises(InvalidInput):
        store.fact_search(NS, vec(store_embedder, "secret plan"), [], 10)
    with pytest.raises(InvalidInput):
        store.diary(NS, participants=[])


# -- superseded episodes ------------------------------------------------------------------------


def test_superseded_episodes_are_those_whose_facts_are_all_gone(store, store_embedder):
    closed_and_retired, mixed, silent, repeated, current = (
        episode(store, store_embedder, t).id for t in ("one", "two", "three", "four", "five")
    )
    close(store, add_fact(store, new_fact(store_embedder, closed_and_retired, value="Porto")))
    retire(store, add_fact(store, new_fact(store_embedder, closed_and_retired, attribute="job")))
    kept = add_fact(store, new_fact(store_embedder, mixed, attribute="pet"))
    close(store, add_fact(store, new_fact(store_embedder, mixed, attribute="car")))
    close(store, add_fact(store, new_fact(store_embedder, repeated, attribute="band")))
    add_fact(store, new_fact(store_embedder, current, attribute="food"))
    with store.fact_writer(NS) as writer:
        writer.add_source(kept, repeated)  # repeated also stated a fact still current
    asked = [closed_and_retired, mixed, silent, repeated, current]
    assert store.superseded_episodes(NS, asked) == {closed_and_retired}
    assert store.superseded_episodes(NS, [mixed, silent]) == set()
    assert store.superseded_episodes(NS, []) == set()


def test_an_episode_is_superseded_once_its_last_fact_closes(store, store_embedder):
    source = episode(store, store_embedder).id
    first = add_fact(store, new_fact(store_embedder, source, value="Porto"))
    second = add_fact(store, new_fact(store_embedder, source, attribute="job"))
    close(store, first)
    assert store.superseded_episodes(NS, [source]) == set()
    close(store, second)
    assert store.superseded_episodes(NS, [source]) == {source}


# -- namespaces ---------------------------------------------------------------------------------


def test_facts_never_cross_namespaces(store, store_embedder):
    source = episode(store, store_embedder).id
    new = new_fact(store_embedder, source, statement="ana lives in Lisbon")
    fact_id = add_fact(store, new)
    gone = add_fact(store, new_fact(store_embedder, source, attribute="job"))
    close(store, gone)
    assert store.facts(OTHER_NS) == [] and store.facts(OTHER_NS, current_only=False) == []
    assert store.facts(OTHER_NS, ids=[fact_id]) == []
    assert store.fact_search(OTHER_NS, new.vector, ["ana"], 10) == []
    with store.fact_writer(OTHER_NS) as writer:
        assert writer.current("ana", "city") == []
        assert writer.stated_by(source) == []
    with pytest.raises(NotFound):
        store.fact_history(OTHER_NS, fact_id)
    # the same statement in the other namespace is a separate fact
    elsewhere = add_fact(store, new, ns=OTHER_NS)
    assert elsewhere != fact_id
    assert fact_ids(store.facts(OTHER_NS)) == [elsewhere]
    assert fact_ids(store.facts(NS)) == [fact_id]
    close(store, elsewhere, ns=OTHER_NS)
    assert store.superseded_episodes(NS, [source]) == set()
    assert store.superseded_episodes(OTHER_NS, [source]) == {source}


@pytest.mark.parametrize("change", ["add_source", "close", "retire"])
def test_a_writer_cannot_change_a_fact_of_another_namespace(store, store_embedder, change):
    source = episode(store, store_embedder).id
    other = episode(store, store_embedder, "another").id
    fact_id = add_fact(store, new_fact(store_embedder, source))
    before = fact(store, fact_id)
    history = store.fact_history(NS, fact_id)
    with contextlib.suppress(NotFound), store.fact_writer(OTHER_NS) as writer:
        if change == "add_source":
            assert not writer.add_source(fact_id, other)
        elif change == "close":
            writer.close(fact_id, T0 + DAY, "elsewhere")
        else:
            writer.retire(fact_id, "elsewhere", "mallory")
    assert fact(store, fact_id) == before
    assert store.fact_history(NS, fact_id) == history
    with pytest.raises(NotFound):
        store.fact_history(OTHER_NS, fact_id)


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
    assert store.text_search(NS, terms("Rodrigo"), ["ana"], 10) == []
    assert [i for i, _ in store.text_search(NS, terms("someone"), ["ana"], 10)] == [original.id]
    lighthouse = {i for i, _ in store.text_search(NS, terms("lighthouse"), ["ana"], 10)}
    assert lighthouse == {original.id, other.id}
    hits = store.dense_search(NS, vec(store_embedder, redacted_text), ["ana"], 1)
    assert hits[0][0] == original.id and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    history = store.history(NS, original.id)
    assert history[-1].event == "FORGET" and history[-1].actor == "ana"
    for event in history:
        assert event.old_text is None
        assert "rodrigo" not in (event.new_text or "").lower()
    with pytest.raises(NotFound):
        store.redact_episode(NS, original.id + 1000, new_episode(store_embedder, "x"), None)


# -- reopening ----------------------------------------------------------------------------------


def test_facts_diary_and_jobs_survive_reopening(store, store_backend, store_embedder):
    first, second = (episode(store, store_embedder, t).id for t in ("one", "two"))
    kept = add_fact(store, new_fact(store_embedder, first, statement="ana drinks green tea"))
    closed = add_fact(store, new_fact(store_embedder, first, attribute="job", value="pilot"))
    forgotten_new = new_fact(store_embedder, second, attribute="pet", statement="ana has a cat")
    forgotten = add_fact(store, forgotten_new)
    with store.fact_writer(NS) as writer:
        writer.add_source(kept, second)
    close(store, closed)
    retire(store, forgotten)
    day = store.put_diary(NS, new_diary(store_embedder, sources=[first]))
    week = store.put_diary(
        NS, new_diary(store_embedder, kind="period", key="w", level=1, covers=[day.id])
    )
    store.set_job_position(NS, "facts", second)
    query = vec(store_embedder, "ana drinks green tea")

    def snapshot(s: Store) -> tuple[Any, ...]:
        return (
            s.facts(NS, current_only=False),
            [s.fact_history(NS, i) for i in (kept, closed, forgotten)],
            [(f.id, round(score, 5)) for f, score in s.fact_search(NS, query, ["ana"], 5)],
            s.fact_search(NS, forgotten_new.vector, ["ana"], 5, current_only=False)[0][0].id,
            s.superseded_episodes(NS, [first, second]),
            s.diary(NS),
            diary_ids(s.diary(NS, uncompressed=True)),
            s.diary_vectors(NS, [day.id, week.id]).tolist(),
            s.job_position(NS, "facts"),
        )

    before = snapshot(store)
    assert before[2][0] == (kept, 1.0) and before[3] != forgotten
    assert before[6] == [week.id] and before[8] == second
    store.close()
    reopened = store_backend.open()
    try:
        reopened.bind_embedder(store_embedder.name, store_embedder.dim)
        assert snapshot(reopened) == before
        reopened.set_job_position(NS, "facts", first)
        assert reopened.job_position(NS, "facts") == second
        later = add_fact(reopened, new_fact(store_embedder, second, attribute="car"))
        assert later > max(kept, closed, forgotten)
    finally:
        reopened.close()
