"""Domain values: frozen dataclasses passed between the engine, its ports and its users."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from kuzya.language.days import day_name, span_label, span_note
from kuzya.language.text import ANAPHORA, tokens


class Kind(StrEnum):
    """What a recalled item is. Episodes are raw messages; later layers derive the rest."""

    EPISODE = "episode"
    FACT = "fact"
    DIARY = "diary"


@dataclass(frozen=True)
class Attachment:
    """Something shared with a message; Kuzya keeps its textual description."""

    kind: str  # "image", "file", ...
    caption: str
    url: str | None = None


def with_captions(text: str, attachments: tuple[Attachment, ...]) -> str:
    """Text followed by attachment captions: what is embedded, indexed and recalled."""
    if not attachments:
        return text
    shared = " ".join(f"[shared {a.kind}: {a.caption}]" for a in attachments)
    return f"{text} {shared}".strip()


@dataclass(frozen=True)
class Message:
    """One message to remember: who said what, where, when, and who heard it."""

    text: str
    speaker: str
    conversation: str
    participants: tuple[str, ...]
    time: datetime
    attachments: tuple[Attachment, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    # memories this message was made from (an assistant's reply: what was in its prompt);
    # forgetting any of them forgets the message too
    derived_from: tuple[int, ...] = ()
    # a stable key (an imported line's id): a message whose key the namespace already
    # holds is not stored again
    key: str | None = None

    @property
    def content(self) -> str:
        return with_captions(self.text, self.attachments)


@dataclass(frozen=True)
class Span:
    """What a phrase refers to: the days from `start` (inclusive) to `end` (exclusive)."""

    phrase: str
    start: datetime
    end: datetime

    def label(self, russian: bool = False) -> str:
        """The days in words: "3 August 2026", "August 2026", "2026", or a range."""
        return span_label(self.start, self.end, russian)

    def note(self) -> str | None:
        """The note "phrase = date" for a phrase that needs it, else None."""
        return span_note(self.phrase, self.start, self.end)


PETS = {"dog", "cat", "puppy", "kitten", "horse", "parrot", "hamster", "rabbit"}


@dataclass(frozen=True)
class Mention:
    """A name in a message: as written, its key, and what the text says it is."""

    name: str
    key: str
    relation: str | None = None  # "brother", "dog", ... from "my brother Leo"

    @property
    def kind(self) -> str:
        if self.relation in PETS:
            return "pet"
        return "person" if self.relation else "name"


@dataclass(frozen=True)
class Entity:
    """A person, pet, place or thing the memories mention, under its canonical name."""

    id: int
    key: str
    name: str
    kind: str
    mentions: int
    aliases: frozenset[str] = frozenset()
    sense: int = 0  # 1, 2, ... for other entities that share the name


@dataclass(frozen=True)
class EntityChange:
    """A merge (or the split that undid one), kept in the entity history."""

    id: int
    event: str  # "MERGE" | "SPLIT"
    entity_id: int  # the entity that absorbed the other, or the one split out again
    name: str  # the name that was merged in or split out
    reason: str
    at: datetime


@dataclass(frozen=True)
class Conversation:
    """A session: everyone who took part in it and when it ran."""

    id: str
    participants: frozenset[str]
    started_at: datetime
    last_at: datetime
    messages: int


@dataclass(frozen=True)
class Episode:
    """A stored message (the raw record) with its audience and times.

    `said_at` is when it was said in the world, `stored_at` when Kuzya recorded it.
    The audience is everyone allowed to see it; recall for a group returns a record
    only if every present participant is in its audience.
    """

    id: int
    namespace: str
    conversation: str
    position: int  # order within the conversation, from 0
    speaker: str
    text: str
    said_at: datetime
    stored_at: datetime
    audience: frozenset[str]
    attachments: tuple[Attachment, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    updated_at: datetime | None = None
    events: tuple[Span, ...] = ()  # time expressions of the text, resolved

    @property
    def content(self) -> str:
        """Text with attachment captions, as indexed and as shown in recall."""
        return with_captions(self.text, self.attachments)

    def retold(self, text: str) -> Message:
        """The message this episode stores, with another text (an update, a redaction)."""
        return Message(
            text=text,
            speaker=self.speaker,
            conversation=self.conversation,
            participants=tuple(sorted(self.audience)),
            time=self.said_at,
            attachments=self.attachments,
            metadata=self.metadata,
        )


def is_assistant(said: Episode | Message) -> bool:
    """The assistant's own replies state no facts about anyone (sleep jobs skip them)."""
    return said.metadata.get("role") == "assistant"


@dataclass(frozen=True)
class Fact:
    """A statement about a subject with the times of a bi-temporal record, as seen by a
    set of people: folded from the claims of the messages they may see
    (`kuzya.facts.view`).

    `valid_from` / `valid_to` say when it was true in the world (a newer contradicting
    statement closes `valid_to`, and `ended_by` names its memory); `recorded_at` when
    Kuzya learned it. `strength` counts the messages that stated it; `sources` are their
    episode ids, and the audience is the intersection of theirs. `confidence` grows with
    every statement, twice as fast for one said as a habit ("I always order ramen"): the
    weight w of the statements gives w / (w + 1), so 0.5 for one plain statement and 0.94
    for fifteen. The id is that of the claim that opened it.
    """

    id: int
    subject: str
    attribute: str
    value: str
    statement: str
    category: str
    priority: int
    audience: frozenset[str]
    strength: int
    confidence: float
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    sources: tuple[int, ...]
    origin: str  # "rules" or "llm:<model>"
    ended_by: int | None = None

    @property
    def current(self) -> bool:
        return self.valid_to is None

    def dated(self) -> str:
        """The statement with the time it held: "since 10 March 2026" or "until ..."."""
        start = self.valid_from.strftime("%d %B %Y").lstrip("0")
        if self.valid_to is None:
            return f"{self.statement} (since {start})"
        end = self.valid_to.strftime("%d %B %Y").lstrip("0")
        return f"{self.statement} (from {start} until {end}; no longer true)"


@dataclass(frozen=True)
class DiaryEntry:
    """A summary of a conversation, a day or a period, with the episodes it covers.

    `level` 0 summarises episodes; a higher level summarises diary entries again
    (compression of old memories)."""

    id: int
    kind: str  # "conversation" | "day" | "period"
    key: str  # the conversation id, or the day / period it covers
    text: str
    level: int
    start: datetime
    end: datetime
    audience: frozenset[str]
    sources: tuple[int, ...]  # episode ids
    origin: str  # "extractive" or "llm:<model>"
    created_at: datetime


@dataclass(frozen=True)
class HistoryEvent:
    """One change to a memory, as kept in the audit log."""

    memory_id: int
    event: str  # "ADD" | "UPDATE" | "DELETE" | "FORGET" (redacted: no earlier text kept)
    old_text: str | None
    new_text: str | None
    at: datetime
    actor: str | None = None


@dataclass(frozen=True)
class RecallItem:
    """One recalled memory with its score and provenance."""

    id: int
    kind: Kind
    text: str
    score: float
    speaker: str
    conversation: str
    said_at: datetime
    stored_at: datetime
    sources: tuple[int, ...]  # episode ids whose content this item states
    events: tuple[Span, ...] = ()  # resolved time expressions of the text
    assistant: bool = False  # one of the assistant's own replies (`is_assistant`)
    position: int | None = None  # a message's place in its conversation

    @classmethod
    def of_episode(cls, episode: Episode, score: float) -> RecallItem:
        return cls(
            id=episode.id,
            kind=Kind.EPISODE,
            text=episode.content,
            score=round(score, 6),
            speaker=episode.speaker,
            conversation=episode.conversation,
            said_at=episode.said_at,
            stored_at=episode.stored_at,
            sources=(episode.id,),
            events=episode.events,
            assistant=is_assistant(episode),
            position=episode.position,
        )

    @classmethod
    def of_fact(cls, fact: Fact, score: float = 1.0, *, dated: bool = True) -> RecallItem:
        """A fact as a note: its statement, `dated` with the time it held."""
        text = fact.dated() if dated else fact.statement
        return cls(fact.id, Kind.FACT, text, round(score, 6), "", "", fact.valid_from,
                   fact.recorded_at, fact.sources)  # fmt: skip

    @classmethod
    def of_diary(cls, entry: DiaryEntry, score: float) -> RecallItem:
        conversation = entry.key if entry.kind == "conversation" else ""
        return cls(entry.id, Kind.DIARY, f"(diary) {entry.text}", round(score, 6), "",
                   conversation, entry.start, entry.created_at, entry.sources)  # fmt: skip

    @property
    def words(self) -> int:
        return len(self.line().split())

    def dated_text(self) -> str:
        """The text followed by the dates its time expressions mean, each once, and only
        those neither a date already nor noted in the text (a reply quoting a note), nor
        a period that a more precise one inside it narrows ("в мае сдаю, шестнадцатого
        мая" notes the 16th only)."""
        notes = (e.note() for e in self.events if not _narrowed(e, self.events))
        dates = "; ".join(dict.fromkeys(n for n in notes if n and n not in self.text))
        return f"{self.text} ({dates})" if dates else self.text

    def line(self) -> str:
        """The item as it appears in a prompt: who said it, what, and the dates it means."""
        return f"{self.speaker}: {self.dated_text()}" if self.speaker else self.dated_text()


def _narrowed(span: Span, spans: Sequence[Span]) -> bool:
    return any(
        span.start <= other.start and other.end <= span.end and other.end - other.start
        < span.end - span.start for other in spans
    )  # fmt: skip


def _points_back(item: RecallItem) -> bool:
    words = tokens(item.text.lstrip("… "))
    return bool(words) and words[0].split("'")[0] in ANAPHORA  # "he's" is "he"


def _after_antecedents(items: list[RecallItem]) -> list[RecallItem]:
    """The notes with each one that starts by pointing back ("He's a sound engineer",
    "Её муж Ренат — повар") moved right after the message said just before it, when that
    one is among them: read apart, "he" names no one."""
    at = {(i.conversation, i.position): i for i in items if i.position is not None}

    def follows(item: RecallItem) -> RecallItem | None:
        if item.position is None or not _points_back(item):
            return None
        return at.get((item.conversation, item.position - 1))

    pairs = [(item, before) for item in items if (before := follows(item)) is not None]
    moved = {id(item) for item, _ in pairs}
    ordered = [item for item in items if id(item) not in moved]
    # by position, so a chain ("He's ...", "His wife ...") keeps its order
    for item, before in sorted(pairs, key=lambda pair: pair[0].position or 0):
        ordered.insert(ordered.index(before) + 1, item)
    return ordered


@dataclass(frozen=True)
class Recall:
    """The result of a recall: ranked items packed into a word budget."""

    query: str
    items: tuple[RecallItem, ...]
    now: datetime

    def __iter__(self) -> Iterator[RecallItem]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def words(self) -> int:
        return sum(item.words for item in self.items)

    def as_prompt(self) -> str:
        """Memory context for a prompt: facts first, then the rest in time order, by day."""
        if not self.items:
            return "(no relevant memories)"
        facts = [item for item in self.items if item.kind is Kind.FACT]
        lines = ["Known facts:", *(f"- {item.line()}" for item in facts)] if facts else []
        day = None
        rest = (item for item in self.items if item.kind is not Kind.FACT)
        for item in sorted(rest, key=lambda i: (i.said_at, i.id)):
            item_day = item.said_at.strftime("%A, %d %B %Y")
            if item_day != day:
                lines.append(f"[{item_day}]")
                day = item_day
            lines.append(f"- {item.line()}")
        return "\n".join(lines)

    def as_notes(self, russian: bool = False, in_time_order: bool = False) -> str:
        """Memory context next to a question for a small model: facts first, then the
        messages from the weakest match to the best, each with its day (in Russian for a
        Russian question), so the best sits right before the question (a small model reads
        what is nearest best). `in_time_order` puts them in the order they were said
        instead, the newest last, for a question about what holds now."""
        facts = [item for item in self.items if item.kind is Kind.FACT]
        known = "Известно:" if russian else "Known facts:"
        lines = [known, *(f"- {item.line()}" for item in facts)] if facts else []
        rest = [item for item in reversed(self.items) if item.kind is not Kind.FACT]
        if in_time_order:
            rest.sort(key=lambda item: item.said_at)
        for item in _after_antecedents(rest):
            lines.append(f"- [{day_name(item.said_at, russian, short=True)}] {item.line()}")
        return "\n".join(lines) if lines else "(no relevant memories)"
