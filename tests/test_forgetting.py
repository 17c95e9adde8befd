"""Forgetting takes with it everything made from what is forgotten: claims and facts,
diary entries at every level, the assistant's replies made from it; a redaction keeps what
the rest of the message still says. Real SQLite file, real default embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kuzya.assistant import Assistant
from kuzya.memory import Memory
from kuzya.model import Kind
from kuzya.testing import ScriptedLLM

T0 = datetime(2026, 3, 2, 10, tzinfo=UTC)


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


def everything_said(memory: Memory) -> str:
    """Every text a reader could get at: messages, diary, facts and their history."""
    texts = [e.text for e in memory.get_all(limit=10_000)]
    texts += [e.text for e in memory.diary(participants=["ana"])]
    facts = memory.facts(include_past=True)
    texts += [f.statement for f in facts]
    texts += [d for f in facts for _, d, _ in memory.fact_history(f.id)]
    return " ".join(texts).lower()


def test_delete_rewrites_the_diary_at_every_level(memory: Memory) -> None:
    secret = memory.remember(
        "The spare key is under the blue flowerpot.", speaker="ana", conversation="c1", time=day(0)
    )
    memory.remember("We watched a film about lighthouses.", speaker="ana", conversation="c1",
                    time=day(0) + timedelta(minutes=3))  # fmt: skip
    memory.remember("Lunch was great today.", speaker="ana", conversation="c2", time=day(1))
    memory.sleep(now=day(1))
    memory.sleep(now=day(45))  # March's conversations are compressed into a period entry
    kinds = {e.kind for e in memory.diary(participants=["ana"])}
    assert kinds == {"conversation", "day", "period"}
    assert "flowerpot" in everything_said(memory)
    memory.delete(secret.id)
    assert "flowerpot" not in everything_said(memory)
    assert "lighthouses" in " ".join(e.text for e in memory.diary(participants=["ana"]))
    assert {e.kind for e in memory.diary(participants=["ana"])} == kinds


def test_a_conversation_left_empty_leaves_no_diary_entry(memory: Memory) -> None:
    only = memory.remember("My locker code is 5521.", speaker="ana", conversation="c", time=day(0))
    memory.sleep(now=day(0))
    assert memory.diary(participants=["ana"])
    memory.delete(only.id)
    assert memory.diary(participants=["ana"]) == []


def test_a_reply_made_from_a_deleted_message_is_deleted_too(memory: Memory) -> None:
    secret = memory.remember("My PIN is 4821.", speaker="ana", conversation="c1", time=day(0))
    other = memory.remember("I like rowing.", speaker="ana", conversation="c1", time=day(0))
    assistant = Assistant(memory, None)
    reply = assistant.reply("What is my PIN?", conversation="c2", participants=["ana"], now=day(1))
    assistant.close()
    assert "4821" in reply.text
    replies = [e for e in memory.get_all() if e.speaker == "assistant"]
    assert len(replies) == 1
    memory.delete(secret.id)
    assert [e.speaker for e in memory.get_all()] == ["ana", "ana"]  # the question stays
    assert "4821" not in " ".join(e.text for e in memory.get_all())
    assert [h.event for h in memory.history(replies[0].id)] == ["ADD", "DELETE"]
    assert memory.get(other.id).text == "I like rowing."


def test_a_reply_repeating_a_profile_fact_goes_with_the_message_that_stated_it(
    memory: Memory,
) -> None:
    source = memory.remember("I live in Lisbon.", speaker="ana", conversation="c1", time=day(0))
    memory.sleep(now=day(0))
    llm = ScriptedLLM(["You live in Lisbon."])  # from the profile in the system prompt
    assistant = Assistant(memory, llm)
    assistant.reply("Any plans?", conversation="c2", participants=["ana"], now=day(1))
    assistant.close()
    assert "lives in Lisbon" in llm.calls[0].messages[0].content
    assert any(e.speaker == "assistant" for e in memory.get_all())
    memory.delete(source.id)
    assert "lisbon" not in everything_said(memory)
    assert all(e.speaker == "ana" for e in memory.get_all())


def test_a_reply_belongs_to_those_present_and_not_to_the_assistant(memory: Memory) -> None:
    memory.remember("My PIN is 4821.", speaker="ana", time=day(0))
    assistant = Assistant(memory, None)
    assistant.reply("What is my PIN?", conversation="c", participants=["ana"], now=day(1))
    assistant.close()
    (reply,) = [e for e in memory.get_all() if e.speaker == "assistant"]
    assert reply.audience == frozenset({"ana"})
    assert memory.get_all(participants=["assistant"]) == []


def test_redaction_keeps_the_facts_the_rest_still_states(memory: Memory) -> None:
    memory.remember(
        "I live at 12 Oak Street. I work at Google. I love jazz.", speaker="ana", time=day(0)
    )
    memory.sleep(now=day(0))
    assert {f.attribute for f in memory.facts(subject="ana")} == {"address", "works_at", "likes"}
    done = memory.forget("ana", attribute="address")
    assert done.facts == 1 and done.redacted == 1
    assert {f.attribute for f in memory.facts(subject="ana")} == {"works_at", "likes"}
    (kept,) = memory.get_all()
    assert "Oak" not in kept.text and "Google" in kept.text and "jazz" in kept.text
    assert all(h.old_text is None and "Oak" not in (h.new_text or "")
               for h in memory.history(kept.id))  # fmt: skip


def test_forget_reaches_messages_sleep_has_not_read_yet(memory: Memory) -> None:
    memory.remember("I live at 12 Oak Street.", speaker="ana", time=day(0))
    memory.forget("ana", attribute="address")
    assert memory.get_all() == []
    memory.sleep(now=day(1))
    assert memory.facts() == []


def test_forget_about_cuts_the_assistants_sentences_that_repeat_it(memory: Memory) -> None:
    memory.remember("My cousin Rodrigo lives in Oslo.", speaker="ana", time=day(0))
    memory.remember(
        "Noted: Rodrigo lives in Oslo. Anything else?",
        speaker="assistant",
        participants=["ana"],
        metadata={"role": "assistant"},
        time=day(0),
    )
    memory.forget("ana", about="Rodrigo")
    texts = [e.text for e in memory.get_all()]
    assert texts == ["Anything else?"]


def test_a_request_said_in_a_group_forgets_only_what_the_group_may_see(memory: Memory) -> None:
    group, private = ["ana", "bo"], ["ana"]
    memory.remember("I live in Lisbon.", speaker="ana", participants=group, time=day(0))
    memory.remember("I live in Lisbon, flat 4B.", speaker="ana", participants=private, time=day(0))
    memory.sleep(now=day(0))
    memory.forget("ana", attribute="lives_in", participants=group)
    assert memory.facts(participants=group) == []
    assert [f.value for f in memory.facts(participants=private)] == ["Lisbon"]
    assert [e.text for e in memory.get_all()] == ["I live in Lisbon, flat 4B."]


def test_recall_shows_no_fact_a_deleted_message_stated(memory: Memory) -> None:
    said = memory.remember("I'm allergic to peanuts.", speaker="ana", time=day(0))
    memory.sleep(now=day(0))
    before = memory.recall("What am I allergic to?", participants=["ana"], now=day(1))
    assert any(item.kind is Kind.FACT for item in before)
    memory.delete(said.id)
    after = memory.recall("What am I allergic to?", participants=["ana"], now=day(1))
    assert "peanut" not in after.as_prompt().lower()
    assert memory.profile("ana").facts == ()


def test_forget_about_two_things_forgets_each_wherever_it_was_said(memory: Memory) -> None:
    memory.remember(
        "I've been seeing a therapist, Dr. Lund, for my panic attacks.", speaker="owen", time=day(0)
    )
    memory.remember("I run a pottery shop. Panic attacks are rare now.", speaker="owen",
                    time=day(1))  # fmt: skip
    memory.remember(
        "Please forget what I told you about my therapist and the panic attacks.",
        speaker="owen",
        time=day(2),
    )
    said = " ".join(e.text for e in memory.get_all()).lower()
    assert "lund" not in said and "panic" not in said and "therapist" not in said
    assert "pottery" in said


def test_a_spoken_request_to_forget_a_debt_takes_the_sentence_that_told_it(
    memory: Memory,
) -> None:
    """ "Забудь про мой долг Саше" names the debt by another word than the message did
    ("занял"): the debt is a fact, and the sentence stating it goes; the rest stays."""
    memory.remember(
        "Я занял у коллеги Саши 50 тысяч на ремонт машины, стыдно ужасно. Зато играю на "
        "бас-гитаре в группе «Пятый подъезд»!",
        speaker="ana",
        time=day(0),
    )
    memory.sleep(now=day(1))
    assert any(f.attribute == "debt" for f in memory.facts())
    memory.remember(
        "Забудь, пожалуйста, про мой долг Саше, не хочу, чтобы это где-то хранилось.",
        speaker="ana",
        time=day(2),
    )
    said = everything_said(memory)
    assert "50 тысяч" not in said and "занял" not in said
    assert "бас-гитаре" in said
    assert not any(f.attribute == "debt" for f in memory.facts(include_past=True))
