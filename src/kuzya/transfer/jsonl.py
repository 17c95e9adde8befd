"""Reading a plain JSONL chat file: one message per line, `{"text", "speaker",
"conversation", "participants", "time", "attachments", "metadata", "id" or "key"}`; only
`text` and `speaker` are required.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kuzya import validate
from kuzya.errors import InvalidInput
from kuzya.model import Message


def read_jsonl(path: str | Path, default_conversation: str | None = None) -> list[Message]:
    """The messages of a JSONL chat file, validated, each with a stable key so that
    importing the file again stores nothing twice: its "key", else its "id" within its
    conversation, else a hash of its conversation, place in it, time as written, speaker
    and text. An error names the file and the line; nothing is returned then."""
    path = Path(path)
    conversation = default_conversation or path.stem
    messages: list[Message] = []
    seen: dict[str, int] = {}  # messages per conversation so far: a message's place
    try:
        lines = path.open("rb")
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    with lines:
        for number, raw in enumerate(lines, start=1):
            try:
                record = _record(raw)
                if record is None:
                    continue
                record.setdefault("conversation", conversation)
                place = seen.get(str(record["conversation"]), 0)
                seen[str(record["conversation"])] = place + 1
                record["key"] = _key(record, place)
                messages.append(validate.message_of(record, number, conversation))
            except InvalidInput as exc:
                problem = str(exc).removeprefix(f"message {number}: ")
                raise InvalidInput(f"{path}:{number}: {problem}") from None
    return messages


def _record(raw: bytes) -> dict[str, Any] | None:
    """One line as a JSON object; None for a blank line."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not valid UTF-8 ({exc.reason})") from None
    return json_object(line) if line.strip() else None


def json_object(line: str) -> dict[str, Any]:
    """A line of a JSONL file as the JSON object it must be."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not valid JSON ({exc.msg})") from None
    if not isinstance(record, dict):
        raise InvalidInput("expected a JSON object")
    return record


def _key(record: dict[str, Any], place: int) -> str:
    """The record's stable key (and its "id" leaves it: messages have no such field)."""
    given, line_id = record.pop("key", None), record.pop("id", None)
    if given is not None:
        return str(given)
    if line_id is not None:
        return f"{record['conversation']}#{line_id}"
    identity = [record["conversation"], place, record.get("time"), record.get("speaker"),
                record.get("text")]  # fmt: skip
    encoded = json.dumps(identity, default=str).encode("ascii")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()[:32]
