"""The llama.cpp adapter on the real embedded models (SmolLM2 always, Qwen when asked).

These fail, not skip, when llama-cpp-python or a model is missing: the error says what to
install. Deselect with `-m "not llm"` / `-m "not qwen"`.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from kuzya.errors import InvalidInput, LLMError
from kuzya.llm.base import LLM, ChatMessage, Completion, Tool, ToolCall, Usage
from kuzya.llm.llama import LlamaCpp, _tool_completion, _turns
from kuzya.llm.models import default_cache_dir

SEARCH = Tool(
    name="search_memory",
    description="Search the user's long-term memory for facts about them.",
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
)


class Person(BaseModel):
    name: str
    age: int


@pytest.fixture(scope="module")
def smollm2() -> LlamaCpp:
    model = LlamaCpp("smollm2", threads=2)
    model.load()
    return model


def _assert_valid(completion: Completion) -> None:
    if completion.tool_calls:
        (call,) = completion.tool_calls
        assert completion.finish_reason == "tool_calls"
        assert call.name == "search_memory"
        assert call.id.startswith("call_")
        assert isinstance(call.arguments, dict)
    else:
        assert completion.finish_reason in ("stop", "length")
        assert completion.text.strip()


@pytest.mark.llm
def test_is_an_llm_named_after_its_model(smollm2: LlamaCpp) -> None:
    model: LLM = smollm2
    assert model.name == "llama:smollm2"


@pytest.mark.llm
def test_answers_from_a_clean_context(smollm2: LlamaCpp) -> None:
    completion = smollm2.chat(
        [
            ChatMessage("system", "You are a helpful assistant."),
            ChatMessage("user", "Notes: the user's dog is named Rex.\n\nWhat is my dog's name?"),
        ],
        max_tokens=32,
    )
    assert "Rex" in completion.text
    assert completion.finish_reason in ("stop", "length")
    assert completion.usage.prompt_tokens > 0 and completion.usage.completion_tokens > 0


@pytest.mark.llm
def test_json_schema_constrains_the_output(smollm2: LlamaCpp) -> None:
    completion = smollm2.chat(
        [ChatMessage("user", "Give the person as JSON with name and age: Alice is 31 years old.")],
        json_schema=Person.model_json_schema(),
        max_tokens=64,
    )
    person = Person.model_validate(json.loads(completion.text))
    assert person.age >= 0


@pytest.mark.llm
def test_tools_give_a_call_or_an_answer(smollm2: LlamaCpp) -> None:
    completion = smollm2.chat(
        [ChatMessage("user", "What did I tell you about my sister's wedding last month?")],
        tools=[SEARCH],
        max_tokens=96,
    )
    _assert_valid(completion)


@pytest.mark.llm
def test_a_forced_choice_calls_the_tool(smollm2: LlamaCpp) -> None:
    completion = smollm2.chat(
        [
            ChatMessage(
                "system",
                "You know nothing about the user. To answer any question about the user "
                "you must call search_memory.",
            ),
            ChatMessage("user", "Where does my brother live?"),
        ],
        tools=[SEARCH],
        max_tokens=96,
    )
    _assert_valid(completion)
    assert completion.tool_calls, completion.text


@pytest.mark.llm
def test_meter_counts_calls_and_tokens() -> None:
    model = LlamaCpp("smollm2", threads=2)
    assert model.meter.snapshot() == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    usages = [model.chat([ChatMessage("user", "Say hi.")], max_tokens=8).usage for _ in range(2)]
    assert model.meter.snapshot() == {
        "calls": 2,
        "prompt_tokens": sum(u.prompt_tokens for u in usages),
        "completion_tokens": sum(u.completion_tokens for u in usages),
    }
    assert all(u.completion_tokens <= 8 for u in usages)


@pytest.mark.llm
def test_max_tokens_reports_length(smollm2: LlamaCpp) -> None:
    completion = smollm2.chat([ChatMessage("user", "Write a long story.")], max_tokens=4)
    assert completion.finish_reason == "length"
    assert completion.usage.completion_tokens == 4


@pytest.mark.llm
@pytest.mark.parametrize("streamed", [False, True])
def test_a_stop_string_ends_the_text_before_it(smollm2: LlamaCpp, streamed: bool) -> None:
    ask = [ChatMessage("user", "List five fruits, one per line.")]
    whole = smollm2.chat(ask, max_tokens=40)
    assert "\n" in whole.text.strip()  # without a stop the list runs on
    pieces: list[str] = []
    first = smollm2.chat(
        ask, max_tokens=40, stop=["\n"], on_text=pieces.append if streamed else None
    )
    assert first.text and "\n" not in first.text and first.finish_reason == "stop"
    assert whole.text.startswith(first.text)
    assert "".join(pieces) == (first.text if streamed else "")
    assert first.usage.completion_tokens < whole.usage.completion_tokens


def test_more_than_four_or_empty_stop_strings_are_refused(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"never loaded")
    llm = LlamaCpp(str(gguf))
    for stop in (["a", "b", "c", "d", "e"], [""], "\n"):
        with pytest.raises(InvalidInput, match="stop takes up to four"):
            llm.chat([ChatMessage("user", "Hi")], stop=stop)


@pytest.mark.llm
def test_concurrent_chats_are_serialised(smollm2: LlamaCpp) -> None:
    results: list[str] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            results.append(smollm2.chat([ChatMessage("user", "Say hi.")], max_tokens=8).text)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 3
    assert len(set(results)) == 1  # greedy and serialised: the same answer each time


@pytest.mark.llm
def test_every_call_runs_on_one_llama_thread(
    smollm2: LlamaCpp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # OpenMP gives each calling thread its own team of workers: with two teams on two
    # cores every token took 2.6 times as long, so all calls go through one thread
    engine = smollm2._loaded()
    callers: list[int] = []
    ran_on: list[int] = []
    real = engine.create_chat_completion

    def recorded(**options: Any) -> Any:
        ran_on.append(threading.get_ident())
        return real(**options)

    monkeypatch.setattr(engine, "create_chat_completion", recorded)

    def ask() -> None:
        callers.append(threading.get_ident())
        smollm2.chat([ChatMessage("user", "Say hi.")], max_tokens=2)

    ask()
    smollm2.prefill([ChatMessage("system", "Be brief.")])
    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ran_on) == 4 and len(set(ran_on)) == 1
    assert ran_on[0] not in callers and len(set(callers)) == 3


@pytest.mark.llm
def test_calling_the_model_from_its_own_stream_fails_clearly(smollm2: LlamaCpp) -> None:
    def again(_: str) -> None:
        smollm2.chat([ChatMessage("user", "Hi")], max_tokens=1)

    with pytest.raises(LLMError, match="while it writes"):
        smollm2.chat([ChatMessage("user", "Say hi.")], max_tokens=4, on_text=again)
    assert smollm2.chat([ChatMessage("user", "Say hi.")], max_tokens=2).text  # still usable


@pytest.mark.llm
def test_prefill_reads_the_prefix_and_changes_no_answer(smollm2: LlamaCpp) -> None:
    prefix = [ChatMessage("system", "Facts: the user's cat is named Tom and is grey.")]
    question = [*prefix, ChatMessage("user", "What colour is my cat?")]
    cold = smollm2.chat(question, max_tokens=16)
    smollm2.chat([ChatMessage("user", "Something else entirely.")], max_tokens=4)
    calls = smollm2.meter.calls
    smollm2.prefill(prefix)
    assert smollm2.meter.calls == calls + 1  # reading a prompt is spending, and is metered
    read = list(smollm2._loaded().input_ids)  # type: ignore[attr-defined]
    warm = smollm2.chat(question, max_tokens=16)
    assert warm.text == cold.text  # greedy: the cache changes the time, not the answer
    prompt = smollm2._loaded().tokenize(  # type: ignore[attr-defined]
        b"<|im_start|>system\nFacts: the user's cat", add_bos=False, special=True
    )
    assert read[: len(prompt)] == prompt


@pytest.mark.llm
def test_counts_tokens_as_the_model_reads_them(smollm2: LlamaCpp) -> None:
    assert smollm2.context_tokens == 4096
    text = "Ana adopted a kitten named Pickle."
    ids = smollm2._loaded().tokenize(text.encode(), add_bos=False)  # type: ignore[attr-defined]
    assert smollm2.count_tokens(text) == len(ids) > 0
    assert smollm2.count_tokens("") == 0


def test_threads_come_from_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kuzya.config import settings

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("KUZYA_LLM_THREADS", "1")
    model = settings(llm=str(gguf)).load_llm(str(gguf))
    assert isinstance(model, LlamaCpp) and model._threads == 1
    monkeypatch.delenv("KUZYA_LLM_THREADS")
    model = settings(llm=str(gguf)).load_llm(str(gguf))
    assert isinstance(model, LlamaCpp) and model._threads == (os.cpu_count() or 1)


@pytest.mark.llm
def test_prefill_of_a_prompt_too_long_is_an_llm_error() -> None:
    model = LlamaCpp("smollm2", n_ctx=100, threads=2)
    with pytest.raises(LLMError, match="failed to read a prompt"):
        model.prefill([ChatMessage("user", "word " * 300)])


@pytest.mark.llm
def test_a_context_overflow_is_an_llm_error() -> None:
    model = LlamaCpp("smollm2", n_ctx=100, threads=2)  # padded to 256, as llama.cpp does
    assert model.chat([ChatMessage("user", "word " * 150)], max_tokens=8).usage.prompt_tokens > 100
    with pytest.raises(LLMError, match="raise n_ctx=256"):
        model.chat([ChatMessage("user", "word " * 300)], max_tokens=8)


def test_a_bad_model_name_is_an_llm_error() -> None:
    with pytest.raises(LLMError, match=r"smollm2.*qwen-1\.5b.*\.gguf"):
        LlamaCpp("no-such-model")


def test_without_llama_cpp_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import fails as if not installed
    model = LlamaCpp(str(gguf))
    assert model.name == f"llama:{gguf}"
    with pytest.raises(LLMError, match=r"pip install llama-cpp-python==0\.3\.36"):
        model.chat([ChatMessage("user", "hi")])


@pytest.mark.llm
def test_a_file_that_is_not_a_model_is_an_llm_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file")
    with pytest.raises(LLMError, match="cannot load"):
        LlamaCpp(str(bad)).load()


def test_max_tokens_below_one_is_refused(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(InvalidInput, match="max_tokens"):
        LlamaCpp(str(gguf)).chat([ChatMessage("user", "hi")], max_tokens=0)


def test_tool_turns_are_rendered_for_any_template() -> None:
    call = ToolCall(id="call_7", name="search_memory", arguments={"query": "brother"})
    turns = _turns(
        [
            ChatMessage("user", "Where does my brother live?"),
            ChatMessage("assistant", "", tool_calls=(call,)),
            ChatMessage("tool", "Leo lives in Oslo.", tool_call_id="call_7"),
        ]
    )
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    said: dict[str, Any] = json.loads(turns[1]["content"])
    assert said == {"tool": "search_memory", "arguments": {"query": "brother"}}
    assert "search_memory" in turns[2]["content"] and "Leo lives in Oslo." in turns[2]["content"]


def _choose(text: str, finish: str = "stop") -> Completion:
    return _tool_completion(text, finish, Usage(), lambda: "call_1", max_tokens=9)


def test_a_tool_choice_becomes_a_call_or_an_answer() -> None:
    call = _choose('{"tool": "search_memory", "arguments": {"query": "Leo"}}')
    assert call.tool_calls == (ToolCall("call_1", "search_memory", {"query": "Leo"}),)
    assert (call.text, call.finish_reason) == ("", "tool_calls")
    answer = _choose('{"answer": "Oslo"}')
    assert (answer.text, answer.tool_calls, answer.finish_reason) == ("Oslo", (), "stop")
    assert _choose('{"answer": {"city": "Oslo"}}').text == '{"city": "Oslo"}'


def test_an_answer_cut_short_keeps_its_text() -> None:
    cut = _choose('{"answer": "Leo lives in Os\\u00', finish="length")
    assert (cut.text, cut.finish_reason) == ("Leo lives in Os", "length")


def test_a_tool_call_cut_short_is_an_llm_error() -> None:
    with pytest.raises(LLMError, match="max_tokens=9"):
        _choose('{"tool": "search_memory", "arguments": {"query": "Le', finish="length")


@pytest.mark.llm
@pytest.mark.qwen
@pytest.mark.slow
def test_qwen_takes_the_latest_fact() -> None:
    cache = Path(os.environ.get("KUZYA_MODELS_DIR") or default_cache_dir())
    model = LlamaCpp("qwen-1.5b", threads=2, cache_dir=cache)
    completion = model.chat(
        [
            ChatMessage(
                "system",
                "Answer from these memories; a later one replaces an earlier one.\n"
                "2026-03-01 user: My name is Alice.\n"
                "2026-03-10 user: I changed my name to Bob.",
            ),
            ChatMessage("user", "What is my name?"),
        ],
        max_tokens=32,
    )
    assert "Bob" in completion.text
