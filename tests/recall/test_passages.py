"""Long messages: the sentences that match the question are recalled, cut to the budget."""

from __future__ import annotations

from datetime import UTC, datetime

from kuzya.embed import Embedder
from kuzya.language.text import terms
from kuzya.memory import Memory
from kuzya.model import RecallItem
from kuzya.recall.passages import cut, item_cap
from tests.recall.items import recalled

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)

FILLER_EN = [
    "We spent the morning walking around the old harbour and looking at the boats.",
    "The weather was grey but nobody minded much, and the coffee was excellent.",
    "My brother told a long story about his football team losing again on Sunday.",
    "Afterwards we argued for an hour about which bakery makes the best cinnamon buns.",
    "The kids wanted to see the aquarium, so we queued for forty minutes in the rain.",
    "Dinner was at a noisy pizza place where the waiter kept forgetting our drinks.",
]
FACT_EN = "By the way, my passport expires in March 2027, so I have to renew it soon."


def _long(fact: str, filler: list[str], repeats: int = 5) -> str:
    before = " ".join(filler * (repeats // 2 + 1))
    after = " ".join(filler * (repeats - repeats // 2))
    return f"{before} {fact} {after}"


def _cut(text: str, question: str, embedder: Embedder, words: int) -> RecallItem:
    vector = embedder.embed([question])[0]
    return cut(recalled(text), terms(question), vector, embedder, words)


def test_a_fact_in_the_middle_of_a_long_message_is_recalled(memory: Memory) -> None:
    text = _long(FACT_EN, FILLER_EN)
    assert len(text.split()) > 500
    memory.remember(text, speaker="ana", conversation="trip", time=T0)
    memory.remember("Thanks, talk soon!", speaker="ana", conversation="trip", time=T0)
    found = memory.recall("When does my passport expire?", participants=["ana"], speaker="ana")
    prompt = found.as_prompt()
    assert "March 2027" in prompt
    assert len(prompt.split()) <= 400 + 20  # the budget, with the date headers


def test_a_passage_keeps_order_and_marks_what_was_left_out(use_embedder: Embedder) -> None:
    text = _long(FACT_EN, FILLER_EN)
    passage = _cut(text, "When does my passport expire?", use_embedder, 60)
    assert FACT_EN in passage.text
    assert passage.words <= 60
    assert passage.text.startswith("… ") and passage.text.endswith(" …")
    pieces = [p.strip() for p in passage.text.strip("… ").split("…")]
    assert all(piece in text for piece in pieces)  # whole sentences, in the message's order


def test_a_term_the_whole_message_repeats_counts_less(use_embedder: Embedder) -> None:
    wedding = [
        "Elena's wedding is in September and the wedding planning is endless.",
        "Everyone in the family has an opinion about the wedding, honestly.",
        "The wedding dress took three fittings and one argument.",
        "The catering is by Fig and Fennel, who do sharing platters.",
        "My wedding speech is still half written and I am nervous about it.",
    ]
    text = " ".join(wedding * 4)
    passage = _cut(text, "Who is doing the wedding catering?", use_embedder, 40)
    assert "Fig and Fennel" in passage.text


def test_russian_long_message(use_embedder: Embedder) -> None:
    filler = [
        "Утром мы долго гуляли по набережной и смотрели на корабли.",
        "Погода была серая, но кофе в маленьком кафе оказался отличным.",
        "Брат опять рассказывал про свою футбольную команду и её поражения.",
        "Потом мы час спорили, где в городе лучшие булочки с корицей.",
    ]
    fact = "Кстати, нашу собаку зовут Буся, она живёт у тёщи до переезда."
    passage = _cut(_long(fact, filler, 8), "Как зовут нашу собаку?", use_embedder, 40)
    assert "Буся" in passage.text


def test_short_items_and_no_budget_are_left_whole(memory: Memory, use_embedder: Embedder) -> None:
    short = recalled("My passport expires in March 2027.")
    assert cut(short, ["passport"], use_embedder.embed(["passport"])[0], use_embedder, 40) is short
    text = _long(FACT_EN, FILLER_EN)
    memory.remember(text, speaker="ana", conversation="trip", time=T0)
    found = memory.recall("passport", participants=["ana"], budget_words=None)
    assert found.items[0].text == text


def test_one_endless_sentence_is_cut_to_words(use_embedder: Embedder) -> None:
    text = " ".join(["word"] * 300)
    passage = _cut(text, "word", use_embedder, 50)
    assert passage.words <= 52 and passage.text.endswith("…")


def test_a_message_takes_at_most_its_share_of_the_budget() -> None:
    assert item_cap(400, 0.25) == 100
    assert item_cap(200, 0.25) == 50
    assert item_cap(20, 0.25) == 30  # a tiny budget still shows a sentence or two


def test_messages_past_the_best_few_are_cut_shorter(memory: Memory) -> None:
    """The best `full_items` messages may take `item_share` of the budget each; the rest
    `tail_share`, so more of the evidence for a question fits."""
    topics = ["football match", "birthday cake", "garden shed", "violin lesson", "bus strike",
              "chess club"]  # fmt: skip
    for day, topic in enumerate(topics):
        story = [f"{sentence[:-1]}, and then the {topic} came up again." for sentence in FILLER_EN]
        text = f"The passport office was slow today. {' '.join(story * 2)}"
        memory.remember(text, speaker="ana", conversation=f"day{day}",
                        time=T0.replace(day=day + 1))  # fmt: skip
    settings = memory.settings
    found = memory.recall("passport office", participants=["ana"], budget_words=1200)
    sizes = [item.words for item in found.items]
    assert len(sizes) == 6
    full, tail = item_cap(1200, settings.item_share), item_cap(1200, settings.tail_share)
    assert all(size <= full + 2 for size in sizes)  # "…" and the speaker's name
    assert all(size <= tail + 2 for size in sizes[settings.full_items :])
    assert max(sizes[: settings.full_items]) > tail + 2


def test_without_an_embedder_the_query_words_choose_the_passage(use_embedder: Embedder) -> None:
    text = _long(FACT_EN, FILLER_EN)
    vector = use_embedder.embed(["When does my passport expire?"])[0]
    item = recalled(text)
    passage = cut(item, terms("When does my passport expire?"), vector, None, 40)
    assert FACT_EN in passage.text and passage.words <= 40
    unmatched = cut(item, terms("xylophone"), vector, None, 40)  # no word in common
    assert unmatched.words <= 40 and unmatched.text != text
