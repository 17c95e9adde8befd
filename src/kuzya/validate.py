"""Checks at the API edge: a bad argument is refused with a clear message, nothing written."""

from __future__ import annotations

import itertools
import json
import reprlib
import unicodedata
from collections.abc import Iterable, Mapping, Sized
from dataclasses import fields, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from kuzya.clock import EARLIEST, LATEST, to_utc, utcnow
from kuzya.errors import InvalidInput
from kuzya.facts.schema import ATTRIBUTES, known
from kuzya.model import Attachment, Message

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")
D = TypeVar("D", bound="DataclassInstance")

MAX_MESSAGE_CHARS = 32_000
MAX_NAME_CHARS = 200  # an id
MAX_PARTICIPANTS = 1_000  # ids in one message's or one call's participants
MAX_ATTACHMENTS = 16  # a message's
MAX_CAPTION_CHARS = 2_000
MAX_URL_CHARS = 32_000  # data: URLs of small images too (LoCoMo has one of 16,339)
MAX_METADATA_BYTES = 64 * 1024  # a message's metadata as UTF-8 JSON
MAX_SOURCES = 10_000  # memory ids in one message's derived_from
MAX_ID = 2**63 - 1  # SQLite and PostgreSQL bigint
MAX_COUNT = 10_000  # candidates, turns or items a recall setting may ask for
MAX_WEIGHT = 1e6  # a weight or threshold a caller may set


def shown(value: object) -> str:
    """A value as an error message shows it: short, whatever its size or its __repr__."""
    try:
        return reprlib.repr(value)
    except Exception:  # an int of more digits than str() converts, a broken __repr__
        return f"<{type(value).__name__}>"


def text(value: object, what: str = "text", limit: int = MAX_MESSAGE_CHARS) -> str:
    """A string with something in it, in NFC: a composed and a decomposed "é" are one
    letter in everything stored and every query (ids, the full-text index, recall)."""
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
    value = unicodedata.normalize("NFC", value)
    if not value.strip():
        raise InvalidInput(f"{what} is empty")
    if len(value) > limit:
        hint = " (split it into several messages)" if what == "text" else ""
        raise InvalidInput(f"{what} has {len(value):,} characters; the limit is {limit:,}{hint}")
    return value


# Control (Cc), format (Cf: zero-width and bidirectional marks, U+FEFF) and line or
# paragraph separators: invisible, so two ids that look the same could differ by one.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp"})


def name(value: object, what: str) -> str:
    """An id (participant, speaker, conversation, namespace, subject): text in NFC with
    nothing invisible in it."""
    checked = text(value, what, MAX_NAME_CHARS).strip()
    for char in checked:
        if unicodedata.category(char) in _HIDDEN:
            raise InvalidInput(
                f"{what} {checked!r} contains U+{ord(char):04X} "
                f"({unicodedata.name(char, 'a control character')}); an id may not hold "
                "control, invisible or bidirectional formatting characters"
            )
    return checked


def listed(values: object, what: str, unit: str, limit: int | None) -> list[object]:
    """The items of a list (or any iterable but a str, bytes or a dict), at most `limit`."""
    if isinstance(values, str | bytes | bytearray | Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what} must be a list of {unit}, not {type(values).__name__}")
    if limit is None:
        return list(values)
    items = list(itertools.islice(values, limit + 1))
    if len(items) > limit:
        count = f"{len(values):,}" if isinstance(values, Sized) else f"more than {limit:,}"
        raise InvalidInput(f"{what} has {count} {unit}; the limit is {limit:,}")
    return items


def names(values: object, what: str) -> tuple[str, ...]:
    items = listed(values, what, "ids", MAX_PARTICIPANTS)
    checked = tuple(dict.fromkeys(name(v, f"each of {what}") for v in items))
    if not checked:
        raise InvalidInput(f"{what} must name at least one participant")
    return checked


def moment(value: object, what: str = "time") -> datetime:
    """A datetime or an ISO 8601 string as an aware UTC datetime (a naive one is taken as
    UTC); None is the current time.

    The supported range is 0002-01-01 to 9999-12-31 23:59:59 UTC (`clock.EARLIEST`,
    `clock.LATEST`): year 1 is left out so that what Kuzya derives backwards from a time
    (the diary's 30-day cut-off when it sleeps) stays in the calendar. A date expression
    whose days would fall outside the calendar ("next week" said on 31 December 9999) is
    not taken as a date; the message is stored without it.
    """
    if value is None:
        return utcnow()
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInput(f"{what} {shown(value)} is not an ISO 8601 date-time") from exc
    if not isinstance(value, datetime):
        raise InvalidInput(f"{what} must be a datetime, not {type(value).__name__}")
    try:
        moment_utc = to_utc(value)
    except OverflowError:
        moment_utc = None
    if moment_utc is None or not EARLIEST <= moment_utc <= LATEST:
        raise InvalidInput(
            f"{what} {value.isoformat()} is outside the supported range, "
            f"{EARLIEST.date().isoformat()} to {LATEST.date().isoformat()} "
            f"{LATEST:%H:%M:%S} UTC"
        )
    return moment_utc


def attachments(values: object) -> tuple[Attachment, ...]:
    if values is None:
        return ()
    checked = []
    for value in listed(values, "attachments", "attachments", MAX_ATTACHMENTS):
        if isinstance(value, Attachment):
            value = {"kind": value.kind, "caption": value.caption, "url": value.url}
        if not isinstance(value, dict) or "caption" not in value:
            raise InvalidInput("each attachment needs a caption: {'kind', 'caption', 'url'}")
        url = value.get("url")
        checked.append(
            Attachment(
                kind=name(value.get("kind", "image"), "attachment kind"),
                caption=text(value["caption"], "attachment caption", MAX_CAPTION_CHARS),
                url=None if url is None else text(url, "attachment url", MAX_URL_CHARS),
            )
        )
    return tuple(checked)


def metadata(value: object) -> dict[str, Any]:
    """A JSON object that can be stored as UTF-8, of at most MAX_METADATA_BYTES."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput("metadata must be a dict")
    try:
        size = len(json.dumps(dict(value), ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"metadata must be plain JSON (str keys, JSON values): {exc}") from None
    if size > MAX_METADATA_BYTES:
        raise InvalidInput(
            f"metadata is {size:,} bytes as JSON; the limit is {MAX_METADATA_BYTES:,} "
            "(keep large data elsewhere and store a reference to it)"
        )
    return dict(value)


def message(
    text_: object,
    *,
    speaker: object,
    conversation: object,
    participants: object | None,
    time: object | None,
    attachments_: object | None = None,
    metadata_: object | None = None,
    derived_from: object | None = None,
    key: object | None = None,
) -> Message:
    """A validated message; the speaker is part of the audience, except for the
    assistant's replies, which are heard by the people present (they are made from what
    those people may see, and nobody else may see them)."""
    who = name(speaker, "speaker")
    present = names(participants, "participants") if participants is not None else ()
    extra = metadata(metadata_)
    heard_by = present if present and extra.get("role") == "assistant" else (*present, who)
    sources = (
        []
        if derived_from is None
        else listed(derived_from, "derived_from", "memory ids", MAX_SOURCES)
    )
    return Message(
        text=text(text_),
        speaker=who,
        conversation=name(conversation, "conversation"),
        participants=tuple(dict.fromkeys(heard_by)),
        time=moment(time),
        attachments=attachments(attachments_),
        metadata=extra,
        derived_from=tuple(sorted({memory_id(i) for i in sources})),
        key=None if key is None else name(key, "key"),
    )


_FIELDS = frozenset(
    "text speaker conversation participants time attachments metadata derived_from key".split()
)


def message_of(value: object, index: int, conversation: str) -> Message:
    """A validated message from a `Message` or a dict (`conversation` if it names none);
    errors name its place in the list."""
    try:
        if isinstance(value, Message):
            value = {**value.__dict__, "participants": value.participants or None}
        if not isinstance(value, Mapping):
            raise InvalidInput(f"expected a Message or a dict, not {type(value).__name__}")
        unknown = set(value) - _FIELDS
        if unknown:
            raise InvalidInput(f"unknown fields {sorted(unknown)}")
        if "speaker" not in value or "text" not in value:
            raise InvalidInput("a message needs 'text' and 'speaker'")
        return message(
            value["text"],
            speaker=value["speaker"],
            conversation=value.get("conversation", conversation),
            participants=value.get("participants"),
            time=value.get("time"),
            attachments_=value.get("attachments"),
            metadata_=value.get("metadata"),
            derived_from=value.get("derived_from"),
            key=value.get("key"),
        )
    except InvalidInput as exc:
        raise InvalidInput(f"message {index}: {exc}") from exc


def messages(values: object, conversation: str) -> list[Message]:
    """Validated messages of a list (`conversation` for those that name none)."""
    items = listed(values, "messages", "messages (Message or dict)", None)
    return [message_of(value, index, conversation) for index, value in enumerate(items)]


def memory_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidInput(f"memory id must be an integer, not {type(value).__name__}")
    try:
        number = int(value)
    except ValueError as exc:
        raise InvalidInput(f"memory id {shown(value)} is not an integer") from exc
    return integer(number, "memory id", 1, MAX_ID)


def actor(value: object) -> str | None:
    return None if value is None else name(value, "actor")


def integer(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(
            f"{what} must be an integer from {low:,} to {high:,}, not {shown(value)}"
        )
    return value


def number(value: object, what: str, low: float, high: float) -> float:
    """A finite number from `low` to `high` (NaN is in no range)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InvalidInput(f"{what} must be a number from {low:g} to {high:g}, not {shown(value)}")
    return float(value)


def flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be True or False, not {shown(value)}")
    return value


def choice(value: object, what: str, options: Iterable[str]) -> str:
    if not isinstance(value, str) or value not in options:
        allowed = ", ".join(repr(o) for o in options)
        raise InvalidInput(f"{what} must be one of {allowed}, not {shown(value)}")
    return value


def attribute(value: object) -> str:
    """A fact's attribute: the catalogue's, or an open one."""
    if not isinstance(value, str) or not known(value):
        raise InvalidInput(
            f"unknown attribute {shown(value)}: name one of {', '.join(ATTRIBUTES)}, "
            "or an open attribute in short snake_case (usual_order)"
        )
    return value


def instance(value: T, kind: type[Any], what: str) -> T:
    """`value` as its annotation promises (a port's Protocol, a class), checked at run time."""
    if not isinstance(value, kind):
        raise InvalidInput(f"{what}: expected {kind.__name__}, not {type(value).__name__}")
    return value


def recall_settings(settings: DataclassInstance) -> None:
    """`RecallSettings`' fields: counts from 0 to MAX_COUNT, weights finite and not negative
    (cosines and shares at most 1), switches True or False."""
    for field in fields(settings):
        value, what = getattr(settings, field.name), f"recall setting {field.name}"
        if field.type == "bool":
            flag(value, what)
        elif field.type == "int":
            integer(value, what, 0, MAX_COUNT)
        else:
            cosine_or_share = field.name.endswith(("_cosine", "_share"))
            number(value, what, 0.0, 1.0 if cosine_or_share else MAX_WEIGHT)


def changed(value: D, changes: Mapping[str, object], what: str) -> D:
    """A copy of a dataclass value with some fields changed (checked as it is built)."""
    allowed = [f.name for f in fields(value)]
    unknown = sorted(set(changes) - set(allowed))
    if unknown:
        raise InvalidInput(f"unknown {what} {', '.join(unknown)}; known: {', '.join(allowed)}")
    return replace(value, **changes)
