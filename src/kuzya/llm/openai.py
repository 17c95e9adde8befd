"""One client for every OpenAI-compatible chat server: Ollama, vLLM, llama.cpp, LM Studio, OpenAI.

A vendor is a base URL, a model name, a key or none, and how it is asked for JSON (json_mode).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

import httpx

from kuzya.errors import InvalidInput, LLMError
from kuzya.llm.base import ChatMessage, Completion, Meter, Tool, ToolCall, Usage, stop_strings

JSON_MODES = ("schema", "object", "none")
ROLES = ("system", "user", "assistant", "tool")
MAX_RETRY_AFTER = 30.0  # seconds; a server asking for longer gets this much
MAX_BACKOFF = 30.0
HINTS = {  # what to check after a 4xx, by status; 0 for any other
    0: "check the base URL, the model name and the API key",
    401: "check the API key (api_key) the server expects",
    403: "check the API key (api_key) and that it may use this model",
    404: "check the base URL (it usually ends in /v1) and the model name",
}
JSON_INSTRUCTION = "Answer with only one JSON value (no prose) matching this JSON schema:\n"


class _Retryable(Exception):
    """A failure worth another attempt: network, timeout, 429, 5xx or an unusable body."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class OpenAICompatible:
    """Chat completions over HTTP (``POST {base_url}/chat/completions``), with retries."""

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        json_mode: str = "schema",
    ) -> None:
        if not model:
            raise InvalidInput("model is empty: pass the model name the server knows")
        if not base_url.startswith(("http://", "https://")):
            raise InvalidInput(f"base_url {base_url!r} must start with http:// or https://")
        if json_mode not in JSON_MODES:
            raise InvalidInput(f"json_mode {json_mode!r} is not one of {', '.join(JSON_MODES)}")
        if retries < 0 or timeout <= 0 or backoff < 0:
            raise InvalidInput("retries and backoff must be >= 0 and timeout > 0")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.json_mode = json_mode
        self.name = f"openai:{model}"
        self.meter = Meter()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None = None,
        tools: Sequence[Tool] = (),
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_text: Callable[[str], None] | None = None,
        stop: Sequence[str] = (),
    ) -> Completion:
        payload = self._payload(messages, json_schema, tools, max_tokens, temperature)
        if stop:
            payload["stop"] = list(stop_strings(stop))
        streamed = on_text is not None and not tools and json_schema is None
        problem = ""
        for attempt in range(self.retries + 1):
            try:
                if streamed:
                    assert on_text is not None
                    completion = self._streamed(payload, on_text)
                else:
                    completion = self._attempt(payload)
                    if on_text is not None and completion.text:
                        on_text(completion.text)
            except _Retryable as exc:
                problem = str(exc)
                if attempt < self.retries:
                    time.sleep(exc.wait if exc.wait is not None else self._delay(attempt))
                continue
            self.meter.add(completion.usage)
            return completion
        raise LLMError(
            f"{self.name}: no usable answer from {self.base_url} after {self.retries + 1} "
            f"attempts ({problem}); check that the server is running at that base URL "
            "and serves this model"
        )

    def prefill(self, messages: Sequence[ChatMessage]) -> None:
        """Nothing: servers that cache prompts (llama.cpp, vLLM, OpenAI) do it on the
        request itself, and a request made only to warm them would cost a completion."""

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _payload(
        self,
        messages: Sequence[ChatMessage],
        json_schema: Mapping[str, Any] | None,
        tools: Sequence[Tool],
        max_tokens: int,
        temperature: float,
    ) -> dict[str, Any]:
        if not messages:
            raise InvalidInput("chat needs at least one message")
        if max_tokens <= 0:
            raise InvalidInput(f"max_tokens must be positive, got {max_tokens}")
        wire = [_wire_message(message) for message in messages]
        payload: dict[str, Any] = {"model": self.model, "messages": wire}
        payload.update(max_tokens=max_tokens, temperature=temperature)
        if tools:  # "auto" is OpenAI's default; llama.cpp's server ignores tools without it
            payload["tools"] = [_wire_tool(tool) for tool in tools]
            payload["tool_choice"] = "auto"
        if json_schema is not None:
            payload["messages"] = _with_instruction(wire, json_schema)
            if self.json_mode == "schema":
                schema = {"name": "answer", "schema": dict(json_schema), "strict": False}
                payload["response_format"] = {"type": "json_schema", "json_schema": schema}
            elif self.json_mode == "object":
                payload["response_format"] = {"type": "json_object"}
        return payload

    def _attempt(self, payload: Mapping[str, Any]) -> Completion:
        url = f"{self.base_url}/chat/completions"
        try:
            response = self._client.post(url, json=payload)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"no answer within {self.timeout}s") from exc
        except httpx.RequestError as exc:
            raise _Retryable(f"cannot reach {url}: {exc}") from exc
        self._check_status(url, response)
        try:
            body = response.json()
        except ValueError as exc:
            raise _Retryable(f"the body is not JSON: {_preview(response.text)}") from exc
        return _parse_completion(body)

    def _check_status(self, url: str, response: httpx.Response) -> None:
        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(f"HTTP {status}: {_server_message(response)}", _retry_after(response))
        if status >= 300:  # a redirect too: the base URL is not quite right
            raise LLMError(
                f"{self.name}: HTTP {status} from {url}: {_server_message(response)}; "
                f"{HINTS.get(status, HINTS[0])}"
            )

    def _streamed(self, payload: Mapping[str, Any], on_text: Callable[[str], None]) -> Completion:
        """One attempt read as server-sent events, each piece of text passed on as it
        comes; once a piece was passed on, a failure is final rather than retried."""
        url = f"{self.base_url}/chat/completions"
        body = {**payload, "stream": True, "stream_options": {"include_usage": True}}
        pieces: list[str] = []
        usage, finish = Usage(), "stop"
        try:
            with self._client.stream("POST", url, json=body) as response:
                if response.status_code >= 300:
                    response.read()
                    self._check_status(url, response)
                for line in response.iter_lines():
                    data = line.removeprefix("data:").strip()
                    if not line.startswith("data:") or not data:
                        continue
                    if data == "[DONE]":
                        break
                    chunk = json.loads(data)
                    usage = _parse_usage(chunk.get("usage")) if chunk.get("usage") else usage
                    for choice in chunk.get("choices") or ():
                        text = _content_text((choice.get("delta") or {}).get("content"))
                        finish = str(choice.get("finish_reason") or finish)
                        if text:
                            pieces.append(text)
                            on_text(text)
        except (httpx.TimeoutException, httpx.RequestError, ValueError, AttributeError) as exc:
            problem = f"the stream broke: {exc or type(exc).__name__}"
            if pieces:
                raise LLMError(f"{self.name}: {problem} after {len(pieces)} pieces") from exc
            raise _Retryable(problem) from exc
        return Completion("".join(pieces), usage=usage, finish_reason=finish)

    def _delay(self, attempt: int) -> float:
        delay = min(self.backoff * 2.0**attempt, MAX_BACKOFF)
        return delay + random.uniform(0, self.backoff / 4)


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    if message.role not in ROLES:
        raise InvalidInput(f"message role {message.role!r} is not one of {', '.join(ROLES)}")
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:  # content parts, as OpenAI's, Ollama's and vLLM's vision models take
        pictures = [{"type": "image_url", "image_url": {"url": url}} for url in message.images]
        wire["content"] = [{"type": "text", "text": message.content}, *pictures]
    if message.tool_calls:
        wire["tool_calls"] = [_wire_call(call) for call in message.tool_calls]
    if message.role == "tool":
        if not message.tool_call_id:
            raise InvalidInput("a tool message needs the tool_call_id of the call it answers")
        wire["tool_call_id"] = message.tool_call_id
    return wire


def _wire_call(call: ToolCall) -> dict[str, Any]:
    arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _wire_tool(tool: Tool) -> dict[str, Any]:
    spec = {"name": tool.name, "description": tool.description, "parameters": dict(tool.parameters)}
    return {"type": "function", "function": spec}


def _with_instruction(
    wire: list[dict[str, Any]], json_schema: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The JSON instruction joins the leading system message, or becomes one."""
    instruction = JSON_INSTRUCTION + json.dumps(json_schema, ensure_ascii=False)
    if wire[0]["role"] == "system":
        first = {**wire[0], "content": f"{wire[0]['content']}\n\n{instruction}".strip()}
        return [first, *wire[1:]]
    return [{"role": "system", "content": instruction}, *wire]


def _parse_completion(body: Any) -> Completion:
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise _Retryable(f"the body has no choices[0].message: {_preview(body)}") from exc
    if not isinstance(message, dict) or not isinstance(choice, dict):
        raise _Retryable(f"choices[0].message is not an object: {_preview(body)}")
    raw_calls = enumerate(message.get("tool_calls") or ())
    calls = tuple(_parse_tool_call(raw, index) for index, raw in raw_calls)
    finish = choice.get("finish_reason") or ("tool_calls" if calls else "stop")
    return Completion(
        text=_content_text(message.get("content")),
        tool_calls=calls,
        usage=_parse_usage(body.get("usage")),
        finish_reason=str(finish),
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _parse_tool_call(raw: Any, index: int) -> ToolCall:
    try:
        function = raw["function"]
        name = str(function["name"])
        arguments = function.get("arguments") or {}
    except (KeyError, TypeError, AttributeError) as exc:
        raise _Retryable(f"malformed tool call: {_preview(raw)}") from exc
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            raise _Retryable(f"tool call {name} has unparsable arguments: {arguments!r}") from exc
    if not isinstance(arguments, dict):
        raise _Retryable(f"tool call {name} arguments are not a JSON object: {arguments!r}")
    return ToolCall(id=str(raw.get("id") or f"call_{index}"), name=name, arguments=arguments)


def _parse_usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    return Usage(
        prompt_tokens=prompt if isinstance(prompt, int) else 0,
        completion_tokens=completion if isinstance(completion, int) else 0,
    )


def _retry_after(response: httpx.Response) -> float | None:
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None  # absent, or an HTTP date: fall back to backoff
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _server_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return _preview(response.text) or response.reason_phrase
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or error
    return _preview(error)


def _preview(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "..."
