"""The lines of an export file (`kuzya.transfer.namespace`): each record read back and checked,
with the references between records (message keys, entities) resolved. A mistake is
one `InvalidInput` naming the line."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kuzya import validate
from kuzya.errors import InvalidInput
from kuzya.facts.schema import known
from kuzya.model import Conversation, Message
from kuzya.sleep import diary
from kuzya.store.portable import AssociationRow, EntityRef
from kuzya.transfer.jsonl import json_object

FORMAT = 1  # the export format this Kuzya writes and reads ("kuzya_export" in the header)


@dataclass(frozen=True)
class Header:
    namespace: str
    embedder: str | None
    exported_at: datetime


@dataclass(frozen=True)
class MessageRecord:
    message: Message  # its key set, its derived_from empty (see `sources`)
    position: int
    stored_at: datetime
    updated_at: datetime | None
    sources: tuple[str, ...]  # keys of the messages it was derived from
    mentions: tuple[tuple[EntityRef, str, str], ...]  # (entity, name as written, kind)


@dataclass(frozen=True)
class ClaimRecord:
    message: str
    subject: str
    attribute: str
    value: str
    value_key: str
    negated: bool
    statement: str
    origin: str
    recorded_at: datetime
    emphatic: bool


@dataclass(frozen=True)
class DiaryRecord:
    kind: str
    key: str
    level: int
    text: str
    start: datetime
    end: datetime
    audience: frozenset[str]
    sources: tuple[str, ...]
    origin: str
    created_at: datetime
    compressed_into: tuple[str, str, int] | None  # (kind, key, level) of the same audience


@dataclass(frozen=True)
class AliasRecord:
    speaker: str
    alias: str
    audience: frozenset[str]
    message: str | None
    entity: EntityRef


@dataclass(frozen=True)
class ReinforcementRecord:
    audience: frozenset[str]
    entities: tuple[EntityRef, ...]
    amount: float
    at: datetime
    sources: tuple[str, ...]


@dataclass
class Export:
    """An export file read whole and checked."""

    header: Header
    audiences: list[frozenset[str]] = field(default_factory=list)
    entities: list[EntityRef] = field(default_factory=list)
    messages: list[MessageRecord] = field(default_factory=list)
    claims: list[ClaimRecord] = field(default_factory=list)
    diary: list[DiaryRecord] = field(default_factory=list)
    aliases: list[AliasRecord] = field(default_factory=list)
    associations: list[AssociationRow] = field(default_factory=list)
    reinforcements: list[ReinforcementRecord] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    positions: dict[str, str | None] = field(default_factory=dict)  # job -> message key
    sleep_clock: datetime | None = None
    by_key: dict[str, MessageRecord] = field(default_factory=dict)  # the messages by key
    named: set[EntityRef] = field(default_factory=set)  # the entities


class _Fields:
    """A record's fields, each checked as it is read; the error names the field."""

    def __init__(self, record: Mapping[str, Any], export: Export) -> None:
        self.record, self.export = record, export
        self.keys = export.by_key

    def get(self, name: str, required: bool = True) -> Any:
        if name not in self.record:
            if required:
                raise InvalidInput(f"a {self.record.get('type')} record needs {name!r}")
            return None
        return self.record[name]

    def string(self, name: str) -> str:
        value = self.get(name)
        if not isinstance(value, str):
            raise InvalidInput(f"{name} must be a string, not {validate.shown(value)}")
        return value

    def time(self, name: str, required: bool = True) -> datetime | None:
        value = self.get(name, required)
        return None if value is None else validate.moment(value, name)

    def at(self, name: str) -> datetime:
        moment = self.time(name)
        assert moment is not None
        return moment

    def audience(self, name: str = "audience") -> frozenset[str]:
        return frozenset(validate.names(self.get(name), name))

    def entity(self, value: object) -> EntityRef:
        if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
            raise InvalidInput(f"an entity is [key, sense], not {validate.shown(value)}")
        ref = (value[0], validate.integer(value[1], "sense", 0, validate.MAX_ID))
        if ref not in self.export.named:
            raise InvalidInput(f"entity {list(ref)} has no entity record before it")
        return ref

    def message(self, value: object) -> MessageRecord:
        if not isinstance(value, str) or value not in self.keys:
            raise InvalidInput(f"no message record before it has key {validate.shown(value)}")
        return self.keys[value]

    def messages(self, name: str) -> tuple[str, ...]:
        values = validate.listed(self.get(name), name, "message keys", None)
        return tuple(self.message(value).message.key or "" for value in values)


def _header(record: Mapping[str, Any]) -> Header:
    if "kuzya_export" not in record:
        raise InvalidInput('not a Kuzya export: its first line has no "kuzya_export"')
    if record["kuzya_export"] != FORMAT:
        raise InvalidInput(
            f"export format {validate.shown(record['kuzya_export'])}; this Kuzya reads "
            f"format {FORMAT}"
        )
    embedder = record.get("embedder")
    return Header(
        namespace=validate.name(record.get("namespace"), "namespace"),
        embedder=None if embedder is None else str(embedder),
        exported_at=validate.moment(record.get("exported_at"), "exported_at"),
    )


def _message(fields: _Fields) -> None:
    key = validate.name(fields.get("key"), "key")
    if key in fields.keys:
        raise InvalidInput(f"key {key!r} is used by an earlier message record")
    message = validate.message(
        fields.get("text"),
        speaker=fields.get("speaker"),
        conversation=fields.get("conversation"),
        participants=fields.get("participants"),
        time=fields.get("time"),
        attachments_=fields.get("attachments"),
        metadata_=fields.get("metadata"),
        key=key,
    )
    if set(message.participants) != set(validate.names(fields.get("participants"), "p")):
        raise InvalidInput("participants must be the message's audience, the speaker in it")
    mentions = []
    for mention in validate.listed(fields.get("mentions"), "mentions", "mentions", None):
        if not isinstance(mention, dict):
            raise InvalidInput("a mention is {'entity', 'name', 'kind'}")
        inner = _Fields(mention, fields.export)
        mentions.append(
            (inner.entity(mention.get("entity")), inner.string("name"), inner.string("kind"))
        )
    sources = fields.messages("derived_from")
    if any(
        not set(message.participants) <= set(fields.keys[s].message.participants) for s in sources
    ):
        raise InvalidInput("derived_from names messages its participants may not see")
    record = MessageRecord(
        message=message,
        position=validate.integer(fields.get("position"), "position", 0, validate.MAX_ID),
        stored_at=fields.at("stored_at"),
        updated_at=fields.time("updated_at", required=False),
        sources=sources,
        mentions=tuple(mentions),
    )
    fields.export.messages.append(record)
    fields.keys[key] = record


def _claim(fields: _Fields) -> None:
    said_in = fields.message(fields.get("message"))
    if fields.audience() != set(said_in.message.participants):
        raise InvalidInput("a claim's audience must be that of its message")
    if fields.at("said_at") != said_in.message.time:
        raise InvalidInput("a claim's said_at must be its message's time")
    attribute = fields.string("attribute")
    if not known(attribute):
        raise InvalidInput(f"unknown attribute {attribute!r}")
    fields.export.claims.append(
        ClaimRecord(
            message=said_in.message.key or "",
            subject=fields.string("subject"),
            attribute=attribute,
            value=fields.string("value"),
            value_key=fields.string("value_key"),
            negated=validate.flag(fields.get("negated"), "negated"),
            statement=fields.string("statement"),
            origin=fields.string("origin"),
            recorded_at=fields.at("recorded_at"),
            emphatic=validate.flag(fields.get("emphatic"), "emphatic"),
        )
    )


def _diary(fields: _Fields) -> None:
    audience = fields.audience()
    sources = fields.messages("sources")
    if any(not audience <= set(fields.keys[s].message.participants) for s in sources):
        raise InvalidInput("a diary entry's sources must be visible to its whole audience")
    into = fields.get("compressed_into", required=False)
    if into is not None:
        inner = _Fields(into, fields.export) if isinstance(into, dict) else None
        if inner is None:
            raise InvalidInput("compressed_into is {'kind', 'key', 'level'} or null")
        into = (
            inner.string("kind"),
            inner.string("key"),
            validate.integer(inner.get("level"), "level", 0, 1000),
        )
    fields.export.diary.append(
        DiaryRecord(
            kind=validate.choice(fields.get("kind"), "kind", diary.KINDS),
            key=fields.string("key"),
            level=validate.integer(fields.get("level"), "level", 0, 1000),
            text=fields.string("text"),
            start=fields.at("start"),
            end=fields.at("end"),
            audience=audience,
            sources=sources,
            origin=fields.string("origin"),
            created_at=fields.at("created_at"),
            compressed_into=into,
        )
    )


def _alias(fields: _Fields) -> None:
    taught_by = fields.get("message", required=False)
    audience = fields.audience()
    if taught_by is not None:
        taught_by = fields.message(taught_by).message
        if audience != set(taught_by.participants):
            raise InvalidInput("an alias's audience must be that of the message that taught it")
    fields.export.aliases.append(
        AliasRecord(
            fields.string("speaker"),
            fields.string("alias"),
            audience,
            None if taught_by is None else taught_by.key,
            fields.entity(fields.get("entity")),
        )
    )


def _association(fields: _Fields) -> None:
    fields.export.associations.append(
        AssociationRow(
            audience=fields.audience(),
            a=fields.entity(fields.get("a")),
            b=fields.entity(fields.get("b")),
            weight=validate.number(fields.get("weight"), "weight", 0.0, 1e12),
            updated_at=fields.at("updated_at"),
        )
    )


def _reinforcement(fields: _Fields) -> None:
    entities = validate.listed(fields.get("entities"), "entities", "entities", None)
    fields.export.reinforcements.append(
        ReinforcementRecord(
            audience=fields.audience(),
            entities=tuple(fields.entity(e) for e in entities),
            amount=validate.number(fields.get("amount"), "amount", 0.0, 1e12),
            at=fields.at("at"),
            sources=fields.messages("sources"),
        )
    )


def _conversation(fields: _Fields) -> None:
    fields.export.conversations.append(
        Conversation(
            id=validate.name(fields.get("id"), "id"),
            participants=fields.audience("participants"),
            started_at=fields.at("started_at"),
            last_at=fields.at("last_at"),
            messages=validate.integer(fields.get("messages"), "messages", 0, validate.MAX_ID),
        )
    )


def _jobs(fields: _Fields) -> None:
    positions = fields.get("positions")
    if not isinstance(positions, dict):
        raise InvalidInput("positions must be an object: job -> message key or null")
    fields.export.positions = {
        str(job): None if key is None else fields.message(key).message.key
        for job, key in positions.items()
    }
    fields.export.sleep_clock = fields.time("sleep_clock")


def _audience(fields: _Fields) -> None:
    fields.export.audiences.append(fields.audience("participants"))


def _entity(fields: _Fields) -> None:
    ref = (fields.string("key"), validate.integer(fields.get("sense"), "sense", 0, validate.MAX_ID))
    if ref in fields.export.named:
        raise InvalidInput(f"entity {list(ref)} has an entity record before it")
    fields.export.entities.append(ref)
    fields.export.named.add(ref)


READERS: dict[str, Callable[[_Fields], None]] = {
    "audience": _audience,
    "entity": _entity,
    "message": _message,
    "claim": _claim,
    "diary": _diary,
    "alias": _alias,
    "association": _association,
    "reinforcement": _reinforcement,
    "conversation": _conversation,
    "jobs": _jobs,
}


def header(line: str) -> Header:
    """The header of an export's first line; InvalidInput when it is none."""
    return _header(json_object(line))


def read(lines: Iterable[str]) -> Export:
    """An export read whole: the header line, then records of the types in READERS (a
    record refers only to those before it)."""
    export: Export | None = None
    number = 0
    for number, line in enumerate(lines, start=1):
        try:
            if export is None:
                export = Export(header(line))
            elif line.strip():
                record = json_object(line)
                kind = record.get("type")
                if kind not in READERS:
                    raise InvalidInput(f"unknown record type {validate.shown(kind)}")
                READERS[kind](_Fields(record, export))
        except InvalidInput as exc:
            raise InvalidInput(f"line {number}: {exc}") from None
    if export is None:
        raise InvalidInput("line 1: not a Kuzya export: the file is empty")
    entries = {(d.kind, d.key, d.level, d.audience) for d in export.diary}
    for d in export.diary:
        if d.compressed_into is not None and (*d.compressed_into, d.audience) not in entries:
            raise InvalidInput(
                f"diary entry {d.kind} {d.key!r} is compressed into {list(d.compressed_into)}, "
                "which no diary record of its audience is"
            )
    return export
