"""parse_json on messy model output, and structured() retrying a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from kuzya.errors import InvalidInput, LLMError
from kuzya.llm.base import LLM, ChatMessage, Completion
from kuzya.llm.structured import parse_json, structured
from kuzya.testing import ScriptedLLM

# -- parse_json ------------------------------------------------------------------------------

PARSED: list[tuple[str, str, Any]] = [
    ("plain", '{"a": 1}', {"a": 1}),
    ("plain-list", "[1, 2, 3]", [1, 2, 3]),
    ("prose-before", 'Here is the JSON:\n{"name": "Ann"}', {"name": "Ann"}),
    ("prose-around", 'Sure! {"ok": true} Let me know if you need more.', {"ok": True}),
    ("fence-json", '```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
    ("fence-bare", '```\n{"a": 1}\n```', {"a": 1}),
    ("fence-with-prose", 'Result:\n```json\n{"a": 1}\n```\nHope it helps {x}', {"a": 1}),
    ("fence-unclosed", '```json\n{"a": 1}\n', {"a": 1}),
    ("fence-not-json-first", '```python\nprint(1)\n```\nThen {"a": 1}', {"a": 1}),
    ("trailing-comma-object", '{"a": 1, "b": 2,}', {"a": 1, "b": 2}),
    ("trailing-comma-array", '{"xs": [1, 2, 3,],}', {"xs": [1, 2, 3]}),
    ("single-quotes", "{'name': 'Bob', 'age': 5}", {"name": "Bob", "age": 5}),
    (
        "python-literals",
        "{'ok': True, 'no': False, 'none': None}",
        {"ok": True, "no": False, "none": None},
    ),
    ("apostrophe-in-single-quotes", "{'text': 'it's raining'}", {"text": "it's raining"}),
    ("inner-double-quotes", '{"text": "he said "hi" to me"}', {"text": 'he said "hi" to me'}),
    ("line-comment", '{\n  "a": 1, // the count\n  "b": 2\n}', {"a": 1, "b": 2}),
    ("block-comment", '{"a": /* why */ 1}', {"a": 1}),
    ("hash-comment", '{\n "a": 1  # python style\n}', {"a": 1}),
    ("truncated-string", '{"fact": "Anna lives in Par', {"fact": "Anna lives in Par"}),
    ("truncated-array", '{"facts": ["one", "two"', {"facts": ["one", "two"]}),
    ("truncated-nested", '{"a": {"b": [1, {"c": "d', {"a": {"b": [1, {"c": "d"}]}}),
    ("truncated-dangling-key", '{"a": 1, "b', {"a": 1}),
    ("truncated-dangling-colon", '{"a": 1, "b":', {"a": 1}),
    ("truncated-partial-literal", '{"a": 1, "b": tr', {"a": 1}),
    ("truncated-partial-exponent", '{"a": 1, "b": 2e', {"a": 1}),
    ("truncated-mid-escape", '{"a": "x\\u00', {"a": "x"}),
    ("truncated-list-of-objects", '[{"x": 1}, {"x": 2}, {"x"', [{"x": 1}, {"x": 2}, {}]),
    ("several-objects", '{"a": 1}\n{"b": 2}', {"a": 1}),
    ("bom", '\ufeff{"a": 1}', {"a": 1}),
    ("smart-quoted-keys", "{“name”: “Анна”, “age”: 30}", {"name": "Анна", "age": 30}),
    ("smart-quotes-inside-string", '{"q": "он сказал “привет”"}', {"q": "он сказал “привет”"}),
    ("russian", '{"факт": "Маша любит чай", "n": 2}', {"факт": "Маша любит чай", "n": 2}),
    ("escaped-unicode", '{"e": "\\u00e9\\ud83d\\ude00\\n"}', {"e": "é😀\n"}),
    ("nested", '{"a": {"b": {"c": [[1], [2, [3]]]}}}', {"a": {"b": {"c": [[1], [2, [3]]]}}}),
    ("unquoted-keys", "{name: 'x', count: 2}", {"name": "x", "count": 2}),
    ("missing-comma", '{"a": 1\n "b": 2}', {"a": 1, "b": 2}),
    ("numbers", "[-1, 2.5, 1e3, +4, .5]", [-1, 2.5, 1000.0, 4, 0.5]),
    (
        "braces-inside-string",
        '{"t": "use {braces} and [brackets]"}',
        {"t": "use {braces} and [brackets]"},
    ),
    ("bracketed-prose-first", 'The set {x} and [as requested]: {"a": 1}', {"a": 1}),
    ("empty-object", "Here: {}", {}),
    ("scalar", "42", 42),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in PARSED], ids=[c[0] for c in PARSED])
def test_parse_json_recovers_the_value(text: str, expected: Any) -> None:
    assert parse_json(text) == expected


UNUSABLE = [
    ("empty", ""),
    ("blank", "  \n\t "),
    ("pure-prose", "I could not find any facts in this conversation."),
    ("prose-with-braces", "Use {curly} braces, or [square] ones."),
    ("lone-opening-brace", "Sure! Here it is: {"),
    ("only-dangling-key", '{"a'),
    ("bare-words", "{this is not json}"),
    ("single-quoted-scalar", "'just a string'"),
]


@pytest.mark.parametrize("text", [c[1] for c in UNUSABLE], ids=[c[0] for c in UNUSABLE])
def test_parse_json_raises_llm_error_when_nothing_is_usable(text: str) -> None:
    with pytest.raises(LLMError) as raised:
        parse_json(text)
    assert not isinstance(raised.value, ValueError)


def test_parse_json_survives_deep_nesting() -> None:
    assert isinstance(parse_json("[" * 5000), list)


# -- structured ------------------------------------------------------------------------------


class Person(BaseModel):
    name: str
    age: int


class Facts(BaseModel):
    facts: list[str]
    note: str = ""


class Pair(BaseModel):
    left: list[int]
    right: list[int]


ASK = [ChatMessage("system", "Extract."), ChatMessage("user", "Anna is 30.")]


def test_valid_first_answer_needs_one_call() -> None:
    llm = ScriptedLLM(['{"name": "Anna", "age": 30}'])
    assert structured(llm, ASK, Person) == Person(name="Anna", age=30)
    assert len(llm.calls) == 1
    call = llm.calls[0]
    assert call.messages == tuple(ASK)
    assert call.json_schema == Person.model_json_schema()
    assert llm.meter.calls == 1


def test_junk_then_valid_retries_with_the_error() -> None:
    llm = ScriptedLLM(["Sorry, I cannot do that.", 'Here: {"name": "Anna", "age": 30}'])
    assert structured(llm, ASK, Person, max_tokens=99) == Person(name="Anna", age=30)
    assert len(llm.calls) == 2
    retry = llm.calls[1].messages
    assert retry[: len(ASK)] == tuple(ASK)
    assert retry[-2] == ChatMessage("assistant", "Sorry, I cannot do that.")
    assert retry[-1].role == "user"
    assert "not JSON" in retry[-1].content
    assert "only one JSON value" in retry[-1].content
    assert '"age"' in retry[-1].content
    assert llm.calls[1].max_tokens == 99


def test_wrong_types_are_retried_with_the_validation_error() -> None:
    llm = ScriptedLLM(['{"name": "Anna", "age": "thirty"}', '{"name": "Anna", "age": 30}'])
    assert structured(llm, ASK, Person).age == 30
    feedback = llm.calls[1].messages[-1].content
    assert "age" in feedback and "integer" in feedback


def test_missing_field_is_retried() -> None:
    llm = ScriptedLLM(['{"name": "Anna"}', '{"name": "Anna", "age": 30}'])
    assert structured(llm, ASK, Person) == Person(name="Anna", age=30)
    assert "age: Field required" in llm.calls[1].messages[-1].content


def test_always_junk_raises_after_retries_plus_one_calls() -> None:
    llm = ScriptedLLM(["nope", "still nope", '{"name": 1}', "never asked"])
    with pytest.raises(LLMError, match="no valid Person in 3 attempts"):
        structured(llm, ASK, Person, retries=2)
    assert len(llm.calls) == 3
    assert llm.pending == 1


def test_zero_retries_means_one_call() -> None:
    llm = ScriptedLLM(["junk", '{"name": "A", "age": 1}'])
    with pytest.raises(LLMError):
        structured(llm, ASK, Person, retries=0)
    assert len(llm.calls) == 1


def test_only_the_latest_bad_answer_stays_in_the_conversation() -> None:
    llm = ScriptedLLM(["first junk", "second junk", '{"name": "A", "age": 1}'])
    structured(llm, ASK, Person)
    third = llm.calls[2].messages
    assert len(third) == len(ASK) + 2
    assert third[-2].content == "second junk"


def test_list_answer_is_wrapped_into_the_one_list_field() -> None:
    llm = ScriptedLLM(['```json\n["Anna is 30", "Anna likes tea"]\n```'])
    assert structured(llm, ASK, Facts) == Facts(facts=["Anna is 30", "Anna likes tea"])
    assert len(llm.calls) == 1


def test_list_answer_is_not_wrapped_when_two_list_fields() -> None:
    llm = ScriptedLLM(["[1, 2]", '{"left": [1], "right": [2]}'])
    assert structured(llm, ASK, Pair) == Pair(left=[1], right=[2])
    assert len(llm.calls) == 2


def test_list_wrapping_honours_aliases() -> None:
    class Aliased(BaseModel):
        items: list[int] = Field(alias="Items")

    llm = ScriptedLLM(["[1, 2, 3]"])
    assert structured(llm, ASK, Aliased).items == [1, 2, 3]


def test_never_returns_a_partly_valid_object() -> None:
    class Strict(BaseModel):
        facts: list[int]

    answers = ['{"facts": [1, 2, "three"]}', '[1, "two"]', '{"facts": [1, {"x": 2}]}']
    llm = ScriptedLLM(answers)
    with pytest.raises(LLMError, match="facts"):
        structured(llm, ASK, Strict, retries=2)
    assert len(llm.calls) == 3


def test_truncated_answer_mentions_the_token_limit() -> None:
    cut = Completion(text='{"name": "Anna", "ag', finish_reason="length")
    llm = ScriptedLLM([cut, '{"name": "Anna", "age": 30}'])
    assert structured(llm, ASK, Person).age == 30
    assert "token limit" in llm.calls[1].messages[-1].content


def test_backend_failure_propagates_as_llm_error() -> None:
    llm = ScriptedLLM([])
    with pytest.raises(LLMError, match="ran out of answers"):
        structured(llm, ASK, Person)


def test_negative_retries_are_invalid_input() -> None:
    with pytest.raises(InvalidInput):
        structured(ScriptedLLM(["{}"]), ASK, Person, retries=-1)


def test_scripted_llm_satisfies_the_protocol() -> None:
    llm: LLM = ScriptedLLM(["hello there"])
    completion = llm.chat([ChatMessage("user", "say hello")])
    assert (llm.name, completion.text) == ("scripted", "hello there")
    assert llm.meter.snapshot() == {"calls": 1, "prompt_tokens": 2, "completion_tokens": 2}
