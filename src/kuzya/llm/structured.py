"""A validated pydantic object out of any chat model, however messy its JSON.

`parse_json` digs one JSON value out of model output (prose, code fences, Python literals,
trailing commas, comments, truncation); `structured` asks, parses, validates and, on
failure, tells the model what was wrong and asks again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from kuzya.errors import InvalidInput, LLMError
from kuzya.llm.base import LLM, ChatMessage

T = TypeVar("T", bound=BaseModel)

FENCE = re.compile(r"```[ \t]*[A-Za-z]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
PARTIAL_EXPONENT = re.compile(r"[eE][-+]?")
NAME = re.compile(r"[^\W\d][\w$-]*")
WORD = re.compile(r"[A-Za-z]+")
HEX4 = re.compile(r"[0-9a-fA-F]{4}")
LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
# opening quote -> the quotes that may close it
QUOTES = {'"': '"', "'": "'", "“": '”“"', "„": '“”"', "”": '”"', "«": "»", "‘": "’‘'", "’": "’'"}
CLOSERS = ",:}]"  # what may follow a closing quote, so an inner quote or apostrophe is text
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\"}
MAX_DEPTH = 200


class _Bad(Exception):
    """This start position does not hold a JSON value."""


class _Truncated(Exception):
    """The text ended inside a value that cannot be closed (a key, a bare word)."""


def parse_json(text: str) -> Any:
    """One JSON value from model output; raises `LLMError` when there is none."""
    text = text.lstrip("\ufeff").strip()
    if not text:
        raise LLMError("the model answered with nothing, not JSON")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    for region in [*FENCE.findall(text), text]:
        found = _first_value(region)
        if found is not None:
            return found[0]
    raise LLMError(f"no JSON value in the model's answer: {text[:120]!r}")


def _first_value(region: str) -> tuple[Any] | None:
    """The first value that parses, tried from each `{` or `[` in turn (boxed: it may be None)."""
    for match in re.finditer(r"[{\[]", region):
        reader = _Reader(region, match.start())
        try:
            value = reader.value(0)
        except (_Bad, _Truncated):
            continue
        if value or not reader.truncated:  # `Sure! {` at the very end is not an answer
            return (value,)
    return None


class _Reader:
    """A forgiving recursive-descent JSON reader that closes whatever the text left open."""

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.truncated = False

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise _Bad("nested too deep")
        char = self._next()
        if not char:
            raise _Truncated
        if char == "{":
            return self._object(depth)
        if char == "[":
            return self._array(depth)
        if char in QUOTES:
            return self._string(closable=True)
        if char in "-+.0123456789":
            return self._number()
        if char.isalpha():
            return self._literal()
        raise _Bad(f"unexpected {char!r}")

    def _next(self) -> str:
        """Skip blanks and comments; the next character ("" at the end of the text)."""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char.isspace():
                self.pos += 1
            elif self.text.startswith("//", self.pos) or char == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            elif self.text.startswith("/*", self.pos):
                end = self.text.find("*/", self.pos + 2)
                self.pos = len(self.text) if end < 0 else end + 2
            else:
                return char
        self.truncated = True
        return ""

    def _object(self, depth: int) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        while True:
            char = self._next()
            if char in ("", "}"):
                self.pos += bool(char)
                return out
            if char == ",":
                self.pos += 1
                continue
            try:
                key = self._key()
                if self._next() != ":":
                    raise _Truncated if self.truncated else _Bad("expected ':'")
                self.pos += 1
                out[key] = self.value(depth + 1)
            except _Truncated:
                self.truncated = True
                return out  # drop the dangling key or partial value

    def _array(self, depth: int) -> list[Any]:
        self.pos += 1
        out: list[Any] = []
        while True:
            char = self._next()
            if char in ("", "]"):
                self.pos += bool(char)
                return out
            if char == ",":
                self.pos += 1
                continue
            try:
                out.append(self.value(depth + 1))
            except _Truncated:
                self.truncated = True
                return out

    def _key(self) -> str:
        char = self.text[self.pos]
        if char in QUOTES:
            return self._string(closable=False)
        match = NAME.match(self.text, self.pos)
        if not match:
            raise _Bad(f"unexpected {char!r} where a key should be")
        self.pos = match.end()
        return match.group()

    def _string(self, *, closable: bool) -> str:
        closers = QUOTES[self.text[self.pos]]
        self.pos += 1
        chars: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "\\":
                chars.append(self._escape())
            elif char in closers and self._closes():
                return "".join(chars)
            else:
                chars.append(char)
        self.truncated = True
        if not closable:
            raise _Truncated
        return "".join(chars)

    def _closes(self) -> bool:
        """A quote closes its string when followed by `,:}]`, a line break or the end."""
        end = self.pos
        while end < len(self.text) and self.text[end].isspace():
            end += 1
        return (
            end == len(self.text) or self.text[end] in CLOSERS or "\n" in self.text[self.pos : end]
        )

    def _escape(self) -> str:
        if self.pos >= len(self.text):
            return ""
        char = self.text[self.pos]
        self.pos += 1
        if char != "u":
            return ESCAPES.get(char, char)
        code = self._hex4(self.pos)
        if code is None and self.pos + 4 > len(self.text):  # cut off mid-escape: drop it
            self.pos = len(self.text)
            return ""
        if code is None:
            return "\\u"
        self.pos += 4
        low = self._hex4(self.pos + 2) if self.text.startswith("\\u", self.pos) else None
        if 0xD800 <= code < 0xDC00 and low is not None and 0xDC00 <= low < 0xE000:
            self.pos += 6
            return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
        return chr(code)

    def _hex4(self, pos: int) -> int | None:
        match = HEX4.match(self.text, pos)
        return int(match.group(), 16) if match else None

    def _number(self) -> int | float:
        match = NUMBER.match(self.text, self.pos)
        if not match:
            rest = self.text[self.pos :]
            raise _Truncated if rest.strip("-+.") == "" else _Bad("not a number")
        if PARTIAL_EXPONENT.fullmatch(self.text, match.end()):
            raise _Truncated
        self.pos = match.end()
        literal = match.group().lstrip("+")
        return float(literal) if any(c in literal for c in ".eE") else int(literal)

    def _literal(self) -> Any:
        match = WORD.match(self.text, self.pos)
        word = match.group() if match else ""
        if word in LITERALS:
            self.pos += len(word)
            return LITERALS[word]
        if self.pos + len(word) == len(self.text) and any(w.startswith(word) for w in LITERALS):
            raise _Truncated
        raise _Bad(f"bare word {word!r}")


def structured(
    llm: LLM,
    messages: Sequence[ChatMessage],
    schema: type[T],
    *,
    retries: int = 2,
    max_tokens: int = 512,
) -> T:
    """Ask `llm` for one `schema` object; on unusable answers say why and ask again.

    Raises `LLMError` once `retries + 1` answers have all failed to parse or validate.
    """
    if retries < 0:
        raise InvalidInput(f"retries must be >= 0, got {retries}")
    json_schema = schema.model_json_schema()
    history = list(messages)
    problem = ""
    for attempt in range(retries + 1):
        completion = llm.chat(history, json_schema=json_schema, max_tokens=max_tokens)
        try:
            if completion.finish_reason == "length":  # a repaired cut-off value is not a fact
                raise LLMError("the answer was cut off at the token limit; answer more briefly")
            return _validate(completion.text, schema, json_schema)
        except (LLMError, ValidationError) as exc:
            problem = _describe(exc)
        if attempt < retries:  # only the latest bad answer stays in the conversation
            history = [*messages, *_retry_turns(completion.text, problem, schema, json_schema)]
    raise LLMError(
        f"{llm.name} gave no valid {schema.__name__} in {retries + 1} attempts; "
        f"last problem: {problem}"
    )


def _validate(text: str, schema: type[T], json_schema: Mapping[str, Any]) -> T:
    value = parse_json(text)
    if isinstance(value, list):
        field = _only_list_field(json_schema)
        if field is not None:
            value = {field: value}
    return schema.model_validate(value)


def _only_list_field(json_schema: Mapping[str, Any]) -> str | None:
    """The one array property, when the others are optional: `[...]` can stand for it."""
    properties: Mapping[str, Any] = json_schema.get("properties") or {}
    arrays = [name for name, spec in properties.items() if _is_array(spec)]
    required = set(json_schema.get("required") or ())
    if len(arrays) == 1 and required <= set(arrays):
        return arrays[0]
    return None


def _is_array(spec: Mapping[str, Any]) -> bool:
    branches = [spec, *spec.get("anyOf", ())]
    return any(branch.get("type") == "array" for branch in branches)


def _describe(exc: LLMError | ValidationError) -> str:
    if isinstance(exc, LLMError):
        return f"it was not JSON ({exc})"
    errors = [
        f"{'.'.join(str(part) for part in error['loc']) or 'the value'}: {error['msg']}"
        for error in exc.errors()[:5]
    ]
    return "it did not match the schema (" + "; ".join(errors) + ")"


def _retry_turns(
    answer: str, problem: str, schema: type[BaseModel], json_schema: Mapping[str, Any]
) -> list[ChatMessage]:
    compact = json.dumps(json_schema, ensure_ascii=False, separators=(",", ":"))
    request = (
        f"Your answer could not be used: {problem}. Reply with only one JSON value for "
        f"{schema.__name__} matching this JSON schema, with no prose and no code fences: "
        f"{compact}"
    )
    return [ChatMessage("assistant", answer), ChatMessage("user", request)]
