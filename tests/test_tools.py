"""The tool loop's control flow with a scripted model: arguments checked by name, errors
told to the model, the step limit, and tools that act waiting for a yes. (Against real
servers: tests/service/test_tool_calling.py.)"""

from __future__ import annotations

from datetime import UTC, datetime

from kuzya.assistant import Assistant
from kuzya.llm.base import Completion, ToolCall
from kuzya.memory import Memory
from kuzya.testing import ScriptedLLM
from kuzya.tools import Toolbox, confirms

NOW = datetime(2026, 3, 5, 9, tzinfo=UTC)


def _calls(*calls: ToolCall) -> Completion:
    return Completion("", calls, finish_reason="tool_calls")


def _tool_results(llm: ScriptedLLM, call: int) -> list[str]:
    return [m.content for m in llm.calls[call].messages if m.role == "tool"]


def test_arguments_are_checked_by_name_and_a_bad_call_is_told_why(hash_memory: Memory) -> None:
    hash_memory.remember("My locker code is 4512.", speaker="ana", time="2026-03-01T09:00:00")
    llm = ScriptedLLM([
        _calls(ToolCall("a", "search_memory", {"q": "locker"}),
               ToolCall("b", "search_memory", {"query": "locker code", "limit": 500}),
               ToolCall("c", "send_email", {"to": "boss"})),
        _calls(ToolCall("d", "search_memory", {"limit": 3, "query": "locker code"})),
        "It is 4512.",
    ])  # fmt: skip
    assistant = Assistant(hash_memory, llm, tools=Toolbox())
    reply = assistant.reply("What's my locker code?", conversation="c", participants=["ana"])
    assistant.close()
    assert reply.text == "It is 4512."
    missing, too_many, unknown = _tool_results(llm, 1)
    assert missing.startswith("error: bad arguments for search_memory") and "query" in missing
    assert "limit" in too_many and "20" in too_many
    assert unknown.startswith("error: there is no tool 'send_email'") and "search_memory" in unknown
    assert "4512" in _tool_results(llm, 2)[-1]  # arguments in any order, by name
    assert [c.id for c in reply.tool_calls] == ["a", "b", "c", "d"]


def test_the_step_limit_makes_the_last_call_answer(hash_memory: Memory) -> None:
    search = ToolCall("s", "search_memory", {"query": "anything"})
    llm = ScriptedLLM([_calls(search), _calls(search), "I could not find it."])
    assistant = Assistant(hash_memory, llm, tools=Toolbox(), max_steps=3)
    reply = assistant.reply("Where are my keys?", conversation="c", participants=["ana"])
    assistant.close()
    assert [bool(call.tools) for call in llm.calls] == [True, True, False]
    assert reply.text == "I could not find it." and llm.pending == 0


def test_a_tool_that_acts_waits_for_a_yes(hash_memory: Memory) -> None:
    hash_memory.remember(
        "My new address is 12 Elm Street.", speaker="ana", time="2026-03-01T09:00:00"
    )
    forget = ToolCall("f", "forget_memory", {"about": "my address"})
    llm = ScriptedLLM(
        [_calls(forget), "I can forget your address.", _calls(forget), "Say yes.", "Sure."]
    )
    assistant = Assistant(hash_memory, llm, tools=Toolbox())
    first = assistant.reply("Please get rid of my address", conversation="c", participants=["ana"])
    assert first.confirm == "Shall I forget what you said about 'my address'? (yes / no)"
    assert first.text.endswith(first.confirm)
    assert "needs the user's confirmation" in _tool_results(llm, 1)[0]
    assistant.flush()
    assert any("Elm Street" in e.text for e in hash_memory.get_all(user_id="ana"))
    done = assistant.reply("yes", conversation="c", participants=["ana"])
    assert done.text.startswith("Done: forgot") and done.tool_calls == (forget,)
    assistant.flush()
    assert not any("Elm Street" in e.text for e in hash_memory.get_all(user_id="ana"))
    # asked again, then refused: nothing more is forgotten and the question lapses
    assistant.reply("Please get rid of my address", conversation="c", participants=["ana"])
    refused = assistant.reply("no, keep it", conversation="c", participants=["ana"])
    assert refused.text == "Sure." and refused.confirm is None
    assistant.close()


def test_a_yes_confirms_only_its_own_askers_call(hash_memory: Memory) -> None:
    forget = ToolCall("f", "forget_memory", {"about": "Tom"})
    llm = ScriptedLLM([_calls(forget), "Shall I?", "Hello Ben."])
    assistant = Assistant(hash_memory, llm, tools=Toolbox())
    assistant.reply("drop Tom", conversation="c", participants=["ana", "ben"], speaker="ana")
    other = assistant.reply("yes", conversation="c", participants=["ana", "ben"], speaker="ben")
    assert other.text == "Hello Ben." and not other.tool_calls
    assistant.close()


def test_confirms_reads_a_short_yes_in_either_language() -> None:
    yes = ["yes", "Yes, go ahead", "ok", "Да", "да, давай", "Подтверждаю"]
    no = ["no", "don't do it", "yes... no wait", "нет", "не надо", "what do you mean?", ""]
    assert all(confirms(text) for text in yes)
    assert not any(confirms(text) for text in no)
