"""Sleep with the real embedder and the rule extractor: facts, the superseded left out
of recall, questions about the past, forgetting, the diary, idempotence, the worker."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from kuzya.memory import Memory
from kuzya.model import Kind

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


def test_name_change_closes_the_old_name_and_recall_leaves_it_out(memory: Memory) -> None:
    memory.remember("My name is Alice.", speaker="user", conversation="s1", time=day(0))
    memory.sleep(now=day(0))
    memory.remember(
        "Big news: I changed my name to Bob.", speaker="user", conversation="s2", time=day(9)
    )
    report = memory.sleep(now=day(9))
    assert report.episodes == 1 and report.claims == 1
    assert [f.value for f in memory.facts(subject="user")] == ["Bob"]
    context = memory.recall("What is my name?", participants=["user"], now=day(10)).as_prompt()
    assert "Bob" in context
    assert "Alice" not in context
    past = memory.recall("What was my name before?", participants=["user"], now=day(10))
    assert "Alice" in past.as_prompt()


def test_where_did_i_live_before(memory: Memory) -> None:
    memory.remember("I live in Lisbon.", speaker="ana", time=day(0))
    memory.remember("We moved to Austin last month.", speaker="ana", time=day(40))
    memory.sleep(now=day(41))
    now = memory.recall("Where do I live?", participants=["ana"], now=day(42))
    assert "Austin" in now.as_prompt() and "Lisbon" not in now.as_prompt()
    before = memory.recall("Where did I live before?", participants=["ana"], now=day(42))
    assert "Lisbon" in before.as_prompt()
    facts = [item for item in now.items if item.kind is Kind.FACT]
    assert facts and facts[0].text.startswith("ana lives in Austin")


def test_a_message_that_is_partly_out_of_date_keeps_what_is_still_true(memory: Memory) -> None:
    """The move replaces where ana lives, not her job: the clause with the old city goes,
    the one with the job stays; a question about the past gets the whole message."""
    memory.remember("Я живу в Екатеринбурге, работаю инженером.", speaker="ana", time=day(0))
    memory.remember("Новости: переехала в Новосибирск!", speaker="ana", time=day(40))
    memory.sleep(now=day(41))
    now = memory.recall("В каком городе я живу?", participants=["ana"], now=day(42))
    said = [item.text for item in now.items if item.kind is Kind.EPISODE]
    assert "… работаю инженером." in said
    assert "Екатеринбург" not in now.as_prompt()
    for question in ("Где я жила раньше?", "Где я жила до Новосибирска?"):
        before = memory.recall(question, participants=["ana"], now=day(42))
        assert "Я живу в Екатеринбурге, работаю инженером." in before.as_prompt(), question


def test_a_question_sharing_one_word_with_a_replaced_value_does_not_bring_it_back(
    memory: Memory,
) -> None:
    """The word "coffee" in the question does not name "coffee black": the replaced habit
    stays out; naming it whole ("my Denver apartment", "black coffee") brings it back."""
    memory.remember("I drink my coffee black, always.", speaker="mia", time=day(0))
    memory.remember("Lately I've switched to oat flat whites.", speaker="mia", time=day(60))
    memory.remember("I live in Denver, near Union Station.", speaker="mia", time=day(1))
    memory.remember("We moved to Austin!", speaker="mia", time=day(70))
    memory.sleep(now=day(71))

    def context(question: str) -> str:
        return memory.recall(question, participants=["mia"], now=day(72)).as_prompt()

    assert "black" not in context("How do I take my coffee these days?")
    assert "flat whites" in context("How do I take my coffee these days?")
    assert "black, always" in context("Did I ever drink black coffee?")
    assert "Union Station" in context("What was near my Denver apartment?")


def test_sleep_twice_changes_nothing(memory: Memory) -> None:
    memory.remember("I have a dog named Rex and I live in Lisbon.", speaker="ana", time=day(0))
    first = memory.sleep(now=day(1))
    facts = memory.facts(include_past=True)
    second = memory.sleep(now=day(1))
    assert first.episodes == 1 and second.episodes == 0
    assert memory.facts(include_past=True) == facts
    assert len(memory.diary(participants=["ana"], kind="conversation")) == 1


def test_forget_my_address_retires_the_fact_and_its_words(memory: Memory) -> None:
    memory.remember("My address is 12 Oak Street. I love pizza.", speaker="ana", time=day(0))
    memory.sleep(now=day(0))
    assert [f.attribute for f in memory.facts(subject="ana")] == ["address", "likes"] or {
        f.attribute for f in memory.facts(subject="ana")
    } == {"address", "likes"}
    request = memory.remember("Please forget my address.", speaker="ana", time=day(1))
    # carried out as it is remembered: no sleep needed
    assert {f.attribute for f in memory.facts(subject="ana")} == {"likes"}
    assert "forget" in request.text.lower()
    context = memory.recall("What is my address?", participants=["ana"], now=day(2)).as_prompt()
    assert "Oak" not in context
    remaining = " ".join(e.text for e in memory.get_all(user_id="ana"))
    assert "Oak" not in remaining and "pizza" in remaining
    assert all(
        "Oak" not in (h.old_text or "") + (h.new_text or "")
        for e in memory.get_all(user_id="ana")
        for h in memory.history(e.id)
    )
    assert any(h.event == "FORGET" for e in memory.get_all() for h in memory.history(e.id))


def test_forget_that_forgets_the_previous_message_only(memory: Memory) -> None:
    memory.remember("I love pizza.", speaker="ana", time=day(0))
    memory.remember("My address is 12 Oak Street.", speaker="ana", time=day(0) + timedelta(hours=1))
    memory.sleep(now=day(0))
    memory.remember("Please forget that.", speaker="ana", time=day(1))
    memory.sleep(now=day(1))
    assert {f.attribute for f in memory.facts(subject="ana")} == {"likes"}
    assert [e.text for e in memory.get_all()] == ["I love pizza.", "Please forget that."]


def test_forget_only_touches_the_requesters_own_words(memory: Memory) -> None:
    memory.remember("Tom lent me his car.", speaker="ana", participants=["ana", "bo"], time=day(0))
    memory.remember("Tom is my cousin.", speaker="bo", participants=["ana", "bo"], time=day(0))
    done = memory.forget("ana", about="Tom")
    assert done.deleted == 1
    texts = [e.text for e in memory.get_all()]
    assert texts == ["Tom is my cousin."]


def test_diary_has_conversation_and_day_entries_with_provenance(memory: Memory) -> None:
    turns = [
        "We are planning a trip to Kyoto in April.",
        "I booked the ryokan near the Gion district.",
        "My sister Priya will join us for the temples.",
    ]
    stored = [
        memory.remember(t, speaker="ana", conversation="trip", time=day(0) + timedelta(minutes=i))
        for i, t in enumerate(turns)
    ]
    memory.sleep(now=day(0))
    (entry,) = memory.diary(participants=["ana"], kind="conversation")
    assert entry.sources == tuple(e.id for e in stored)
    assert "Kyoto" in entry.text or "ryokan" in entry.text
    (daily,) = memory.diary(participants=["ana"], kind="day")
    assert daily.key == "2026-03-01"
    assert memory.diary(participants=["bo"]) == []
    overview = memory.recall("What did we talk about?", participants=["ana"], now=day(1))
    assert any(item.kind is Kind.DIARY for item in overview.items)


def test_old_diary_entries_are_compressed_per_month(memory: Memory) -> None:
    for n in range(3):
        memory.remember(
            f"Session {n}: we practised Spanish verbs.",
            speaker="ana",
            conversation=f"c{n}",
            time=day(n),
        )
    memory.sleep(now=day(3))
    report = memory.sleep(now=day(90))
    assert report.compressed == 1
    (period,) = memory.diary(participants=["ana"], kind="period")
    assert period.key == "2026-03" and period.level == 1
    assert len(period.sources) == 3


def test_worker_consolidates_in_the_background(memory: Memory) -> None:
    worker = memory.start_worker(every=2, idle_seconds=0.2)
    memory.remember("I live in Porto.", speaker="ana", time=day(0))
    memory.remember("I work at Farfetch.", speaker="ana", time=day(0))
    deadline = time.monotonic() + 30
    while not worker.reports and time.monotonic() < deadline:
        time.sleep(0.05)
    assert worker.reports and not worker.errors
    assert {f.attribute for f in memory.facts(subject="ana")} >= {"lives_in", "works_at"}
