"""The entity graph in the SQLite store, through `Memory` and the store API.

Entities and their mention counts, speaker-scoped relational aliases, Hebbian
associations (growth with co-occurrence, exponential decay with a 30-day half-life,
reinforcement, pruning), erasure of a name with the last episode that mentions it,
per-audience associations (privacy) and namespaces.

Tests that only need the graph use the fast hash embedder; the recall-level privacy test
uses the real default embedder.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kuzya import Memory
from kuzya.embed import Embedder
from kuzya.entities.graph import decayed
from kuzya.entities.mentions import mentions
from kuzya.testing import HashEmbedder
from tests.entities.store_view import by_key, query, walked

T0 = datetime(2024, 1, 10, 12, tzinfo=UTC)
HALF_LIFE = timedelta(days=30)  # the store's default half-life of association weights
DM = ["ana", "kuzya"]
GROUP = ["ana", "bob", "kuzya"]
GROUP_AB = ["ana", "bob"]


# -- helpers ----------------------------------------------------------------------------------


def edges(memory: Memory) -> dict[tuple[str, str], tuple[float, float]]:
    """(key, key) -> (weight, updated_at) of the namespace's associations, any audience."""
    graph = memory.store.entity_graph(memory.namespace)
    return {
        (min(s.a[0], s.b[0]), max(s.a[0], s.b[0])): (s.weight, s.updated_at.timestamp())
        for s in graph.associations
    }


# -- entities and mention counts ----------------------------------------------------------------


def test_entities_are_created_with_mention_counts_and_kinds(hash_memory: Memory) -> None:
    said = [
        hash_memory.remember(text, speaker="ana", time=T0 + timedelta(hours=i))
        for i, text in enumerate(
            [
                "My brother Leo lives in Oslo.",
                "Yesterday Leo called me.",
                "I miss Oslo in winter.",
                "We adopted a puppy named Biscuit.",
                "I met Sam at the climbing gym.",
            ]
        )
    ]
    found = by_key(hash_memory)
    assert {k: e.mentions for k, e in found.items()} == {
        "leo": 2, "oslo": 2, "biscuit": 1, "sam": 1,
    }  # fmt: skip
    assert (found["leo"].name, found["leo"].kind) == ("Leo", "person")
    assert (found["oslo"].kind, found["biscuit"].kind, found["sam"].kind) == ("name", "pet", "name")
    store, ns = hash_memory.store, hash_memory.namespace
    assert store.entity_episodes(ns, found["leo"].id) == [said[0].id, said[1].id]
    assert store.entity_episodes(ns, found["oslo"].id) == [said[0].id, said[2].id]

    # a later relation tells what a known name is
    hash_memory.remember("My friend Sam is moving to Lisbon.", speaker="ana", time=T0)
    sam = by_key(hash_memory)["sam"]
    assert (sam.kind, sam.mentions) == ("person", 2)


def test_inflected_russian_name_is_one_entity(hash_memory: Memory) -> None:
    for i, text in enumerate(
        [
            "Моя сестра Маша живёт в Казани.",
            "В субботу еду к Маше.",
            "Вчера видел Машу в парке.",
            "Машей все гордятся.",  # sentence-initial: found through the gazetteer
        ]
    ):
        hash_memory.remember(text, speaker="ana", time=T0 + timedelta(hours=i))
    found = by_key(hash_memory)
    assert set(found) == {"маш", "казан"}
    masha = found["маш"]
    assert (masha.name, masha.kind, masha.mentions) == ("Маша", "person", 4)
    assert found["казан"].mentions == 1


# -- speaker-scoped aliases ---------------------------------------------------------------------


def test_my_brother_means_leo_for_ana_only(hash_memory: Memory) -> None:
    store, ns = hash_memory.store, hash_memory.namespace

    def say(text: str, speaker: str) -> int:
        episode = hash_memory.remember(
            text, speaker=speaker, participants=["ana", "bob"], conversation="g", time=T0
        )
        return episode.id

    say("My brother Leo lives in Oslo.", "ana")
    assert store.gazetteer(store.scope(ns, GROUP_AB), "ana")["my brother"] == "leo"
    assert "my brother" not in store.gazetteer(store.scope(ns, GROUP_AB), "bob")
    assert "leo" in store.gazetteer(
        store.scope(ns, GROUP_AB), "bob"
    )  # the name is known to the group
    mine = store.gazetteer(store.scope(ns, GROUP_AB), "ana")
    assert [m.key for m in mentions("my brother is coming", mine)] == ["leo"]
    assert mentions("my brother is coming", store.gazetteer(store.scope(ns, GROUP_AB), "bob")) == []

    from_ana = say("My brother called me yesterday.", "ana")
    from_bob = say("My brother called me yesterday.", "bob")
    leo = by_key(hash_memory)["leo"]
    assert from_ana in store.entity_episodes(ns, leo.id)
    assert from_bob not in store.entity_episodes(ns, leo.id)
    assert leo.mentions == 2 and "my brother" in leo.aliases

    # bob's own brother takes bob's alias; ana's alias is untouched
    say("My brother Tim lives in Rome.", "bob")
    assert store.gazetteer(store.scope(ns, GROUP_AB), "bob")["my brother"] == "tim"
    assert store.gazetteer(store.scope(ns, GROUP_AB), "ana")["my brother"] == "leo"
    again = say("My brother is visiting next week.", "bob")
    tim = by_key(hash_memory)["tim"]
    assert again in store.entity_episodes(ns, tim.id)
    assert again not in store.entity_episodes(ns, by_key(hash_memory)["leo"].id)


# -- Hebbian associations: growth, decay, reinforcement, pruning ------------------------------


@pytest.mark.parametrize("times", [1, 2, 3, 5])
def test_association_weight_grows_with_each_cooccurrence(hash_memory: Memory, times: int) -> None:
    hash_memory.remember("My brother Leo lives in Oslo.", speaker="ana", time=T0)
    for _ in range(times - 1):
        hash_memory.remember("I visited Leo in Oslo again.", speaker="ana", time=T0)
    weight, updated = edges(hash_memory)[("leo", "oslo")]
    assert weight == pytest.approx(times)
    assert updated == T0.timestamp()


def test_association_decays_with_a_thirty_day_half_life(hash_memory: Memory) -> None:
    assert decayed(1.0, 0.0, HALF_LIFE.total_seconds(), HALF_LIFE.total_seconds()) == 0.5
    hash_memory.remember("My brother Leo lives in Oslo.", speaker="ana", time=T0)
    later = T0 + HALF_LIFE
    hash_memory.remember("I visited Leo in Oslo again.", speaker="ana", time=later)
    weight, updated = edges(hash_memory)[("leo", "oslo")]
    assert weight == pytest.approx(0.5 + 1.0)  # the old weight halved, then one more
    assert updated == later.timestamp()


def test_spreading_activation_weakens_as_the_association_decays(hash_memory: Memory) -> None:
    """What "Leo" passes to "Oslo" is w / (1 + w) with w = 0.5 ** (age / half-life); an
    episode that mentions only Oslo carries that share divided by log(2 + its mentions)."""
    hash_memory.remember("My brother Leo lives in Oslo.", speaker="ana", time=T0)
    oslo_only = hash_memory.remember("I miss Oslo in winter.", speaker="ana", time=T0)
    scores = []
    for days in (0, 30, 60, 90):
        w = 0.5 ** (days / 30)
        hits = walked(hash_memory, ["leo"], ["ana"], T0 + timedelta(days=days))
        expected = (w / (1 + w)) / math.log(2 + 2)  # oslo is mentioned twice
        assert hits[oslo_only.id] == pytest.approx(expected)
        scores.append(hits[oslo_only.id])
    assert scores == sorted(scores, reverse=True)
    # after one half-life the edge carries half its weight: 1/2 -> (1/2)/(3/2)
    assert scores[1] / scores[0] == pytest.approx((0.5 / 1.5) / 0.5)


def test_prune_removes_decayed_edges_and_returns_the_count(hash_memory: Memory) -> None:
    hash_memory.remember("My brother Leo lives in Oslo.", speaker="ana", time=T0)
    oslo_only = hash_memory.remember("I miss Oslo in winter.", speaker="ana", time=T0)
    hash_memory.remember("My friend Sam lives in Rome.", speaker="ana", time=T0)
    for _ in range(2):
        hash_memory.remember("I visited Sam in Rome again.", speaker="ana", time=T0)
    assert edges(hash_memory).keys() == {("leo", "oslo"), ("rome", "sam")}

    assert hash_memory.prune(now=T0) == 0  # nothing has decayed yet
    five_half_lives = T0 + 5 * HALF_LIFE  # weight 1 -> 1/32 = 0.031, weight 3 -> 0.094
    assert oslo_only.id in walked(hash_memory, ["leo"], ["ana"], five_half_lives)
    assert hash_memory.prune(now=five_half_lives, below=0.05) == 1
    assert edges(hash_memory).keys() == {("rome", "sam")}
    assert oslo_only.id not in walked(hash_memory, ["leo"], ["ana"], five_half_lives)
    assert hash_memory.prune(now=five_half_lives, below=0.05) == 0  # already gone
    assert hash_memory.prune(now=T0 + 10 * HALF_LIFE, below=0.05) == 1  # 3/1024 by then
    assert edges(hash_memory) == {}


def test_reinforce_strengthens_what_was_recalled_together(hash_memory: Memory) -> None:
    leo = hash_memory.remember("My brother Leo lives in Oslo.", speaker="ana", time=T0)
    oslo_only = hash_memory.remember("I miss Oslo in winter.", speaker="ana", time=T0)
    hash_memory.remember("We adopted a puppy named Biscuit.", speaker="ana", time=T0)
    before = walked(hash_memory, ["leo"], ["ana"], T0)[oslo_only.id]

    hash_memory.store.reinforce(hash_memory.namespace, [leo.id], ["ana"], T0)
    assert edges(hash_memory)[("leo", "oslo")][0] == pytest.approx(1.5)
    assert walked(hash_memory, ["leo"], ["ana"], T0)[oslo_only.id] > before

    recall = hash_memory.recall(
        "Leo Oslo puppy Biscuit", participants=["ana"], now=T0, limit=10, budget_words=None
    )
    assert len(recall) == 3
    hash_memory.reinforce(recall, participants=["ana"])
    found = edges(hash_memory)
    assert found[("leo", "oslo")][0] == pytest.approx(2.0)
    assert found[("biscuit", "leo")][0] == pytest.approx(0.5)  # new: recalled together
    assert found[("biscuit", "oslo")][0] == pytest.approx(0.5)

    # a reinforcement a half-life later adds to the decayed weight
    hash_memory.store.reinforce(hash_memory.namespace, [leo.id], ["ana"], T0 + HALF_LIFE)
    assert edges(hash_memory)[("leo", "oslo")][0] == pytest.approx(2.0 * 0.5 + 0.5)


# -- erasure ------------------------------------------------------------------------------------


ERASURE = {
    "en": (
        ["My brother Zebediah lives in Quixotown.", "Zebediah sent me a postcard.",
         "The weather in Quixotown is awful.", "We adopted a puppy named Biscuit."],
        ("zebed", "quixot"),
    ),
    "ru": (
        ["Моя сестра Земфира живёт в Кукуеве.", "Земфире я вчера звонила.",
         "В Кукуеве опять холодно.", "У меня кот Барсик."],
        ("земфир", "кукуев"),
    ),
}  # fmt: skip


def graph_text(memory: Memory) -> str:
    """Every value of the entity tables, as one lower-cased string."""
    values = [
        str(value)
        for table in ("entities", "entity_aliases", "associations", "mentions")
        for row in query(memory, f"SELECT * FROM {table}")
        for value in row
    ]
    return " | ".join(values).lower()


@pytest.mark.parametrize("language", sorted(ERASURE))
def test_deleting_the_last_mention_erases_the_name(hash_memory: Memory, language: str) -> None:
    texts, (person, place) = ERASURE[language]
    first, second, third, pet = [
        hash_memory.remember(text, speaker="ana", time=T0 + timedelta(minutes=i))
        for i, text in enumerate(texts)
    ]
    store, ns = hash_memory.store, hash_memory.namespace
    assert person in graph_text(hash_memory) and place in graph_text(hash_memory)
    person_id = next(e.id for e in hash_memory.entities() if e.key.startswith(person))

    hash_memory.delete(first.id)  # the person is still mentioned in the second message
    assert person in graph_text(hash_memory)
    known = store.gazetteer(store.scope(ns, ["ana"]), "ana")
    assert any(person in k for k in known)  # the name stays, the alias went with the message
    assert "my sister" not in known and "my brother" not in known

    hash_memory.delete(second.id)  # the last mention of the person
    assert person not in graph_text(hash_memory)
    assert not query(hash_memory, "SELECT * FROM entities WHERE id = ?", person_id)
    assert not query(hash_memory, "SELECT * FROM entity_aliases WHERE entity_id = ?", person_id)
    assert not query(
        hash_memory, "SELECT * FROM associations WHERE a = ? OR b = ?", person_id, person_id
    )
    assert not query(hash_memory, "SELECT * FROM mentions WHERE entity_id = ?", person_id)
    known = store.gazetteer(store.scope(ns, ["ana"]), "ana")
    assert not any(person in alias or person in k for alias, k in known.items())
    assert place in graph_text(hash_memory)  # still mentioned by the third message

    hash_memory.delete(third.id)
    assert place not in graph_text(hash_memory)
    assert query(hash_memory, "SELECT COUNT(*) FROM associations")[0][0] == 0
    remaining = by_key(hash_memory)
    assert len(remaining) == 1 and next(iter(remaining.values())).kind == "pet"
    assert store.entity_episodes(ns, next(iter(remaining.values())).id) == [pet.id]


# -- privacy: associations belong to the audience that learned them ---------------------------


def test_private_association_is_not_walked_for_a_group(hash_memory: Memory) -> None:
    dm = hash_memory.remember(
        "My brother Leo just moved to Oslo.", speaker="ana", conversation="dm",
        participants=DM, time=T0,
    )  # fmt: skip
    opera = hash_memory.remember(
        "The Oslo opera house has a marble roof you can walk on.", speaker="bob",
        conversation="group", participants=GROUP, time=T0 + timedelta(hours=1),
    )  # fmt: skip
    now = T0 + timedelta(days=1)
    # the group's visible episode is reached from "Leo" only through the DM's association
    assert opera.id in walked(hash_memory, ["leo"], DM, now)
    assert opera.id in walked(hash_memory, ["leo"], ["ana"], now)
    assert set(walked(hash_memory, ["leo"], DM, now)) == {dm.id, opera.id}
    assert walked(hash_memory, ["leo"], GROUP, now) == {}
    assert walked(hash_memory, ["leo"], ["bob"], now) == {}
    assert walked(hash_memory, ["leo"], ["ana", "bob"], now) == {}

    # once the group learns the association itself, the group walks it
    said = hash_memory.remember(
        "I hear Leo says Oslo is freezing.", speaker="ana", conversation="group",
        participants=GROUP, time=T0 + timedelta(hours=2),
    )  # fmt: skip
    assert set(walked(hash_memory, ["leo"], GROUP, now)) == {said.id, opera.id}


def _leo_store(path: Path, embedder: Embedder, city: str) -> Memory:
    """ana tells the assistant in private that her brother Leo moved to `city`; the group
    (ana, bob, assistant) talks about Oslo and office things. With city="Bergen" the DM
    still mentions Oslo twice, so every entity has the same mention counts; only the
    private Leo-Oslo association is missing."""
    memory = Memory.open(path, namespace="t", embedder=embedder)
    private = [f"My brother Leo just moved to {city}.", f"Leo says {city} is freezing in January."]
    if city != "Oslo":
        private += ["Oslo is so expensive.", "Oslo again tops the price charts."]
    for i, text in enumerate(private):
        memory.remember(text, speaker="ana", conversation=f"dm{i}", participants=DM,
                        time=T0 + timedelta(minutes=i))  # fmt: skip
    group = [
        "The Oslo opera house has a marble roof you can walk on.",
        "Bob: what's new with everyone?",
        "The quarterly report is due on Friday.",
        "Any news about the office move?",
        "I adopted a kitten last week.",
        "Pizza party at the office tomorrow!",
        "The printer on floor two is broken again.",
    ]
    for i, text in enumerate(group):
        memory.remember(text, speaker="bob" if i % 2 else "ana", conversation=f"group{i}",
                        participants=GROUP, time=T0 + timedelta(hours=i + 1))  # fmt: skip
    return memory


@pytest.fixture(scope="module")
def leo_in_oslo(
    tmp_path_factory: pytest.TempPathFactory, use_embedder: Embedder
) -> Iterator[tuple[Memory, Memory]]:
    """Read-only for the tests that use it (recall does not write)."""
    folder = tmp_path_factory.mktemp("leo")
    linked = _leo_store(folder / "linked.db", use_embedder, "Oslo")
    control = _leo_store(folder / "control.db", use_embedder, "Bergen")
    yield linked, control
    linked.close()
    control.close()


QUESTIONS = [
    ("What's new with Leo?", None),
    ("Tell me about Leo.", None),
    ("Where does my brother live?", "ana"),
    ("Что нового у Лео?", None),
    ("Где сейчас живёт мой брат?", "ana"),
]


@pytest.mark.parametrize(("question", "speaker"), QUESTIONS)
def test_group_recall_is_unchanged_by_a_private_association(
    leo_in_oslo: tuple[Memory, Memory], question: str, speaker: str | None
) -> None:
    linked, control = leo_in_oslo
    now = T0 + timedelta(days=1)
    opera = next(e.id for e in linked.get_all() if "opera" in e.text)
    # positive control: for ana the private association does reach the group's episode
    assert opera in walked(linked, ["leo"], DM, now)
    assert opera not in walked(control, ["leo"], DM, now)
    assert opera not in walked(linked, ["leo"], GROUP, now)

    def recalled(memory: Memory) -> list[tuple[str, float]]:
        result = memory.recall(question, participants=GROUP, speaker=speaker, now=now,
                               limit=20, budget_words=None)  # fmt: skip
        return [(item.text, item.score) for item in result]

    with_link, without = recalled(linked), recalled(control)
    assert [text for text, _ in with_link] == [text for text, _ in without]
    assert [s for _, s in with_link] == pytest.approx([s for _, s in without])
    assert not any("Leo" in text for text, _ in with_link)  # and nothing private leaks


# -- namespaces -----------------------------------------------------------------------------------


def test_entities_and_associations_stay_in_their_namespace(
    tmp_path: Path, hash_embedder: HashEmbedder
) -> None:
    path = tmp_path / "ns.db"
    with (
        Memory.open(path, namespace="home", embedder=hash_embedder) as home,
        Memory.open(path, namespace="work", embedder=hash_embedder) as work,
    ):
        home.remember("My brother Leo lives in Oslo.", speaker="ana", time=T0)
        home_oslo = home.remember("I miss Oslo in winter.", speaker="ana", time=T0)
        assert work.entities() == []
        assert work.store.gazetteer(work.store.scope("work", ["ana"]), "ana") == {}
        assert walked(work, ["leo"], ["ana"], T0) == {}

        work.remember("My brother called about the budget.", speaker="ana", time=T0)
        assert work.entities() == []  # "my brother" is ana's alias at home only
        sales = work.remember("I met Leo from sales in Rome.", speaker="ana", time=T0)
        work_leo, home_leo = by_key(work)["leo"], by_key(home)["leo"]
        assert work_leo.id != home_leo.id
        assert (work_leo.mentions, home_leo.mentions) == (1, 1)
        assert "my brother" not in work_leo.aliases and "my brother" in home_leo.aliases
        assert set(walked(work, ["leo"], ["ana"], T0)) == {sales.id}
        assert home_oslo.id in walked(home, ["leo"], ["ana"], T0)
        assert sales.id not in walked(home, ["leo"], ["ana"], T0)
        assert edges(work).keys() == {("leo", "rome")}
        assert edges(home).keys() == {("leo", "oslo")}

        # pruning and forgetting in one namespace leave the other alone
        assert work.prune(now=T0 + 10 * HALF_LIFE) == 1
        assert edges(home).keys() == {("leo", "oslo")}
        work.delete(sales.id)
        assert "leo" not in by_key(work) and by_key(home)["leo"].mentions == 1
