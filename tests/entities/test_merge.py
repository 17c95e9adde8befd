"""Two names of one entity are merged (recorded, reversible); two people are not."""

from __future__ import annotations

import pytest

from kuzya import Memory
from kuzya.entities.merge import short_form
from kuzya.errors import NotFound

TALK = [
    ("ana", "My friend Melanie paints landscapes and loves camping."),
    ("bob", "Yesterday Mel showed me her new painting of a lake."),
    ("ana", "Our colleague Sam fixed the printer in accounting."),
    ("ana", "My aunt Samantha is visiting Rome with her kids."),
    ("bob", "I think Melanie went camping with her kids last weekend."),
    ("ana", "I played chess with Kate and Katherine, the twins."),
]


@pytest.fixture
def talk(memory: Memory) -> Memory:
    for speaker, text in TALK:
        memory.remember(text, speaker=speaker, participants=["ana", "bob"], conversation="g")
    return memory


def keys(memory: Memory) -> dict[str, int]:
    return {e.key: e.mentions for e in memory.entities()}


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("mel", "melanie", True), ("kate", "katherine", True), ("sam", "samantha", True),
     ("leo", "leonardo", True), ("ann", "anna", True), ("al", "alice", False),
     ("mel", "mila", False), ("kate", "kate", False), ("rome", "romeo", True),
     ("york", "new york", False), ("leo", "leo tolstoy", True)],
)  # fmt: skip
def test_short_form(a: str, b: str, expected: bool) -> None:
    assert short_form(a, b) is expected


def test_short_name_merges_into_the_long_one_and_can_be_undone(talk: Memory) -> None:
    before = keys(talk)
    assert before["mel"] == 1 and before["melanie"] == 2
    changes = talk.merge_entities()
    merged = {c.name for c in changes}
    assert "Mel" in merged
    assert "Sam" not in merged  # different contexts: two people
    assert "Kate" not in merged  # named together: two people
    after = {e.key: e for e in talk.entities()}
    assert "mel" not in after
    assert after["melanie"].mentions == 3 and "mel" in after["melanie"].aliases
    change = next(c for c in changes if c.name == "Mel")
    assert change.event == "MERGE" and "context cosine" in change.reason

    # the alias now links new mentions to Melanie
    talk.remember("I think Mel would love this lake.", speaker="bob", participants=["ana", "bob"])
    assert {e.key: e.mentions for e in talk.entities()}["melanie"] == 4

    undone = talk.unmerge_entities(change.id)
    assert undone.event == "SPLIT" and undone.name == "Mel"
    restored = keys(talk)
    assert restored["mel"] == 1 and restored["melanie"] == 3
    with pytest.raises(NotFound):
        talk.unmerge_entities(change.id)  # a merge is undone once


def test_unknown_merge_is_not_found(talk: Memory) -> None:
    with pytest.raises(NotFound):
        talk.unmerge_entities(999)


SAMS = [
    "I think Sam from accounting approved my expense report.",
    "I had lunch with Sam from accounting to discuss the budget.",
    "Apparently Sam in accounting says the invoices are late.",
    "My nephew Sam turned five and loves dinosaurs.",
    "Yesterday Sam, my nephew, built a Lego castle.",
    "I took my nephew Sam to the zoo to see the lions.",
]
MELANIE = [
    "My friend Melanie paints landscapes.",
    "I think Melanie went camping with her kids.",
    "Last week Melanie ran a charity race.",
    "We met Melanie at the pottery class.",
]


def test_one_name_for_two_people_is_split_and_later_mentions_follow_context(
    memory: Memory,
) -> None:
    stored = [memory.remember(text, speaker="ana") for text in SAMS + MELANIE]
    changes = memory.split_entities()
    assert [c.name for c in changes] == ["Sam"]  # Melanie's varied life stays one person
    sams = sorted((e for e in memory.entities() if e.key == "sam"), key=lambda e: e.sense)
    assert [e.sense for e in sams] == [0, 1] and [e.mentions for e in sams] == [3, 3]
    groups = [set(memory.store.entity_episodes(memory.namespace, e.id)) for e in sams]
    accounting = {stored[i].id for i in range(3)}
    nephew = {stored[i].id for i in range(3, 6)}
    assert sorted(groups, key=min) == [accounting, nephew]

    work = memory.remember("Sam from accounting wants the budget numbers by Friday.",
                           speaker="ana")  # fmt: skip
    family = memory.remember("For his birthday my nephew Sam wants a dinosaur book.",
                             speaker="ana")  # fmt: skip
    by_sense = {e.id: set(memory.store.entity_episodes(memory.namespace, e.id)) for e in sams}
    owner = {episode: entity for entity, eps in by_sense.items() for episode in eps}
    assert owner[work.id] == owner[stored[0].id]
    assert owner[family.id] == owner[stored[3].id]

    # a split is undone by merging the two back
    new_sense = changes[0].entity_id
    other = next(e.id for e in sams if e.id != new_sense)
    memory.merge_entity_into(new_sense, other, reason="the same Sam after all")
    assert [e.mentions for e in memory.entities() if e.key == "sam"] == [8]


def test_relation_phrases_in_either_language_mean_the_speakers_relative(memory: Memory) -> None:
    memory.remember("My sister Priya lives in Pune and works as a nurse.", speaker="ana")
    said = [
        memory.remember("Моя сестра вчера звонила мне.", speaker="ana"),
        memory.remember("Я ужинала с моей сестрой.", speaker="ana"),
        memory.remember("I had lunch with my sister today.", speaker="ana"),
    ]
    other = memory.remember("My sister is visiting next week.", speaker="bob")
    priya = next(e for e in memory.entities() if e.key == "priya")
    linked = set(memory.store.entity_episodes(memory.namespace, priya.id))
    assert {e.id for e in said} <= linked
    assert other.id not in linked  # bob's sister is someone else
