"""Non-interference in the entity layer: what a group is shown (names, aliases, the
entity list, what the graph adds to a ranking, merges and splits) depends only on the
messages all its members may see; deleting a message takes back what it added; a
message's work is bounded.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kuzya import Memory
from kuzya.embed import Embedder
from kuzya.entities.graph import NEIGHBOURS, decayed, linked_pairs
from kuzya.entities.mentions import MAX_NAMES
from kuzya.store.portable import EntityRef
from kuzya.validate import MAX_MESSAGE_CHARS
from tests.entities.store_view import by_key, query

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ANA = ["ana"]
GROUP = ["ana", "bob"]


Edge = tuple[frozenset[str], EntityRef, EntityRef]  # an audience and two entities, in order


def associations(memory: Memory) -> dict[Edge, tuple[float, float]]:
    graph = memory.store.entity_graph(memory.namespace)
    return {
        (s.audience, min(s.a, s.b), max(s.a, s.b)): (s.weight, s.updated_at.timestamp())
        for s in graph.associations
    }


def expected_associations(memory: Memory) -> dict[Edge, tuple[float, float]]:
    """The co-mention weights the stored mentions call for, each message adding one at
    the time it was said, decayed to the latest such time."""
    mentioned: dict[int, list[EntityRef]] = defaultdict(list)
    for mention in memory.store.entity_graph(memory.namespace).mentions:
        mentioned[mention.episode_id].append(mention.entity)
    times: dict[Edge, list[float]] = defaultdict(list)
    for episode_id, entities in mentioned.items():
        episode = memory.store.get_episode(memory.namespace, episode_id)
        for a, b in linked_pairs(entities):
            edge = (episode.audience, min(a, b), max(a, b))
            times[edge].append(episode.said_at.timestamp())
    half_life = memory.store.half_life  # type: ignore[attr-defined]
    return {
        edge: (sum(0.5 ** ((max(said) - t) / half_life) for t in said), max(said))
        for edge, said in times.items()
    }


def assert_associations_follow_mentions(memory: Memory) -> None:
    """Stored weights are what the mentions call for (compared at one time: a weight
    whose latest message was deleted keeps that time)."""
    stored, expected = associations(memory), expected_associations(memory)
    assert stored.keys() == expected.keys()
    half_life = memory.store.half_life  # type: ignore[attr-defined]
    later = max([at for _, at in stored.values()], default=0.0)
    for edge, (weight, at) in expected.items():
        assert decayed(*stored[edge], later, half_life) == pytest.approx(
            decayed(weight, at, later, half_life)
        ), edge


# -- 1. aliases ------------------------------------------------------------------------------


def test_an_alias_learned_in_a_dm_is_not_used_in_the_group(hash_memory: Memory) -> None:
    store, ns = hash_memory.store, hash_memory.namespace
    dm = hash_memory.remember("My brother Tom lives in Oslo.", speaker="ana", participants=ANA)
    group = hash_memory.remember("My brother is visiting us.", speaker="ana", participants=GROUP)
    tom = by_key(hash_memory)["tom"]
    assert store.entity_episodes(ns, tom.id) == [dm.id]
    assert "my brother" not in store.gazetteer(store.scope(ns, GROUP), "ana")
    assert "tom" not in store.gazetteer(store.scope(ns, GROUP), "bob")
    assert store.gazetteer(store.scope(ns, ANA), "ana")["my brother"] == "tom"
    later = hash_memory.remember("My brother called me.", speaker="ana", participants=ANA)
    assert store.entity_episodes(ns, tom.id) == [dm.id, later.id]
    assert group.id not in store.entity_episodes(ns, tom.id)

    # the latest alias the participants may see wins
    hash_memory.remember("My brother Max plays chess.", speaker="ana", participants=GROUP)
    assert store.gazetteer(store.scope(ns, ANA), "ana")["my brother"] == "max"
    assert store.gazetteer(store.scope(ns, GROUP), "ana")["my brother"] == "max"


def test_one_batch_resolves_each_message_with_what_its_audience_may_see(
    hash_memory: Memory,
) -> None:
    said = hash_memory.remember_many([
        {"text": "My brother Tom lives in Oslo.", "speaker": "ana", "participants": ANA},
        {"text": "My brother is visiting us.", "speaker": "ana", "participants": GROUP},
        {"text": "My brother called me.", "speaker": "ana", "participants": ANA},
    ])  # fmt: skip
    tom = by_key(hash_memory)["tom"]
    episodes = hash_memory.store.entity_episodes(hash_memory.namespace, tom.id)
    assert episodes == [said[0].id, said[2].id]


# -- 2. the entity list, counts, names and kinds -----------------------------------------------


def test_the_entity_list_shows_what_the_participants_may_see(hash_memory: Memory) -> None:
    hash_memory.remember("My dog Rex hates the rain in Oslo.", speaker="ana", participants=ANA)
    hash_memory.remember("Я звонила Маше вчера.", speaker="ana", participants=ANA)
    hash_memory.remember("Вчера Маша гуляла с Rex в парке.", speaker="ana", participants=GROUP)

    def listed(participants: list[str] | None) -> dict[str, tuple[str, str, int]]:
        return {e.key: (e.name, e.kind, e.mentions)
                for e in hash_memory.entities(participants=participants)}  # fmt: skip

    group = {"маш": ("Маша", "name", 1), "rex": ("Rex", "name", 1)}
    assert listed(GROUP) == listed(["bob"]) == group
    assert listed(ANA) == listed(None) == {
        "rex": ("Rex", "pet", 2), "oslo": ("Oslo", "name", 1), "маш": ("Маше", "name", 2),
    }  # fmt: skip
    assert set(
        hash_memory.store.gazetteer(hash_memory.store.scope(hash_memory.namespace, ["bob"]), "bob")
    ) == {
        "маш",
        "rex",
    }


def test_a_sense_is_chosen_by_the_mentions_the_audience_may_see(memory: Memory) -> None:
    store, ns = memory.store, memory.namespace
    memory.remember("Sam from accounting approved the budget.", speaker="bob",
                    participants=GROUP)  # fmt: skip
    nephew = memory.remember("My nephew Sam loves dinosaurs and Lego.", speaker="ana",
                             participants=GROUP)  # fmt: skip
    for toy in ("dinosaur toy", "toy dinosaur", "plastic dinosaur"):  # ana's DM: one Sam yet
        memory.remember(f"I hear Sam wants a new {toy} for his birthday.", speaker="ana",
                        participants=ANA)  # fmt: skip
    sam = by_key(memory)["sam"]
    split = store.split_entity(ns, sam.id, [nephew.id], "the nephew is someone else")
    # for the group, the first Sam is only the accountant: the nephew's sense is closer
    said = memory.remember("I hear Sam wants a new dinosaur toy.", speaker="ana",
                           participants=GROUP)  # fmt: skip
    assert said.id in store.entity_episodes(ns, split.entity_id)


# -- 3. merges and splits are decided and applied per audience -------------------------------


def test_a_merge_in_a_dm_leaves_the_group_alone(memory: Memory) -> None:
    for text in [
        "My friend Melanie paints landscapes and loves camping.",
        "I think Melanie went camping with her kids last weekend.",
        "Yesterday Mel showed me her new painting of a lake.",
    ]:
        memory.remember(text, speaker="ana", participants=ANA, conversation="dm")
    group = memory.remember("Yesterday Mel showed us her painting of a lake.", speaker="bob",
                            participants=GROUP, conversation="g")  # fmt: skip
    changes = memory.merge_entities()
    assert [c.name for c in changes] == ["Mel"]
    assert {e.key: e.mentions for e in memory.entities(participants=GROUP)} == {"mel": 1}
    mine = {e.key: e for e in memory.entities(participants=ANA)}
    assert (mine["melanie"].mentions, mine["mel"].mentions) == (3, 1)
    assert memory.store.entity_episodes(memory.namespace, mine["mel"].id) == [group.id]
    assert_associations_follow_mentions(memory)

    # later messages follow the decision where it was made, and only there
    dm = memory.remember("Mel is camping again.", speaker="ana", participants=ANA)
    again = memory.remember("I bet Mel is camping again.", speaker="bob", participants=GROUP)
    assert dm.id in memory.store.entity_episodes(memory.namespace, mine["melanie"].id)
    assert again.id in memory.store.entity_episodes(memory.namespace, mine["mel"].id)

    memory.unmerge_entities(changes[0].id)
    assert {e.key: e.mentions for e in memory.entities(participants=ANA)} == {
        "melanie": 3, "mel": 3,
    }  # fmt: skip
    assert_associations_follow_mentions(memory)


def test_a_merged_name_goes_with_the_messages_that_said_it(memory: Memory) -> None:
    said = [memory.remember(text, speaker="ana") for text in [
        "My friend Melanie paints landscapes and loves camping.",
        "I think Melanie went camping with her kids last weekend.",
        "Yesterday Mel showed me her new painting of a lake.",
    ]]  # fmt: skip
    assert [c.name for c in memory.merge_entities()] == ["Mel"]
    assert (
        memory.store.gazetteer(memory.store.scope(memory.namespace, ANA), "ana")["mel"] == "melanie"
    )
    memory.delete(said[2].id)
    assert "mel" not in memory.store.gazetteer(memory.store.scope(memory.namespace, ANA), "ana")
    assert [e.aliases for e in memory.entities()] == [frozenset({"melanie", "my friend"})]


# -- 4. reinforcement ---------------------------------------------------------------------------


def test_reinforcement_uses_only_visible_episodes_of_its_namespace(
    tmp_path: Path, hash_memory: Memory
) -> None:
    store, ns = hash_memory.store, hash_memory.namespace
    said = [
        hash_memory.remember("I hear Leo flew to Oslo.", speaker="ana", participants=ANA),
        hash_memory.remember("I hear Mia likes Rome.", speaker="ana", participants=ANA),
    ]
    ids = [e.id for e in said]
    before = associations(hash_memory)
    store.reinforce(ns, ids, GROUP, T0)  # the group may see neither
    store.reinforce("elsewhere", ids, ANA, T0)  # nor are they of that namespace
    assert associations(hash_memory) == before
    store.reinforce(ns, ids, ANA, T0)
    assert len(associations(hash_memory)) == len(before) + 4  # leo, oslo x mia, rome
    hash_memory.delete(said[1].id)  # takes its co-recall back with it
    assert_associations_follow_mentions(hash_memory)
    store.reinforce(ns, [said[0].id, hash_memory.remember("I hear Mia is in Oslo.",
                                                          speaker="ana").id], ANA, T0)  # fmt: skip
    assert query(hash_memory, "SELECT COUNT(*) FROM reinforcements") == [(1,)]
    hash_memory.prune(now=T0 + timedelta(days=3650))  # faded: the log goes too
    assert query(hash_memory, "SELECT * FROM reinforcements") == []
    assert query(hash_memory, "SELECT * FROM reinforcement_sources") == []


# -- 5. deleting and rewriting take back what a message added ----------------------------------


def test_associations_are_the_sum_of_their_messages_in_any_order(hash_memory: Memory) -> None:
    days = [0, 40, 10, 25]  # said out of order
    said = [
        hash_memory.remember(f"I hear Leo and Ada love Oslo ({day}).", speaker="ana",
                             time=T0 + timedelta(days=day))
        for day in days
    ]  # fmt: skip
    assert_associations_follow_mentions(hash_memory)
    hash_memory.delete(said[1].id)  # the latest: the others' weights are as if never said
    assert_associations_follow_mentions(hash_memory)
    hash_memory.update(said[2].id, "I hear Leo and Ada left Oslo.")
    assert_associations_follow_mentions(hash_memory)
    for episode in (said[0], said[2], said[3]):
        hash_memory.delete(episode.id)
    assert associations(hash_memory) == {}
    assert query(hash_memory, "SELECT * FROM entity_counts") == []


def test_a_split_moves_the_associations_of_the_moved_messages(memory: Memory) -> None:
    for text in [
        "I think Sam from accounting approved the Berlin budget.",
        "I had lunch with Sam from accounting and Olga to discuss Berlin.",
        "Apparently Sam in accounting says Olga sent the invoices late.",
        "My nephew Sam turned five and loves Lego.",
        "Yesterday Sam, my nephew, built a Lego castle with Tim.",
        "I took my nephew Sam and Tim to the zoo to see the lions.",
    ]:
        memory.remember(text, speaker="ana")
    assert [c.name for c in memory.split_entities()] == ["Sam"]
    assert_associations_follow_mentions(memory)


# -- 6. bounded work per message -----------------------------------------------------------------


def test_a_message_of_thousands_of_names_is_remembered_quickly(hash_memory: Memory) -> None:
    letters = "bcdfghklmnprstvz"
    names = [f"{a.upper()}{b}a{c}o" for a in letters for b in letters for c in letters]
    text = "We met " + ", ".join(names)
    text = text[: text.rfind(",", 0, MAX_MESSAGE_CHARS - 1)] + "."
    assert text.count(",") > 2_000
    hash_memory.remember(text, speaker="ana")  # linking every pair took a minute
    assert len(hash_memory.entities()) == MAX_NAMES
    assert [e.name for e in hash_memory.entities()][:3] == names[:3]  # the first ones
    assert len(associations(hash_memory)) <= MAX_NAMES * NEIGHBOURS


# -- non-interference: the group's view is the same with or without what it may not see --------

TALK = [  # (participants, speaker, text)
    (ANA, "ana", "My brother Tom lives in Oslo and works at Equinor."),
    (ANA, "ana", "Tom says the Oslo winter is brutal this year."),
    (ANA, "ana", "My friend Melanie paints landscapes and loves camping."),
    (GROUP, "bob", "Yesterday Mel showed us her painting of the lake."),
    (ANA, "ana", "Yesterday Mel showed me her new painting of a lake."),
    (ANA, "ana", "I think Melanie went camping with her kids last weekend."),
    (["bob"], "bob", "My brother Erik fixes bikes in Bergen."),
    (GROUP, "ana", "My brother is visiting next week."),
    (GROUP, "bob", "We should all go to Oslo in the spring."),
    (ANA, "ana", "I think Sam from accounting approved my expense report."),
    (ANA, "ana", "I had lunch with Sam from accounting to discuss the budget."),
    (GROUP, "bob", "I heard Tom plays chess every Sunday."),
    (ANA, "ana", "Apparently Sam in accounting says the invoices are late."),
    (ANA, "ana", "My nephew Sam turned five and loves dinosaurs."),
    (GROUP, "ana", "Apparently Sam from accounting wants the budget numbers."),
    (ANA, "ana", "Yesterday Sam, my nephew, built a Lego castle."),
    (ANA, "ana", "I took my nephew Sam to the zoo to see the lions."),
    (GROUP, "bob", "The opera house in Oslo has a marble roof."),
    (["bob"], "bob", "Sam from accounting is my neighbour in Bergen."),
    (GROUP, "ana", "My nephew Sam wants a dinosaur book for his birthday."),
]
LATER = [  # said after the merges and splits: they follow the decisions they may see
    (GROUP, "bob", "I hear Sam from accounting sent the budget numbers."),
    (ANA, "ana", "I hear Mel is camping again this weekend."),
    (GROUP, "ana", "I hear Mel is camping again."),
    (ANA, "ana", "My nephew Sam lost his first tooth."),
    (GROUP, "ana", "My brother Tom is coming on Sunday."),
]
QUESTIONS = ["Who is visiting next week?", "What did Mel paint?", "Tell me about Oslo",
             "What does Sam want?", "my brother"]  # fmt: skip


def _say(memory: Memory, talk: slice, present: list[str], everything: bool) -> None:
    """Those of the messages (a slice of TALK + LATER) said before the participants, or
    all of them; each at its own hour."""
    for hour, (participants, speaker, text) in list(enumerate(TALK + LATER))[talk]:
        if everything or set(participants) >= set(present):
            memory.remember(text, speaker=speaker, participants=participants,
                            conversation="+".join(participants),
                            time=T0 + timedelta(hours=hour))  # fmt: skip


def _view(path: Path, embedder: Embedder, present: list[str], everything: bool) -> Any:
    with Memory.open(path, namespace="t", embedder=embedder) as memory:
        _say(memory, slice(len(TALK)), present, everything)
        memory.merge_entities()
        memory.split_entities()
        _say(memory, slice(len(TALK), None), present, everything)
        ranker = memory.with_settings(text_weight=0.0)  # BM25 statistics may differ
        recalled = [
            [(item.text, item.speaker, round(item.score, 5))
             for item in ranker.recall(q, participants=present, now=T0 + timedelta(days=1))]
            for q in QUESTIONS
        ]  # fmt: skip
        listed = memory.entities(participants=present)
        return (
            [
                memory.store.gazetteer(memory.store.scope(memory.namespace, present), who)
                for who in present
            ],
            sorted((e.key, e.sense, e.name, e.kind, e.mentions, e.aliases) for e in listed),
            recalled,
        )


@pytest.mark.parametrize("present", [GROUP, ANA, ["bob"]], ids=["group", "ana", "bob"])
def test_what_the_participants_see_depends_only_on_what_they_may_see(
    tmp_path: Path, use_embedder: Embedder, present: list[str]
) -> None:
    everything = _view(tmp_path / "all.db", use_embedder, present, everything=True)
    theirs = _view(tmp_path / "theirs.db", use_embedder, present, everything=False)
    assert everything[0] == theirs[0], "gazetteer"
    assert everything[1] == theirs[1], "entity list"
    assert everything[2] == theirs[2], "recall"
