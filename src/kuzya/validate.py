"""Checks at the API edge: a bad argument is refused with a clear message, nothing written."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from kuzya.clock import to_utc, utcnow
from kuzya.errors import InvalidInput
from kuzya.model import Attachment, Message

MAX_MESSAGE_CHARS = 32_000
MAX_NAME_CHARS = 200


def text(value: object, what: str = "text", limit: int = MAX_MESSAGE_CHARS) -> str:
    if isinstance(value, bytes | bytearray):
        raise InvalidInput(f"{what} must be str, not bytes: decode it (UTF-8) first")
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be str, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} is not valid Unicode (position {exc.start}): {exc.reason}"
        ) from None
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL character")
    if not value.strip():
        raise InvalidInput(f"{what} is empty")
    if len(value) > limit:
        raise InvalidInput(
            f"{what} has {len(value):,} characters; the limit is {limit:,} "
            "(split it into several messages)"
        )
    return value


def name(value: object, what: str) -> str:
    return text(value, what, MAX_NAME_CHARS).strip()


def names(values: object, what: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what} must be a list of ids, not {type(values).__name__}")
    checked = tuple(dict.fromkeys(name(v, f"each of {what}") for v in values))
    if not checked:
        raise InvalidInput(f"{what} must name at least one participant")
    return checked


def moment(value: object, what: str = "time") -> datetime:
    if value is None:
        return utcnow()
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInput(f"{what} {value!r} is not an ISO 8601 date-time") from exc
    if not isinstance(value, datetime):
        raise InvalidInput(f"{what} must be a datetime, not {type(value).__name__}")
    return to_utc(value)


def attachments(values: object) -> tuple[Attachment, ...]:
    if values is None:
        return ()
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise InvalidInput("attachments must be a list")
    checked = []
    for value in values:
        if isinstance(value, Attachment):
            checked.append(value)
        elif isinstance(value, dict) and "caption" in value:
            url = value.get("url")
            checked.append(
                Attachment(
                    kind=name(value.get("kind", "image"), "attachment kind"),
                    caption=text(value["caption"], "attachment caption"),
                    url=None if url is None else name(url, "attachment url"),
                )
            )
        else:
            raise InvalidInput("each attachment needs a caption: {'kind', 'caption', 'url'}")
    return tuple(checked)


def message(
    text_: object,
    *,
    speaker: object,
    conversation: object,
    participants: object | None,
    time: object | None,
    attachments_: object | None = None,
    metadata: object | None = None,
) -> Message:
    """A validated message; the speaker is always part of the audience."""
    who = name(speaker, "speaker")
    present = names(participants, "participants") if participants is not None else ()
    if metadata is not None and not isinstance(metadata, dict):
        raise InvalidInput("metadata must be a dict")
    meta: dict[str, Any] = dict(metadata or {})
    return Message(
        text=text(text_),
        speaker=who,
        conversation=name(conversation, "conversation"),
        participants=tuple(dict.fromkeys((*present, who))),
        time=moment(time),
        attachments=attachments(attachments_),
        metadata=meta,
    )


def memory_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidInput(f"memory id must be an integer, not {type(value).__name__}")
    try:
        number = int(value)
    except ValueError as exc:
        raise InvalidInput(f"memory id {value!r} is not an integer") from exc
    if number <= 0:
        raise InvalidInput(f"memory id must be positive, not {number}")
    return number


def positive(value: object, what: str, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= limit:
        raise InvalidInput(f"{what} must be an integer from 1 to {limit}, not {value!r}")
    return value
