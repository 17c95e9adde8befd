"""The assistant's control flow with a scripted model (what goes into the prompt, when
the turn is written, tools, the extractive answer without a model). The real embedded
model is exercised in tests/llm/test_chat_restart.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kuzya.assistant import Assistant
from kuzya.errors import InvalidInput, LLMError
from kuzya.extractive import extractive_reply
from kuzya.llm.base import ChatMessage, Completion, ToolCall
from kuzya.memory import Memory
from kuzya.model import Kind, Recall, RecallItem
from kuzya.prompt_notes import asks_about_replies
from kuzya.recall import query
from kuzya.testing import ScriptedLLM
from kuzya.tools import Toolbox

NOW = datetime(2026, 3, 5, 9, tzinfo=UTC)
# `ahead_words=0` below: the notes next to the message, as a prompt has them for what the
# read-ahead notes lack (tests/test_prompt_notes.py has the read-ahead)


def test_prompt_holds_memory_and_the_turn_is_remembered_after(memory: Memory) -> None:
    memory.remember(
        "I have a dog named Rex.",
        speaker="user",
        conversation="s1",
        time=datetime(2026, 3, 1, tzinfo=UTC),
    )
    llm = ScriptedLLM(["Your dog is Rex."])
    assistant = Assistant(memory, llm, ahead_words=0)
    reply = assistant.reply(
        "What is my dog's name?", conversation="s2", participants=["user"], now=NOW
    )
    assert reply.text == "Your dog is Rex."
    system, message = llm.calls[0].messages[0], llm.calls[0].messages[-1]
    assert system.role == "system" and "Rex" not in system.content
    assert message.role == "user" and "dog named Rex" in message.content
    assert message.content.endswith(
        "\n\nuser: What is my dog's name?\n(Answer in one short sentence.)"
    )
    assistant.close()
    turns = memory.get_all(conversation="s2")
    assert [(t.speaker, t.metadata.get("role")) for t in turns] == [
        ("user", None),
        ("assistant", "assistant"),
    ]


def test_working_memory_is_sent_as_turns(memory: Memory) -> None:
    llm = ScriptedLLM(["Nice to meet you, Ana.", "You said your name is Ana."])
    assistant = Assistant(memory, llm)
    assistant.reply("My name is Ana.", conversation="c", participants=["ana"], now=NOW)
    assistant.reply("What did I just say?", conversation="c", participants=["ana"], now=NOW)
    roles = [m.role for m in llm.calls[1].messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert "My name is Ana." in llm.calls[1].messages[1].content
    assistant.close()


def test_small_model_takes_the_answer_field(memory: Memory) -> None:
    llm = ScriptedLLM(['{"answer": "Rex."}', "not json"])
    assistant = Assistant(memory, llm, small_model=True)
    first = assistant.reply("Dog?", conversation="c", participants=["ana"], now=NOW)
    second = assistant.reply("Dog?", conversation="c", participants=["ana"], now=NOW)
    assert (first.text, second.text) == ("Rex.", "not json")  # a non-compliant model's text
    assert llm.calls[0].json_schema is not None
    assistant.close()


def test_a_small_models_answer_ends_at_the_line_break_it_escapes(memory: Memory) -> None:
    raw = '{"answer": "Lisbon }\n\nThe user asked about a podcast and"}'
    escaped = r'{"answer": "Oslo.\n\nThe user asked about a podcast and"}'
    llm = ScriptedLLM([raw, escaped, raw])
    small = Assistant(memory, llm, small_model=True)
    assert small.reply("City?", conversation="c", participants=["ana"]).text == "Lisbon"
    assert small.reply("City?", conversation="c", participants=["ana"]).text == "Oslo."
    small.close()
    capable = Assistant(memory, llm)
    assert "podcast" in capable.reply("City?", conversation="d", participants=["ana"]).text
    assert llm.calls[2].stop == ()  # a capable model writes the lines it needs
    capable.close()


def test_small_model_reads_the_facts_and_their_sources_next_to_the_message(
    memory: Memory,
) -> None:
    memory.remember("I have a dog named Rex.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC))
    memory.sleep(now=NOW)
    llm = ScriptedLLM(['{"answer": "Rex."}'])
    assistant = Assistant(memory, llm, small_model=True)
    assistant.reply("What is my dog's name?", conversation="c", participants=["ana"], now=NOW)
    assistant.close()
    message = llm.calls[0].messages[-1].content
    assert "has a dog Rex" in message and "I have a dog named Rex." in message
    assert message.endswith(
        "\n\nWhat is my dog's name?\n(Answer in one short sentence.)"
    )  # alone with ana, unnamed
    assert llm.calls[0].max_tokens == 48


def test_a_reply_cut_at_the_token_limit_ends_at_its_last_sentence(memory: Memory) -> None:
    cut = Completion(
        '{"answer": "You work at Google. You also said the comm', finish_reason="length"
    )
    plain = Completion("Lisbon, I think. Or was it Por", finish_reason="length")
    llm = ScriptedLLM([cut, plain, Completion("No full stop here", finish_reason="length")])
    small = Assistant(memory, llm, small_model=True)
    assert small.reply("Work?", conversation="c", participants=["ana"]).text == (
        "You work at Google."
    )
    small.close()
    capable = Assistant(memory, llm)
    assert capable.reply("City?", conversation="c", participants=["ana"]).text == "Lisbon, I think."
    assert capable.reply("Hm?", conversation="c", participants=["ana"]).text == "No full stop here"
    capable.close()


def test_profile_is_in_the_system_prompt_and_the_notes_hold_only_the_rest(
    memory: Memory,
) -> None:
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    memory.remember("My dog is Rex.", speaker="ana", time=t0)
    memory.remember("I am allergic to peanuts.", speaker="ana", time=t0)
    memory.remember("Rex chewed my left shoe again.", speaker="ana", time=t0)
    memory.sleep(now=NOW)
    llm = ScriptedLLM(["Rex."])
    assistant = Assistant(memory, llm, ahead_words=0)
    reply = assistant.reply("What did my dog Rex chew?", conversation="c", participants=["ana"])
    assistant.close()
    system, message = llm.calls[0].messages[0].content, llm.calls[0].messages[-1].content
    assert "What you know about ana:" in system
    assert system.index("allergic to peanuts") < system.index("has a dog Rex")  # health first
    notes = assistant.notes(reply.recall, assistant.profile("ana", ["ana"]))
    assert all(i.kind.value == "episode" for i in notes.items)
    assert "has a dog Rex" not in message  # given once, in the system prompt
    assert "My dog is Rex." not in message  # a sentence the fact states is not repeated
    assert "chewed my left shoe" in message  # a message the profile does not hold
    assert message.endswith("\n\nana: What did my dog Rex chew?\n(Answer in one short sentence.)")


def test_a_fact_never_hides_the_rest_of_its_message(memory: Memory) -> None:
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    memory.remember(
        "I live in Lisbon. I always order ramen with an extra egg at Koya.", speaker="ana", time=t0
    )
    memory.sleep(now=NOW)
    assert any(f.value == "Lisbon" for f in memory.profile("ana").facts)
    llm = ScriptedLLM(["Ramen."])
    assistant = Assistant(memory, llm, ahead_words=0)
    assistant.reply("What do I usually order at Koya?", conversation="c", participants=["ana"])
    assistant.close()
    message = llm.calls[0].messages[-1].content
    assert "I always order ramen with an extra egg at Koya." in message
    assert "I live in Lisbon." not in message  # the profile in the system prompt says it


def test_the_assistants_own_past_replies_are_marked_as_its_words(memory: Memory) -> None:
    llm = ScriptedLLM(
        ["Porto is a lovely city by the Douro river.", "You moved to Porto.", "The Douro."]
    )
    assistant = Assistant(memory, llm, ahead_words=0)
    assistant.reply("We moved to Porto!", conversation="s1", participants=["ana"], now=NOW)
    assistant.reply("Where did we move?", conversation="s2", participants=["ana"], now=NOW)
    assistant.reply(
        "Which river did you mention?", conversation="s3", participants=["ana"], now=NOW
    )
    assistant.close()
    message = llm.calls[1].messages[-1].content
    assert "ana: We moved to Porto!" in message  # what ana said is a note
    assert message.endswith(
        "\n\nana: Where did we move?\n(Answer in one short sentence.)"
    )  # named, as turns are
    asked = llm.calls[2].messages[-1].content
    assert "] assistant (you): Porto is a lovely city by the Douro river." in asked
    assert "- assistant: " not in asked
    assert not any(f.value == "Douro" for f in memory.profile("ana").facts)


def test_people_come_before_the_assistants_replies(memory: Memory) -> None:
    def item(number: int, speaker: str, score: float) -> RecallItem:
        return RecallItem(
            number, Kind.EPISODE, f"line {number}", score, speaker, "c", NOW, NOW, (number,),
            assistant=speaker == "assistant",
        )  # fmt: skip

    recall = Recall(
        "what did you say?", (item(1, "assistant", 0.9), item(2, "ana", 0.8),
        item(3, "assistant", 0.7), item(4, "assistant", 0.65), item(5, "bo", 0.6)), NOW
    )  # fmt: skip
    notes = Assistant(memory, None, max_items=4).notes(recall, ())
    assert [(i.id, i.speaker) for i in notes.items] == [
        (2, "ana"), (5, "bo"), (1, "assistant (you)"), (3, "assistant (you)")
    ]  # fmt: skip
    assert [i.id for i in Assistant(memory, None, max_items=2).notes(recall, ()).items] == [2, 5]
    about_ana = replace(recall, query="where does ana live?")  # not about what it said
    assert [i.id for i in Assistant(memory, None).notes(about_ana, ()).items] == [2, 5]


@pytest.mark.parametrize(
    ("question", "about"),
    [
        ("Which river did you mention?", True),
        ("What was your advice?", True),
        ("Что ты мне советовал?", True),
        ("Что вы сказали про Сочи?", True),
        ("Do you remember my dog?", False),
        ("Did you know where I live?", False),
        ("What does my wife do?", False),
        ("Ты помнишь, где я живу?", False),
    ],
)
def test_own_replies_are_notes_only_for_questions_about_them(question: str, about: bool) -> None:
    assert asks_about_replies(question) is about


def test_notes_leave_out_turns_that_state_nothing_and_keep_weaker_evidence(
    memory: Memory,
) -> None:
    """An earlier "where do I run?" matches the question best and answers nothing; the
    answer stays in the notes however far below the best score it ranks."""
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    for number, text in enumerate(
        ["Where did I go running last time?", "lol", "Ran 8 km along the river this morning."]
    ):
        memory.remember(text, speaker="dima", conversation=f"c{number}", time=t0)
    llm = ScriptedLLM(["Along the river."])
    assistant = Assistant(memory, llm, ahead_words=0)
    assistant.reply("Where did I go running last time?", conversation="q", participants=["dima"],
                    now=NOW)  # fmt: skip
    assistant.close()
    message = llm.calls[0].messages[-1].content
    assert "Ran 8 km along the river" in message
    assert "- dima: Where did I go running" not in message and "- dima: lol" not in message


def test_the_message_comes_with_today_and_the_dates_it_means(memory: Memory) -> None:
    memory.remember("Lunch was a falafel wrap today.", speaker="nora",
                    time=datetime(2026, 3, 4, 13, tzinfo=UTC))  # fmt: skip
    llm = ScriptedLLM(["A falafel wrap."])
    assistant = Assistant(memory, llm, ahead_words=0)
    assistant.reply("What did I have for lunch yesterday?", conversation="q",
                    participants=["nora"], now=NOW)  # fmt: skip
    assistant.close()
    message = llm.calls[0].messages[-1].content
    assert "today is Thursday, 05 March 2026" in message
    assert "- [Wed 04 Mar 2026] nora: Lunch was a falafel wrap today." in message
    assert message.endswith(
        "nora: What did I have for lunch yesterday? (yesterday = 4 March 2026)\n"
        "(Answer in one short sentence.)"
    )


def test_without_notes_the_message_goes_alone(memory: Memory) -> None:
    memory.remember("My name is Bob.", speaker="bob", time=datetime(2026, 3, 1, tzinfo=UTC))
    memory.sleep(now=NOW)
    llm = ScriptedLLM(["Bob."])
    assistant = Assistant(memory, llm, ahead_words=0)
    assistant.reply("What is my name?", conversation="c", participants=["bob"], now=NOW)
    assistant.close()
    assert "bob's name is Bob" in llm.calls[0].messages[0].content
    assert llm.calls[0].messages[-1].content == "bob: What is my name?"


def test_prepare_reads_the_prefix_the_next_reply_starts_with(memory: Memory) -> None:
    memory.remember(
        "I am allergic to peanuts.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC)
    )
    memory.sleep(now=NOW)
    llm = ScriptedLLM(["Hello, Ana.", "Carrots."])
    assistant = Assistant(memory, llm)
    assistant.prepare("c", ["ana"], now=NOW)
    assistant.reply("Hi!", conversation="c", participants=["ana"], now=NOW)
    assistant.prepare("c", ["ana"], now=NOW)  # after the turn is written, in the background
    assistant.reply("Suggest a snack.", conversation="c", participants=["ana"], now=NOW)
    assistant.close()
    assert len(llm.prefilled) == 2
    for prefilled, call in zip(llm.prefilled, llm.calls, strict=True):
        assert call.messages[: len(prefilled)] == prefilled
        assert "allergic to peanuts" in prefilled[0].content
    assert [m.content for m in llm.prefilled[1][1:]] == ["ana: Hi!", "Hello, Ana."]


def test_prepare_without_a_model_does_nothing(memory: Memory) -> None:
    assistant = Assistant(memory, None)
    assistant.prepare("c", ["ana"])
    assistant.close()
    with pytest.raises(InvalidInput):
        assistant.prepare("c", [])


def test_flush_waits_for_every_job_and_raises_the_first_error(memory: Memory) -> None:
    class Failing(ScriptedLLM):
        def prefill(self, messages: Sequence[ChatMessage]) -> None:
            raise LLMError("the model is gone")

    llm = Failing(["Hi."])
    assistant = Assistant(memory, llm)
    assistant.reply("Hello.", conversation="c", participants=["ana"], now=NOW)
    assistant.prepare("c", ["ana"])
    with pytest.raises(LLMError, match="the model is gone"):
        assistant.flush()
    assert len(memory.get_all(conversation="c")) == 2  # the write before it still landed
    assistant.flush()  # the error is raised once
    assistant.close()


def test_tool_calls_run_against_memory(memory: Memory) -> None:
    memory.remember("My locker code is 4512.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC))
    call = ToolCall("call_1", "search_memory", {"query": "locker code"})
    llm = ScriptedLLM([Completion("", (call,), finish_reason="tool_calls"), "It is 4512."])
    assistant = Assistant(memory, llm, tools=Toolbox())
    reply = assistant.reply(
        "What's my locker code?", conversation="c", participants=["ana"], now=NOW
    )
    assert reply.text == "It is 4512." and reply.tool_calls == (call,)
    tool_message = llm.calls[1].messages[-1]
    assert tool_message.role == "tool" and tool_message.tool_call_id == "call_1"
    assert "4512" in tool_message.content
    assert llm.calls[0].tools and llm.calls[1].tools  # offered until the last step
    assistant.close()


def test_forget_request_is_applied_before_recall(memory: Memory) -> None:
    memory.remember("Tom lent me his car.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC))
    llm = ScriptedLLM(["Done."])
    assistant = Assistant(memory, llm)
    assistant.memory.forget("ana", about="Tom")
    reply = assistant.reply("Who lent me a car?", conversation="c", participants=["ana"], now=NOW)
    assert "Tom" not in reply.recall.as_prompt()
    assistant.close()


def test_forget_that_in_a_reply_forgets_the_previous_message_only(memory: Memory) -> None:
    when = datetime(2026, 3, 1, tzinfo=UTC)
    memory.remember("I love pizza.", speaker="ana", conversation="c", time=when)
    memory.remember("My address is 12 Oak Street.", speaker="ana", conversation="c", time=when)
    memory.sleep(now=when)
    assistant = Assistant(memory, ScriptedLLM(["Done."]))
    assistant.reply("Please forget that.", conversation="c", participants=["ana"], now=NOW)
    assistant.close()
    assert [f.attribute for f in memory.facts(subject="ana")] == ["likes"]
    assert "Oak" not in " ".join(e.text for e in memory.get_all())


def test_model_failure_is_raised_and_nothing_is_half_written(memory: Memory) -> None:
    assistant = Assistant(memory, ScriptedLLM([]))
    with pytest.raises(LLMError):
        assistant.reply("Hello?", conversation="c", participants=["ana"], now=NOW)
    assistant.close()
    assert memory.get_all(conversation="c") == []


def test_without_a_model_the_reply_is_extractive(memory: Memory) -> None:
    memory.remember(
        "I have a dog named Rex.", speaker="user", time=datetime(2026, 3, 1, tzinfo=UTC)
    )
    assistant = Assistant(memory, None)
    reply = assistant.reply("What is my dog's name?", conversation="c", participants=["user"])
    assert "Rex" in reply.text and reply.text.startswith("From memory:")
    assistant.close()
    empty = memory.recall("zebra migration", participants=["nobody"])
    assert extractive_reply("Where do zebras go?", empty) == (
        "I don't remember anything about that.",
        [],
    )
    assert extractive_reply("Куда мигрируют зебры?", empty)[0] == "Я ничего об этом не помню."


def test_without_a_model_statements_are_noted_and_small_talk_recites_nothing(
    memory: Memory,
) -> None:
    memory.remember("I have a dog named Rex.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC))
    assistant = Assistant(memory, None)
    said = {}
    for text in ["My sister Ola lives in Gdańsk.", "Моя сестра живёт в Гданьске.",
                 "hi", "lol", "thanks", "👍", "спасибо", "Привет!"]:  # fmt: skip
        said[text] = assistant.reply(text, conversation="c", participants=["ana"], now=NOW)
    assistant.close()
    assert said["My sister Ola lives in Gdańsk."].text == "Noted."
    assert said["Моя сестра живёт в Гданьске."].text == "Запомнил."
    assert [said[t].text for t in ("hi", "lol", "thanks", "👍", "спасибо", "Привет!")] == [
        "Hi!", "", "", "", "", "Привет!"
    ]  # fmt: skip
    replies = memory.get_all(conversation="c")
    mine = sorted(e.text for e in replies if e.speaker == "assistant")
    assert mine == sorted(["Hi!", "Noted.", "Привет!", "Запомнил."])  # empty ones not stored


def test_without_a_model_questions_quote_statements_not_its_replies_or_questions(
    memory: Memory,
) -> None:
    assistant = Assistant(memory, None)
    for day, text in enumerate(["My dog Rex loves the beach.", "Where does my dog like to go?",
                                "thanks", "Where does my dog like to go?"], start=1):  # fmt: skip
        now = datetime(2026, 3, day, tzinfo=UTC)
        assistant.reply(text, conversation=f"c{day}", participants=["ana"], now=now)
    reply = assistant.reply(
        "Where does Rex like to go?", conversation="c9", participants=["ana"], now=NOW
    )
    assistant.close()
    mine = [e for e in memory.get_all(participants=["ana"]) if e.speaker == "assistant"]
    assert any(e.text.startswith("From memory:") for e in mine)  # old replies are there
    assert reply.text == "From memory: ana: My dog Rex loves the beach."
    assert not any(i.assistant for i in reply.recall if i.line() in reply.text)


def test_privacy_holds_in_the_prompt(memory: Memory) -> None:
    memory.remember(
        "My salary is 9000 a month.",
        speaker="ana",
        participants=["ana"],
        time=datetime(2026, 3, 1, tzinfo=UTC),
    )
    llm = ScriptedLLM(["I can't say."])
    assistant = Assistant(memory, llm)
    assistant.reply(
        "What is Ana's salary?", conversation="g", participants=["ana", "bo"], speaker="bo", now=NOW
    )
    assert all("9000" not in m.content for m in llm.calls[0].messages)
    assistant.close()


def test_with_several_present_the_speaker_must_be_named_and_present(memory: Memory) -> None:
    memory.remember("I live in Lisbon.", speaker="ana", participants=["ana", "bo"], time=NOW)
    memory.remember("I live in Porto.", speaker="bo", participants=["ana", "bo"], time=NOW)
    memory.sleep(now=NOW)
    assistant = Assistant(memory, None)
    with pytest.raises(InvalidInput, match="speaker"):
        assistant.reply("Forget everything about me.", conversation="g", participants=["ana", "bo"])
    with pytest.raises(InvalidInput, match="not among"):
        assistant.reply("Hi", conversation="g", participants=["ana", "bo"], speaker="cy")
    assistant.reply(
        "Forget everything about me.", conversation="g", participants=["ana", "bo"], speaker="bo"
    )
    assistant.close()
    assert [f.subject for f in memory.facts(participants=["ana", "bo"])] == ["ana"]


def test_notes_put_the_best_match_right_before_the_question() -> None:
    def item(number: int, kind: Kind = Kind.EPISODE) -> RecallItem:
        said = datetime(2026, 3, number, tzinfo=UTC)
        return RecallItem(number, kind, f"line {number}", 1 / number, "ana", "c", said, said, ())

    recall = Recall("q", (item(3), item(1), item(2), item(4, Kind.FACT)), NOW)
    assert recall.as_notes().splitlines() == [
        "Known facts:",
        "- ana: line 4",
        "- [Mon 02 Mar 2026] ana: line 2",
        "- [Sun 01 Mar 2026] ana: line 1",
        "- [Tue 03 Mar 2026] ana: line 3",
    ]
    assert Recall("q", (), NOW).as_notes() == "(no relevant memories)"
    assert recall.as_notes(in_time_order=True).splitlines()[2:] == [
        "- [Sun 01 Mar 2026] ana: line 1",
        "- [Mon 02 Mar 2026] ana: line 2",
        "- [Tue 03 Mar 2026] ana: line 3",
    ]


def test_a_note_that_points_back_follows_the_message_before_it() -> None:
    """ "He's a sound engineer" read apart names no one: it goes right after the message
    said just before it (when that one is a note too), however the two were ranked."""

    def said(position: int, text: str, score: float, conversation: str = "c") -> RecallItem:
        at = datetime(2026, 11, 2, 10, position, tzinfo=UTC)
        return RecallItem(position, Kind.EPISODE, text, score, "gleb", conversation, at, at, (),
                          position=position)  # fmt: skip

    friend = said(1, "My best friend Vadik lives in Piter.", 0.9)
    job = said(2, "He's a sound engineer at a theatre.", 2.0)
    dog = said(3, "His husky is called Grom.", 0.5)
    trip = said(7, "Decided: going to Vadik's for New Year.", 1.0)
    other = said(2, "They said it would rain.", 3.0, conversation="d")  # nothing before it
    notes = Recall("q", (other, job, trip, friend, dog), NOW).as_notes().splitlines()
    assert [line.split(": ", 1)[1] for line in notes] == [
        "My best friend Vadik lives in Piter.",
        "He's a sound engineer at a theatre.",
        "His husky is called Grom.",
        "Decided: going to Vadik's for New Year.",
        "They said it would rain.",
    ]


@pytest.mark.parametrize(
    ("question", "now"),
    [
        ("What do I do for work now?", True),
        ("How do I take my coffee these days?", True),
        ("Где я сейчас живу?", True),
        ("Кем ты теперь работаешь?", True),
        # the latest of many is ranked first instead: the newest note may be off topic
        ("When did I last go to the gym?", False),
        ("What do I do for work?", False),
        ("Where did I live before Seattle?", False),
        ("Кем я работаю?", False),
        ("I know this place, it's nowhere near", False),  # "now" inside a word
    ],
)
def test_a_question_about_now_is_told_apart(question: str, now: bool) -> None:
    assert query.asks_now(question) is now


def test_a_question_about_now_reads_its_notes_in_time_order(memory: Memory) -> None:
    """What was said last answers it, so the newest note sits right before it (a small
    model reads what is nearest best): "black, always" in January, then "I've
    switched to oat flat whites" in March, though "black" matches the words better."""
    memory.remember("Lately I've switched to oat flat whites.", speaker="mia",
                    time=datetime(2026, 3, 10, tzinfo=UTC))  # fmt: skip
    memory.remember("I drink my coffee black, always.", speaker="mia",
                    time=datetime(2026, 1, 5, tzinfo=UTC))  # fmt: skip

    def notes(question: str) -> str:
        llm = ScriptedLLM(["Oat flat whites."])
        assistant = Assistant(memory, llm, ahead_words=0)
        assistant.reply(question, conversation=question, participants=["mia"], now=NOW)
        assistant.close()
        return llm.calls[0].messages[-1].content

    by_match, by_time = notes("How do I take my coffee?"), notes("How do I take my coffee now?")
    assert by_match.index("oat flat whites") < by_match.index("black, always")
    assert by_time.index("black, always") < by_time.index("oat flat whites")


def test_a_russian_question_gets_its_notes_in_russian(memory: Memory) -> None:
    memory.remember("В мае сдаю IELTS, очень нервничаю.", speaker="vika",
                    time=datetime(2026, 3, 3, 22, tzinfo=UTC))  # fmt: skip
    llm = ScriptedLLM(["IELTS."])
    assistant = Assistant(memory, llm, ahead_words=0)
    assistant.reply("Какой экзамен я сдаю?", conversation="q", participants=["vika"], now=NOW)
    assistant.close()
    message = llm.calls[0].messages[-1].content
    assert message.startswith("Заметки из памяти (спрашивает vika; сегодня четверг, 5 марта 2026):")
    assert "- [вт, 3 марта 2026] vika: В мае сдаю IELTS, очень нервничаю. (В мае = май 2026)" in (
        message
    )
    assert message.endswith("vika: Какой экзамен я сдаю?\n(Ответь одним коротким предложением.)")


def test_without_a_model_the_last_turns_of_the_conversation_are_recalled(memory: Memory) -> None:
    assistant = Assistant(memory, None)
    assistant.reply("Remember: buy milk and batteries", conversation="c", participants=["ana"])
    reply = assistant.reply("What did I ask to buy?", conversation="c", participants=["ana"])
    assistant.close()
    assert "batteries" in reply.text
