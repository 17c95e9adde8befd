"""The Python API end to end with the real multilingual embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from kuzya import Attachment, Episode, Kind, Memory, NotFound, Recall, RecallItem

T0 = datetime(2024, 3, 1, 10, tzinfo=UTC)


def texts(result) -> list[str]:
    return [item.text for item in result]


def test_remember_then_recall_with_provenance(memory):
    before = datetime.now(UTC) - timedelta(seconds=1)
    said = datetime(2024, 3, 9, 18, 30, tzinfo=timezone(timedelta(hours=2)))
    episode = memory.remember(
        "I moved to Lisbon in March", speaker="ana", conversation="chat-1", time=said
    )
    memory.remember(
        "My brother plays the cello",
        speaker="ana",
        conversation="chat-1",
        time=said + timedelta(minutes=1),
    )
    assert isinstance(episode, Episode)
    assert episode.said_at == said and episode.said_at.utcoffset() == timedelta(0)
    assert episode.audience == frozenset({"ana"})

    result = memory.recall("Which city did I move to?", participants=["ana"])
    assert isinstance(result, Recall)
    top = result.items[0]
    assert isinstance(top, RecallItem)
    assert top.id == episode.id
    assert top.sources == (episode.id,)
    assert top.kind is Kind.EPISODE
    assert top.text == "I moved to Lisbon in March"
    assert top.speaker == "ana" and top.conversation == "chat-1"
    assert top.said_at == said
    assert before <= top.stored_at <= datetime.now(UTC) + timedelta(seconds=1)
    assert top.score > 0
    scores = [item.score for item in result]
    assert scores == sorted(scores, reverse=True)
    assert result.query == "Which city did I move to?"


def test_recall_now_defaults_to_the_present_and_accepts_iso(memory):
    memory.remember("hello there", speaker="ana", time=T0)
    assert memory.recall(
        "hello", participants=["ana"], now="2024-05-01T00:00:00+02:00"
    ).now == datetime(2024, 4, 30, 22, tzinfo=UTC)
    now = memory.recall("hello", participants=["ana"]).now
    assert abs((now - datetime.now(UTC)).total_seconds()) < 60


def test_attachment_captions_are_remembered_and_recalled(memory):
    episode = memory.remember(
        "look what I found!",
        speaker="ana",
        attachments=[
            {
                "kind": "image",
                "caption": "a golden retriever puppy in the snow",
                "url": "https://example.invalid/p.jpg",
            }
        ],
        time=T0,
    )
    memory.remember("The meeting moved to Thursday", speaker="ana", time=T0)
    assert episode.attachments == (
        Attachment(
            "image", "a golden retriever puppy in the snow", "https://example.invalid/p.jpg"
        ),
    )
    top = memory.recall("the dog photo", participants=["ana"]).items[0]
    assert top.id == episode.id
    assert "golden retriever puppy" in top.text


def test_recall_packs_within_the_word_budget(memory):
    memory.remember_many(
        {
            "text": f"On day {i} we hiked along the coast and swam in the sea near the camp",
            "speaker": "ana",
            "conversation": "trip",
            "time": T0 + timedelta(days=i),
        }
        for i in range(30)
    )
    for budget in (20, 50, 120):
        result = memory.recall(
            "hiking along the coast", participants=["ana"], budget_words=budget, limit=100
        )
        assert len(result) >= 1 and result.words <= budget
        assert result.words == sum(len(item.line().split()) for item in result)
    small = memory.recall("hiking along the coast", participants=["ana"], budget_words=50)
    large = memory.recall("hiking along the coast", participants=["ana"], budget_words=400)
    unlimited = memory.recall(
        "hiking along the coast", participants=["ana"], budget_words=None, limit=100
    )
    assert len(small) < len(large) <= len(unlimited)
    assert small.words <= 50 < large.words <= 400
    assert len(memory.recall("hiking", participants=["ana"], budget_words=None, limit=5)) == 5
    # an item larger than the whole budget is skipped, never truncated
    assert len(memory.recall("hiking", participants=["ana"], budget_words=3)) == 0


def test_near_duplicates_collapse_to_one_item(memory):
    for variant in (
        "I love green tea.",
        "I love green tea!",
        "i love GREEN tea",
        "I love green tea",
    ):
        memory.remember(variant, speaker="ana", time=T0)
    memory.remember("The train to Porto leaves at nine", speaker="ana", time=T0)
    result = memory.recall("green tea", participants=["ana"], budget_words=None)
    tea = [t for t in texts(result) if "tea" in t.lower()]
    assert len(tea) == 1
    assert len(memory.get_all()) == 5  # nothing was deleted, only the recall is deduplicated


def test_duplicate_threshold_uses_embedding_similarity(memory):
    memory.remember("I love green tea", speaker="ana", time=T0)
    memory.remember("I really love green tea", speaker="ana", time=T0 + timedelta(hours=1))
    query = "green tea"
    assert len(memory.recall(query, participants=["ana"], budget_words=None)) == 2
    strict = memory.with_settings(duplicate_cosine=0.95)
    assert len(strict.recall(query, participants=["ana"], budget_words=None)) == 1
    assert memory.settings.duplicate_cosine == 0.97  # the clone did not change the original


def test_same_words_from_two_speakers_collapse(memory):
    memory.remember(
        "see you at the station at noon", speaker="ana", participants=["ana", "bo"], time=T0
    )
    memory.remember(
        "see you at the station at noon", speaker="bo", participants=["ana", "bo"], time=T0
    )
    result = memory.recall("station", participants=["ana", "bo"], budget_words=None)
    assert len(result) == 1


@pytest.fixture
def bike_story(memory):
    """Older conversations, then a new one in which the bike is finally bought."""
    old = [
        ("The bike shop on Rua Augusta gave me a discount on the Trek", "c-old"),
        ("I booked a table at the sushi place for Friday", "c-old"),
        ("My landlord raised the rent again", "c-old"),
        ("The dentist said my teeth are fine", "c-old2"),
        ("I got a discount on my phone plan by calling support", "c-old2"),
        ("The hotel in Porto was expensive but worth it", "c-old2"),
        ("My sister started a new job at a bakery", "c-old3"),
    ]
    stored = memory.remember_many(
        {
            "text": text,
            "speaker": "ana",
            "conversation": conversation,
            "time": T0 + timedelta(days=i),
        }
        for i, (text, conversation) in enumerate(old)
    )
    ids = {episode.text: episode.id for episode in stored}
    ids["now"] = memory.remember(
        "I finally bought the bike for 900 euros",
        speaker="ana",
        conversation="c-new",
        time=T0 + timedelta(days=30),
    ).id
    return ids


BIKE_SHOP = "The bike shop on Rua Augusta gave me a discount on the Trek"
PHONE = "I got a discount on my phone plan by calling support"


def test_working_memory_resolves_a_pronoun(memory, bike_story):
    query = "where did I get a discount on it?"
    without = memory.recall(query, participants=["ana"], budget_words=None, limit=3)
    assert without.items[0].id == bike_story[PHONE]  # "it" means nothing without context
    within = memory.recall(
        query, participants=["ana"], conversation="c-new", budget_words=None, limit=3
    )
    assert within.items[0].id == bike_story[BIKE_SHOP]
    # the working memory itself is context, not a result
    assert bike_story["now"] not in [item.id for item in within]


def test_working_memory_gives_a_vague_question_its_topic(memory, bike_story):
    query = "where did I buy it?"
    within = memory.recall(
        query, participants=["ana"], conversation="c-new", budget_words=None, limit=3
    )
    assert within.items[0].id == bike_story[BIKE_SHOP]


def test_working_memory_of_another_conversation_does_not_apply(memory, bike_story):
    query = "where did I get a discount on it?"
    other = memory.recall(
        query, participants=["ana"], conversation="c-old3", budget_words=None, limit=3
    )
    assert other.items[0].id != bike_story[BIKE_SHOP]
    unknown = memory.recall(
        query, participants=["ana"], conversation="never-seen", budget_words=None, limit=3
    )
    assert unknown.items[0].id == bike_story[PHONE]


# -- Mem0-style surface ----------------------------------------------------------------------


def test_mem0_style_add_search_get_update_delete_history(memory):
    added = memory.add(
        "I am vegetarian and allergic to peanuts", user_id="ana", metadata={"category": "health"}
    )
    other = memory.add("I prefer window seats on planes", user_id="ana")
    bobs = memory.add("I eat everything", user_id="bob")
    assert added.conversation == "user:ana" and added.audience == frozenset({"ana"})
    assert memory.get(added.id) == added
    assert memory.get(added.id).metadata == {"category": "health"}

    found = memory.search("what food should I avoid?", user_id="ana")
    assert found[0].id == added.id
    assert bobs.id not in [item.id for item in found]
    assert {e.id for e in memory.get_all(user_id="ana")} == {added.id, other.id}
    assert [e.id for e in memory.get_all(conversation="user:bob")] == [bobs.id]

    updated = memory.update(added.id, "I am vegan and allergic to shellfish", actor="ana")
    assert updated.id == added.id
    assert updated.text == "I am vegan and allergic to shellfish"
    assert updated.updated_at is not None
    assert memory.get(added.id).text == updated.text
    top = memory.search("shellfish allergy", user_id="ana")[0]
    assert top.id == added.id and "shellfish" in top.text
    assert all("peanuts" not in item.text for item in memory.search("peanuts", user_id="ana"))
    history = memory.history(added.id)
    assert [(h.event, h.old_text, h.new_text) for h in history] == [
        ("ADD", None, "I am vegetarian and allergic to peanuts"),
        (
            "UPDATE",
            "I am vegetarian and allergic to peanuts",
            "I am vegan and allergic to shellfish",
        ),
    ]
    assert history[1].actor == "ana"

    memory.delete(added.id, actor="ana")
    with pytest.raises(NotFound):
        memory.get(added.id)
    assert added.id not in [item.id for item in memory.search("allergy", user_id="ana")]
    assert [e.id for e in memory.get_all(user_id="ana")] == [other.id]
    history = memory.history(added.id)
    assert [h.event for h in history] == ["ADD", "UPDATE", "DELETE"]
    assert all(h.old_text is None and h.new_text is None for h in history)
    assert memory.stats()["episodes"] == 2


def test_get_all_pages_in_time_order(memory):
    made = [
        memory.remember(f"note {i}", speaker="ana", time=T0 + timedelta(minutes=10 - i))
        for i in range(5)
    ]
    ordered = [e.id for e in sorted(made, key=lambda e: e.said_at)]
    assert [e.id for e in memory.get_all()] == ordered
    assert [e.id for e in memory.get_all(limit=2, offset=1)] == ordered[1:3]
    assert memory.get_all(offset=10) == []


def test_remember_many_keeps_order_and_positions(memory):
    stored = memory.remember_many(
        [
            {
                "text": f"line {i}",
                "speaker": "ana" if i % 2 else "bo",
                "conversation": "play",
                "participants": ["ana", "bo"],
                "time": T0 + timedelta(seconds=i),
            }
            for i in range(5)
        ]
    )
    assert [e.text for e in stored] == [f"line {i}" for i in range(5)]
    assert [e.position for e in stored] == list(range(5))
    assert all(e.audience == frozenset({"ana", "bo"}) for e in stored)
    assert [e.id for e in stored] == sorted(e.id for e in stored)


def test_as_prompt_groups_by_day_in_time_order(memory):
    memory.remember(
        "We went to the zoo and saw a panda",
        speaker="ana",
        time=datetime(2024, 5, 18, 15, tzinfo=UTC),
    )
    memory.remember(
        "I fed the panda some bamboo",
        speaker="bo",
        participants=["ana", "bo"],
        time=datetime(2024, 5, 18, 16, tzinfo=UTC),
    )
    memory.remember(
        "The panda documentary was great", speaker="ana", time=datetime(2024, 5, 20, 9, tzinfo=UTC)
    )
    result = memory.recall("panda", participants=["ana"], budget_words=None)
    assert len(result) == 3
    assert result.as_prompt().splitlines() == [
        "[Saturday, 18 May 2024]",
        "- ana: We went to the zoo and saw a panda",
        "- bo: I fed the panda some bamboo",
        "[Monday, 20 May 2024]",
        "- ana: The panda documentary was great",
    ]
    empty = memory.recall("panda", participants=["nobody"])
    assert len(empty) == 0 and empty.as_prompt() == "(no relevant memories)"


RUSSIAN_AND_ENGLISH = [
    "Моя сестра работает ветеринаром в Казани",
    "I play tennis every Sunday morning with my neighbour",
    "We are planning a trip to Japan in October",
    "My favourite dish is mushroom risotto",
    "The car needs new tyres before winter",
    "I started learning to play the guitar",
    "Our cat knocked over the plant again",
    "В субботу мы ходили в театр на Чайку",
    "У меня аллергия на кошек",
]


@pytest.fixture
def bilingual(memory):
    stored = memory.remember_many(
        {"text": text, "speaker": "ana", "time": T0 + timedelta(hours=i)}
        for i, text in enumerate(RUSSIAN_AND_ENGLISH)
    )
    return {episode.text: episode.id for episode in stored}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("У кого аллергия на кошек?", "У меня аллергия на кошек"),
        ("What do I play on Sundays?", "I play tennis every Sunday morning with my neighbour"),
        ("What does my sister do for a living?", "Моя сестра работает ветеринаром в Казани"),
        ("Where does my sister work?", "Моя сестра работает ветеринаром в Казани"),
        ("Куда мы едем в октябре?", "We are planning a trip to Japan in October"),
    ],
)
def test_recall_in_russian_and_english_and_across_them(memory, bilingual, query, expected):
    result = memory.recall(query, participants=["ana"], budget_words=None, limit=3)
    assert result.items[0].id == bilingual[expected]


def test_reopening_the_file_keeps_memories(tmp_path, use_embedder):
    path = tmp_path / "reopen.db"
    with Memory.open(path, namespace="test", embedder=use_embedder) as first:
        episode = first.remember("Kuzya remembers across restarts", speaker="ana", time=T0)
    with Memory.open(path, namespace="test", embedder=use_embedder) as second:
        assert second.get(episode.id).text == "Kuzya remembers across restarts"
        assert (
            second.recall("does it survive a restart?", participants=["ana"]).items[0].id
            == episode.id
        )


def test_compact_purges_forgotten_words_from_the_file(tmp_path):
    from kuzya import Memory
    from kuzya.testing import HashEmbedder

    path = tmp_path / "purge.db"
    with Memory.open(path, embedder=HashEmbedder()) as memory:
        secret = memory.remember("my locker code is zebediahquux", speaker="ana")
        for i in range(50):
            memory.remember(f"ordinary note number {i}", speaker="ana")
        memory.delete(secret.id)
        memory.compact()
        assert memory.recall("zebediahquux", participants=["ana"]).items[0].id != secret.id
    raw = path.read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("purge.db-*") if p.is_file()
    )
    assert b"zebediahquux" not in raw
    assert b"ordinary note number 7" in raw
