"""Read-ahead notes: what goes into the prompt's prefix before a question comes, on both
stores; and the assistant's prompt with them (scripted model: the layout is what is
tested here; the answers of the real models are measured by `kuzya eval scenarios`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kuzya.assistant import Assistant
from kuzya.memory import Memory
from kuzya.prompt_notes import as_prompt, read_ahead
from kuzya.testing import ScriptedLLM

DAY = datetime(2026, 5, 4, 10, tzinfo=UTC)
NOW = DAY + timedelta(days=3)


def _said(memory: Memory, text: str, minutes: int, **extra: object) -> None:
    options = {"speaker": "ana", "conversation": "c1", "participants": ["ana"], **extra}
    memory.remember(text, time=DAY + timedelta(minutes=minutes), **options)  # type: ignore[arg-type]


def test_notes_are_the_newest_within_the_budget_oldest_first(hash_memory: Memory) -> None:
    for minute in range(6):
        _said(hash_memory, f"Reminder number {minute} is about the garden fence.", minute)
    known = read_ahead(hash_memory, ["ana"], NOW, words=30)
    texts = [item.text for item in known]
    assert texts == [f"Reminder number {m} is about the garden fence." for m in (3, 4, 5)]
    assert sum(item.words for item in known) <= 30
    everything = read_ahead(hash_memory, ["ana"], NOW, words=1_000)
    assert len(everything) == 6
    assert read_ahead(hash_memory, ["ana"], NOW, words=0) == ()


def test_notes_leave_out_replies_small_talk_and_what_does_not_fit(hash_memory: Memory) -> None:
    _said(hash_memory, "My sister Vera lives in Porto.", 0)
    _said(hash_memory, "lol 👍", 1)
    _said(hash_memory, "Where did I park yesterday?", 2)
    _said(hash_memory, "Vera lives in Porto, noted.", 3, speaker="kuzya",
          metadata={"role": "assistant"})  # fmt: skip
    _said(hash_memory, " ".join(["My grandfather told stories."] * 101), 4)  # over 400
    _said(hash_memory, "I adopted a cat named Miso.", 5)
    _said(hash_memory, "The plumber comes on Friday.", 60 * 24 * 5)  # after NOW
    known = read_ahead(hash_memory, ["ana"], NOW, words=400)
    assert [i.text for i in known] == [
        "My sister Vera lives in Porto.",
        "I adopted a cat named Miso.",
    ]
    miso = known[1].id
    left = read_ahead(hash_memory, ["ana"], NOW, words=400, leave_out={miso})
    assert [i.id for i in left] == [known[0].id]


def test_a_group_never_reads_ahead_what_was_said_without_it(hash_memory: Memory) -> None:
    _said(hash_memory, "My salary is 9000 euros, keep it between us.", 0)
    _said(hash_memory, "Team lunch on Thursday at the Thai place.", 1, conversation="team",
          participants=["ana", "ben"])  # fmt: skip
    _said(hash_memory, "Ben's passport number is X1234567.", 2, speaker="ben",
          conversation="b", participants=["ben"])  # fmt: skip
    group = [i.text for i in read_ahead(hash_memory, ["ana", "ben"], NOW, words=400)]
    assert group == ["Team lunch on Thursday at the Thai place."]
    alone = [i.text for i in read_ahead(hash_memory, ["ana"], NOW, words=400)]
    assert alone == ["My salary is 9000 euros, keep it between us.", group[0]]


def test_notes_are_listed_with_their_day_and_today_in_their_language(
    hash_memory: Memory,
) -> None:
    _said(hash_memory, "Я переехала в Казань в прошлом месяце.", 0)
    listed = as_prompt(read_ahead(hash_memory, ["ana"], NOW, words=400), NOW)
    assert listed.splitlines()[0] == "Заметки из твоей памяти, сначала старые:"
    assert "мая 2026] ana: Я переехала в Казань" in listed
    assert listed.splitlines()[-1].startswith("Сегодня ")


def test_the_prompt_holds_each_memory_once_the_prefix_or_the_notes(memory: Memory) -> None:
    _said(memory, "My sister Vera lives in Porto.", 0)
    story = " ".join(f"In {1950 + i} grandpa fixed boats by the river." for i in range(12))
    _said(memory, f"{story} His passport expired in March 1999. {story}", 1)
    llm = ScriptedLLM(["Porto.", "March 1999."])
    assistant = Assistant(memory, llm, ahead_words=100)  # the story is longer
    assistant.reply("Where does Vera live?", conversation="c2", participants=["ana"], now=NOW)
    assistant.reply(
        "When did grandpa's passport expire?", conversation="c3", participants=["ana"], now=NOW
    )
    assistant.close()
    system, asked = llm.calls[0].messages[0].content, llm.calls[0].messages[-1].content
    assert "ana: My sister Vera lives in Porto." in system
    assert "lives in Porto" not in asked and "\n\nana: Where does Vera live?\n" in asked
    long_asked = llm.calls[1].messages[-1].content
    assert "passport expired in March 1999" in long_asked  # the passage, next to the question
    assert "passport" not in llm.calls[1].messages[0].content


def test_a_new_message_extends_the_prefix_at_its_end(memory: Memory) -> None:
    _said(memory, "My sister Vera lives in Porto.", 0)
    llm = ScriptedLLM(["Porto.", "Miso."])
    assistant = Assistant(memory, llm)
    assistant.prepare("c2", ["ana"], now=NOW)
    assistant.reply("Where does Vera live?", conversation="c2", participants=["ana"], now=NOW)
    _said(memory, "I adopted a cat named Miso.", 10, conversation="c9")
    assistant.prepare("c2", ["ana"], now=NOW)
    assistant.reply("What is my cat called?", conversation="c2", participants=["ana"], now=NOW)
    assistant.close()
    first, second = (p[0].content for p in llm.prefilled)
    notes_then = first[: first.index("Today is")]
    assert second.startswith(notes_then)  # a prompt cache rereads only what follows
    assert "I adopted a cat named Miso." in second[len(notes_then) :]
    for prefilled, call in zip(llm.prefilled, llm.calls, strict=True):
        assert call.messages[: len(prefilled)] == prefilled


def test_a_message_too_long_for_what_is_left_is_passed_over(hash_memory: Memory) -> None:
    _said(hash_memory, "My sister Vera lives in Porto.", 0)
    _said(hash_memory, " ".join(["Grandpa fixed boats by the river."] * 8), 1)  # 48 words
    _said(hash_memory, "I adopted a cat named Miso.", 2)
    texts = [i.text for i in read_ahead(hash_memory, ["ana"], NOW, words=30)]
    assert texts == ["My sister Vera lives in Porto.", "I adopted a cat named Miso."]
    assert len(read_ahead(hash_memory, ["ana"], NOW, words=80)) == 3


def test_the_default_fits_the_models_window(memory: Memory) -> None:
    class Windowed(ScriptedLLM):
        context_tokens = 2048

    assert Assistant(memory, Windowed([])).ahead_words == 2048 // 5
    assert Assistant(memory, ScriptedLLM([])).ahead_words == 800
    assert Assistant(memory, ScriptedLLM([]), small_model=True).ahead_words == 0
