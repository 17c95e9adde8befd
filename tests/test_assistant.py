"""The assistant's control flow with a scripted model (what goes into the prompt, when
the turn is written, tools, the extractive answer without a model). The real embedded
model is exercised in tests/llm/test_chat_restart.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kuzya.assistant import Assistant, extractive_reply
from kuzya.errors import LLMError
from kuzya.llm.base import Completion, ToolCall
from kuzya.memory import Memory
from kuzya.testing import ScriptedLLM

NOW = datetime(2026, 3, 5, 9, tzinfo=UTC)


def test_prompt_holds_memory_and_the_turn_is_remembered_after(memory: Memory) -> None:
    memory.remember(
        "I have a dog named Rex.",
        speaker="user",
        conversation="s1",
        time=datetime(2026, 3, 1, tzinfo=UTC),
    )
    llm = ScriptedLLM(["Your dog is Rex."])
    assistant = Assistant(memory, llm)
    reply = assistant.reply(
        "What is my dog's name?", conversation="s2", participants=["user"], now=NOW
    )
    assert reply.text == "Your dog is Rex."
    system, message = llm.calls[0].messages[0], llm.calls[0].messages[-1]
    assert system.role == "system" and "Rex" not in system.content
    assert message.role == "user" and "dog named Rex" in message.content
    assert message.content.endswith("\n\nWhat is my dog's name?")
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


def test_json_reply_takes_the_answer_field(memory: Memory) -> None:
    llm = ScriptedLLM(['{"answer": "Rex."}', "not json"])
    assistant = Assistant(memory, llm, json_reply=True)
    first = assistant.reply("Dog?", conversation="c", participants=["ana"], now=NOW)
    second = assistant.reply("Dog?", conversation="c", participants=["ana"], now=NOW)
    assert (first.text, second.text) == ("Rex.", "not json")  # a non-compliant model's text
    assert llm.calls[0].json_schema is not None
    assistant.close()


def test_notes_put_recalled_facts_first_and_cut_weak_messages(memory: Memory) -> None:
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    memory.remember("I live in Lisbon and I have a dog named Rex.", speaker="ana", time=t0)
    memory.remember("I am allergic to peanuts.", speaker="ana", time=t0)
    memory.remember("The weather in spring is mild.", speaker="ana", time=t0)
    memory.sleep(now=NOW)
    assistant = Assistant(memory, None, relevance=0.9)
    recall = memory.recall("What is my dog's name?", participants=["ana"], speaker="ana", now=NOW)
    notes = assistant.notes(recall, ["ana"], "ana")
    facts = [i.text for i in notes.items if i.kind.value == "fact"]
    assert facts[0].startswith("ana has a dog Rex")
    assert any("allergic" in f for f in facts)  # the profile follows, health first
    episodes = [i for i in notes.items if i.kind.value == "episode"]
    assert len(episodes) < len([i for i in recall.items if i.kind.value == "episode"])
    assistant.close()


def test_profile_is_in_the_prompt_after_sleep(memory: Memory) -> None:
    memory.remember(
        "I am allergic to peanuts.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC)
    )
    memory.sleep(now=NOW)
    llm = ScriptedLLM(["ok"])
    assistant = Assistant(memory, llm)
    assistant.reply("Suggest a snack.", conversation="c", participants=["ana"], now=NOW)
    assert "- ana is allergic to peanuts" in llm.calls[0].messages[-1].content
    assistant.close()


def test_tool_calls_run_against_memory(memory: Memory) -> None:
    memory.remember("My locker code is 4512.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC))
    call = ToolCall("call_1", "search_memory", {"query": "locker code"})
    llm = ScriptedLLM([Completion("", (call,), finish_reason="tool_calls"), "It is 4512."])
    assistant = Assistant(memory, llm, use_tools=True)
    reply = assistant.reply(
        "What's my locker code?", conversation="c", participants=["ana"], now=NOW
    )
    assert reply.text == "It is 4512." and reply.tool_calls == (call,)
    tool_message = llm.calls[1].messages[-1]
    assert tool_message.role == "tool" and tool_message.tool_call_id == "call_1"
    assert "4512" in tool_message.content
    assert llm.calls[0].tools and not llm.calls[1].tools
    assistant.close()


def test_forget_request_is_applied_before_recall(memory: Memory) -> None:
    memory.remember("Tom lent me his car.", speaker="ana", time=datetime(2026, 3, 1, tzinfo=UTC))
    llm = ScriptedLLM(["Done."])
    assistant = Assistant(memory, llm)
    assistant.memory.forget("ana", about="Tom")
    reply = assistant.reply("Who lent me a car?", conversation="c", participants=["ana"], now=NOW)
    assert "Tom" not in reply.recall.as_prompt()
    assistant.close()


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
    assert extractive_reply(empty) == "I don't remember anything about that."


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
