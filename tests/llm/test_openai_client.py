"""OpenAICompatible against a real HTTP server on loopback that plays an OpenAI endpoint."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest
from tests.llm.scripted_server import FakeServer, Reply, ok, streamed, wire_call

from kuzya.errors import InvalidInput, LLMError
from kuzya.llm import openai as openai_module
from kuzya.llm.base import ChatMessage, Tool, ToolCall
from kuzya.llm.openai import OpenAICompatible


def client(server: FakeServer, **options: Any) -> OpenAICompatible:
    options = {"timeout": 2.0, "retries": 2, "backoff": 0.01, **options}
    return OpenAICompatible("test-model", server.base_url, **options)


USER = [ChatMessage("user", "Hi")]
WEATHER = Tool(
    "weather",
    "Current weather in a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


# -- plain chat and request shape -----------------------------------------------------------


def test_plain_chat_returns_text_and_meters_usage(server: FakeServer) -> None:
    server.script(ok("Привет!", usage={"prompt_tokens": 12, "completion_tokens": 4}), ok("again"))
    with client(server) as llm:
        first = llm.chat(USER)
        second = llm.chat(USER)
    assert (first.text, first.finish_reason, first.tool_calls) == ("Привет!", "stop", ())
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (12, 4)
    assert second.text == "again"
    assert llm.name == "openai:test-model"
    assert llm.meter.snapshot() == {"calls": 2, "prompt_tokens": 22, "completion_tokens": 7}


def test_request_body_and_path(server: FakeServer) -> None:
    server.script(ok())
    llm = client(server, api_key=None)
    messages = [ChatMessage("system", "Be brief."), ChatMessage("user", "Hi")]
    llm.chat(messages, max_tokens=77, temperature=0.3)
    seen = server.requests[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.body == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
        "max_tokens": 77,
        "temperature": 0.3,
    }
    llm.close()


def test_stop_strings_go_in_the_request_only_when_given(server: FakeServer) -> None:
    server.script(ok(), ok())
    with client(server) as llm:
        llm.chat(USER, stop=["\n", "User:"])
        llm.chat(USER)
    assert server.requests[0].body["stop"] == ["\n", "User:"]
    assert "stop" not in server.requests[1].body


def test_trailing_slash_in_base_url_is_stripped(server: FakeServer) -> None:
    server.script(ok())
    llm = OpenAICompatible("m", server.base_url + "/", retries=0)
    llm.chat(USER)
    assert server.requests[0].path == "/v1/chat/completions"
    llm.close()


@pytest.mark.parametrize(
    ("json_mode", "expected"),
    [
        (
            "schema",
            {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": SCHEMA, "strict": False},
            },
        ),
        ("object", {"type": "json_object"}),
        ("none", None),
    ],
)
def test_response_format_per_json_mode(
    server: FakeServer, json_mode: str, expected: dict[str, Any] | None
) -> None:
    server.script(ok('{"n": 1}'))
    with client(server, json_mode=json_mode) as llm:
        llm.chat(USER, json_schema=SCHEMA)
    body = server.requests[0].body
    assert body.get("response_format") == expected
    system = body["messages"][0]
    assert system["role"] == "system" and "JSON" in system["content"]
    assert json.dumps(SCHEMA) in system["content"]
    assert body["messages"][1:] == [{"role": "user", "content": "Hi"}]


def test_json_instruction_joins_an_existing_system_message(server: FakeServer) -> None:
    server.script(ok('{"n": 1}'))
    with client(server) as llm:
        llm.chat([ChatMessage("system", "You extract."), *USER], json_schema=SCHEMA)
    messages = server.requests[0].body["messages"]
    assert len(messages) == 2
    assert messages[0]["content"].startswith("You extract.\n\nAnswer with only one JSON value")


def test_no_response_format_without_a_schema(server: FakeServer) -> None:
    server.script(ok())
    with client(server) as llm:
        llm.chat(USER)
    assert "response_format" not in server.requests[0].body
    assert "tools" not in server.requests[0].body


@pytest.mark.parametrize(("key", "header"), [("sk-test", "Bearer sk-test"), (None, None)])
def test_authorization_header_only_with_a_key(
    server: FakeServer, key: str | None, header: str | None
) -> None:
    server.script(ok())
    with client(server, api_key=key) as llm:
        llm.chat(USER)
    headers = {name.lower(): value for name, value in server.requests[0].headers.items()}
    assert headers.get("authorization") == header


# -- tools -----------------------------------------------------------------------------------


def test_tools_sent_and_tool_calls_parsed(server: FakeServer) -> None:
    calls = [
        wire_call("call_1", "weather", '{"city": "Москва"}'),
        wire_call("call_2", "weather", '{"city": "Paris"}'),
    ]
    server.script(ok("", tool_calls=calls, finish="tool_calls"))
    with client(server) as llm:
        completion = llm.chat(USER, tools=[WEATHER])
    assert server.requests[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "Current weather in a city",
                "parameters": WEATHER.parameters,
            },
        }
    ]
    assert completion.finish_reason == "tool_calls"
    assert completion.tool_calls == (
        ToolCall("call_1", "weather", {"city": "Москва"}),
        ToolCall("call_2", "weather", {"city": "Paris"}),
    )


def test_tool_call_round_trip_wire_format(server: FakeServer) -> None:
    server.script(
        ok(None, tool_calls=[wire_call("c7", "weather", '{"city":"Oslo"}')], finish="tool_calls"),
        ok("It is 3°C in Oslo."),
    )
    with client(server) as llm:
        asked = llm.chat(USER, tools=[WEATHER])
        assert asked.text == ""
        follow_up = [
            *USER,
            ChatMessage("assistant", asked.text, tool_calls=asked.tool_calls),
            ChatMessage("tool", '{"temp": 3}', tool_call_id=asked.tool_calls[0].id),
        ]
        answer = llm.chat(follow_up, tools=[WEATHER])
    assert answer.text == "It is 3°C in Oslo."
    sent = server.requests[1].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c7",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    }
    assert json.loads(sent[1]["tool_calls"][0]["function"]["arguments"]) == {"city": "Oslo"}
    assert sent[2] == {"role": "tool", "content": '{"temp": 3}', "tool_call_id": "c7"}


def test_dict_arguments_and_missing_id_are_accepted(server: FakeServer) -> None:
    raw = {"type": "function", "function": {"name": "weather", "arguments": {"city": "Rome"}}}
    server.script(ok("", tool_calls=[raw]))
    with client(server) as llm:
        completion = llm.chat(USER, tools=[WEATHER])
    assert completion.tool_calls == (ToolCall("call_0", "weather", {"city": "Rome"}),)


def test_unparsable_tool_arguments_are_an_llm_error_after_retries(server: FakeServer) -> None:
    bad = ok("", tool_calls=[wire_call("c1", "weather", '{"city": "Oslo"')])
    server.script(bad, bad, bad)
    with client(server, retries=2) as llm, pytest.raises(LLMError, match="unparsable arguments"):
        llm.chat(USER, tools=[WEATHER])
    assert len(server.requests) == 3
    assert llm.meter.calls == 0


def test_bad_tool_arguments_then_good_answer_succeeds(server: FakeServer) -> None:
    server.script(
        ok("", tool_calls=[wire_call("c1", "weather", "not json")]),
        ok("", tool_calls=[wire_call("c1", "weather", '{"city": "Oslo"}')]),
    )
    with client(server) as llm:
        completion = llm.chat(USER, tools=[WEATHER])
    assert completion.tool_calls[0].arguments == {"city": "Oslo"}
    assert llm.meter.calls == 1


# -- timeouts, retries and errors -------------------------------------------------------------


def test_timeouts_are_retried_then_fail(server: FakeServer) -> None:
    server.script(ok(delay=1.0), ok(delay=1.0))
    started = time.monotonic()
    with client(server, timeout=0.2, retries=1) as llm, pytest.raises(LLMError) as raised:
        llm.chat(USER)
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 2
    assert "no answer within 0.2s" in str(raised.value)
    assert "after 2 attempts" in str(raised.value)
    assert llm.meter.calls == 0


def test_timeout_then_success(server: FakeServer) -> None:
    server.script(ok("late", delay=1.0), ok("on time"))
    with client(server, timeout=0.2, retries=1) as llm:
        assert llm.chat(USER).text == "on time"
    assert len(server.requests) == 2
    assert llm.meter.calls == 1


def test_server_error_mid_conversation_is_retried(server: FakeServer) -> None:
    boom = Reply({"error": {"message": "CUDA out of memory"}}, status=500)
    server.script(
        ok("first", usage={"prompt_tokens": 5, "completion_tokens": 1}),
        boom,
        ok("second", usage={"prompt_tokens": 9, "completion_tokens": 2}),
    )
    with client(server) as llm:
        assert llm.chat(USER).text == "first"
        conversation = [*USER, ChatMessage("assistant", "first"), ChatMessage("user", "More")]
        assert llm.chat(conversation).text == "second"
    assert len(server.requests) == 3
    assert server.requests[1].body == server.requests[2].body
    assert llm.meter.snapshot() == {"calls": 2, "prompt_tokens": 14, "completion_tokens": 3}


@pytest.mark.parametrize("status", [500, 502, 503])
def test_persistent_5xx_gives_llm_error_with_the_server_message(
    server: FakeServer, status: int
) -> None:
    boom = Reply({"error": {"message": "model is loading"}}, status=status)
    server.script(boom, boom)
    with client(server, retries=1) as llm, pytest.raises(LLMError) as raised:
        llm.chat(USER)
    assert f"HTTP {status}" in str(raised.value)
    assert "model is loading" in str(raised.value)
    assert len(server.requests) == 2


def test_429_respects_retry_after(server: FakeServer) -> None:
    slow_down = Reply({"error": {"message": "rate limited"}}, status=429)
    slow_down.headers["Retry-After"] = "1"
    server.script(slow_down, ok("done"))
    started = time.monotonic()
    with client(server, backoff=0.01) as llm:
        assert llm.chat(USER).text == "done"
    assert time.monotonic() - started >= 0.9
    assert len(server.requests) == 2


def test_retry_after_is_capped(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_module, "MAX_RETRY_AFTER", 0.05)
    slow_down = Reply({"error": "slow down"}, status=429, headers={"Retry-After": "3600"})
    server.script(slow_down, ok("done"))
    started = time.monotonic()
    with client(server) as llm:
        assert llm.chat(USER).text == "done"
    assert time.monotonic() - started < 2


@pytest.mark.parametrize(
    ("status", "message", "hint"),
    [
        (401, "Incorrect API key provided", "API key"),
        (403, "Forbidden for this project", "API key"),
        (404, "model 'test-model' not found", "model name"),
        (400, "max_tokens is too large", "base URL"),
    ],
)
def test_client_errors_fail_at_once_with_a_helpful_message(
    server: FakeServer, status: int, message: str, hint: str
) -> None:
    server.script(Reply({"error": {"message": message}}, status=status), ok("never"))
    with client(server, retries=3) as llm, pytest.raises(LLMError) as raised:
        llm.chat(USER)
    text = str(raised.value)
    assert str(status) in text and message in text and hint in text
    assert len(server.requests) == 1


def test_404_with_a_plain_text_body(server: FakeServer) -> None:
    server.script(Reply(status=404, raw=b"404 page not found"))
    with client(server) as llm, pytest.raises(LLMError, match="404 page not found"):
        llm.chat(USER)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(raw=b"<html>oops</html>"), "not JSON"),
        (Reply({"object": "chat.completion"}), "no choices"),
        (Reply({"choices": []}), "no choices"),
        (Reply({"choices": [{"message": "text"}]}), "not an object"),
        (Reply([1, 2, 3]), "no choices"),
    ],
    ids=["html", "missing-choices", "empty-choices", "message-not-object", "list-body"],
)
def test_malformed_bodies_are_llm_errors(server: FakeServer, reply: Reply, problem: str) -> None:
    server.script(reply, reply)
    with client(server, retries=1) as llm, pytest.raises(LLMError, match=problem):
        llm.chat(USER)
    assert len(server.requests) == 2
    assert llm.meter.calls == 0


def test_missing_usage_counts_as_zero_tokens(server: FakeServer) -> None:
    reply = ok("no usage")
    del reply.body["usage"]
    server.script(reply)
    with client(server) as llm:
        completion = llm.chat(USER)
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (0, 0)
    assert llm.meter.snapshot() == {"calls": 1, "prompt_tokens": 0, "completion_tokens": 0}


def test_missing_finish_reason_and_content_parts(server: FakeServer) -> None:
    reply = ok("", finish=None)
    reply.body["choices"][0]["message"]["content"] = [{"type": "text", "text": "parts"}]
    server.script(reply)
    with client(server) as llm:
        completion = llm.chat(USER)
    assert (completion.text, completion.finish_reason) == ("parts", "stop")


def test_connection_refused_is_an_llm_error_after_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = OpenAICompatible("m", f"http://127.0.0.1:{port}/v1", retries=2, backoff=0.01)
    started = time.monotonic()
    with llm, pytest.raises(LLMError) as raised:
        llm.chat(USER)
    assert "after 3 attempts" in str(raised.value)
    assert "cannot reach" in str(raised.value)
    assert time.monotonic() - started < 2


# -- caller mistakes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"base_url": "localhost:11434/v1"},
        {"json_mode": "grammar"},
        {"model": ""},
        {"retries": -1},
        {"timeout": 0},
    ],
    ids=["no-scheme", "json-mode", "no-model", "retries", "timeout"],
)
def test_bad_construction_is_invalid_input(options: dict[str, Any]) -> None:
    arguments = {"model": "m", "base_url": "http://127.0.0.1:1/v1", **options}
    with pytest.raises(InvalidInput):
        OpenAICompatible(**arguments)


@pytest.mark.parametrize(
    "messages",
    [[], [ChatMessage("robot", "hi")], [ChatMessage("tool", "42")]],
    ids=["empty", "bad-role", "tool-without-id"],
)
def test_bad_messages_are_invalid_input_and_send_nothing(
    server: FakeServer, messages: list[ChatMessage]
) -> None:
    with client(server) as llm, pytest.raises(InvalidInput):
        llm.chat(messages)
    assert server.requests == []


# -- the assistant and sleep over HTTP ------------------------------------------------------


def test_assistant_uses_memory_tools_over_http(server: FakeServer, hash_memory: Any) -> None:
    hash_memory.remember("My locker code is 4512.", speaker="ana", time="2026-03-01T09:00:00")
    server.script(
        ok(
            None,
            tool_calls=[wire_call("c1", "search_memory", '{"query": "locker code"}')],
            finish="tool_calls",
        ),
        Reply({"error": {"message": "overloaded"}}, status=500),  # retried
        ok("Your locker code is 4512."),
    )
    from kuzya.assistant import Assistant
    from kuzya.tools import Toolbox

    llm = client(server)
    assistant = Assistant(hash_memory, llm, tools=Toolbox(), max_steps=2)
    reply = assistant.reply("What's my locker code?", conversation="c", participants=["ana"])
    assistant.close()
    assert reply.text == "Your locker code is 4512."
    first, _, last = (seen.body for seen in server.requests)
    assert [t["function"]["name"] for t in first["tools"]] == [
        "search_memory",
        "add_memory",
        "forget_memory",
    ]
    tool_turn = last["messages"][-1]
    assert tool_turn["role"] == "tool" and tool_turn["tool_call_id"] == "c1"
    assert "4512" in tool_turn["content"]
    assert "tools" not in last or not last["tools"]  # the last step must answer
    assert llm.meter.snapshot()["calls"] == 2
    assert reply.usage.prompt_tokens == 20


def test_sleep_extracts_facts_with_an_http_model(server: FakeServer, hash_memory: Any) -> None:
    from kuzya.memory import Memory

    hash_memory.remember(
        "I adopted a parrot called Kiwi.",
        speaker="ana",
        conversation="c",
        time="2026-03-01T09:00:00",
    )
    answer = {
        "facts": [{"message": 0, "subject": "ana", "attribute": "owns", "value": "a red kayak"}],
        "summaries": [{"conversation": "c", "summary": "Ana adopted a parrot, Kiwi."}],
    }
    server.script(ok("```json\n" + json.dumps(answer) + "\n```"))
    llm = client(server)
    memory = Memory(hash_memory.store, hash_memory.embedder, namespace="test", llm=llm)
    report = memory.sleep(now="2026-03-02T09:00:00")
    assert report.llm == {"calls": 1, "prompt_tokens": 10, "completion_tokens": 3}
    facts = {(f.attribute, f.value, f.origin) for f in memory.facts(subject="ana")}
    assert ("owns", "a red kayak", "llm:openai:test-model") in facts
    (entry,) = memory.diary(participants=["ana"], kind="conversation")
    assert entry.text.endswith("Ana adopted a parrot, Kiwi.")
    assert entry.origin == "llm:openai:test-model"
    sent = server.requests[0].body
    assert "response_format" in sent and "I adopted a parrot" in sent["messages"][-1]["content"]


def test_a_streamed_answer_arrives_piece_by_piece(server: FakeServer) -> None:
    server.script(streamed("Hel", "lo, ", "Ana!"))
    pieces: list[str] = []
    with client(server) as llm:
        completion = llm.chat(USER, on_text=pieces.append)
    assert pieces == ["Hel", "lo, ", "Ana!"] and completion.text == "Hello, Ana!"
    assert completion.usage.prompt_tokens == 7 and completion.usage.completion_tokens == 3
    sent = server.requests[0].body
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def test_a_stream_failing_before_its_first_piece_is_retried(server: FakeServer) -> None:
    server.script(Reply({"error": {"message": "busy"}}, status=503), streamed("ok"))
    pieces: list[str] = []
    with client(server) as llm:
        assert llm.chat(USER, on_text=pieces.append).text == "ok"
    assert pieces == ["ok"] and len(server.requests) == 2


def test_a_stream_broken_after_a_piece_fails_without_repeating_it(server: FakeServer) -> None:
    server.script(streamed("Hel", "lo", broken=True), streamed("Hello"))
    pieces: list[str] = []
    with client(server) as llm, pytest.raises(LLMError, match="the stream broke"):
        llm.chat(USER, on_text=pieces.append)
    assert pieces == ["Hel"] and len(server.requests) == 1


def test_with_tools_the_text_is_passed_on_whole(server: FakeServer) -> None:
    server.script(ok("Sunny in Oslo."))
    pieces: list[str] = []
    with client(server) as llm:
        llm.chat(USER, tools=[WEATHER], on_text=pieces.append)
    assert pieces == ["Sunny in Oslo."] and "stream" not in server.requests[0].body
