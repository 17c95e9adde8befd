"""What the service reads and writes: request bodies and replies, as OpenAPI shows them.
Lengths are bounded here; the engine's own checks (`kuzya.validate`) say the rest."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kuzya.facts.profile import Profile
from kuzya.model import Conversation, DiaryEntry, Episode, Fact, HistoryEvent, RecallItem
from kuzya.validate import MAX_MESSAGE_CHARS, MAX_NAME_CHARS, MAX_PARTICIPANTS

Name = Field(min_length=1, max_length=MAX_NAME_CHARS)
Text = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Present(Strict):
    """Who is asking and who else is present: memories are shown only if every one of
    them could see them. Without `participants`, the user alone is present."""

    user_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)
    participants: list[str] | None = Field(default=None, max_length=MAX_PARTICIPANTS)


class ImageIn(Strict):
    """An image sent along: base64 or a data: URL (PNG, JPEG, GIF, WebP)."""

    data: str = Field(min_length=1, max_length=16 * 1024 * 1024)
    caption: str | None = Field(default=None, max_length=2000)  # the sender's own words


class AskRequest(Present):
    message: str = Text
    session_id: str = Name  # the conversation; without user_id, also the person
    time: datetime | None = None  # when it was said (default: now)
    images: list[ImageIn] = Field(default_factory=list, max_length=8)


class MemoryItem(BaseModel):
    """A memory a reply or search used, with where it came from."""

    id: int
    kind: str
    text: str
    score: float
    speaker: str
    conversation: str
    said_at: datetime
    sources: list[int]  # the messages it states
    assistant: bool

    @classmethod
    def of(cls, item: RecallItem) -> MemoryItem:
        return cls(
            id=item.id, kind=str(item.kind), text=item.text, score=round(item.score, 6),
            speaker=item.speaker, conversation=item.conversation, said_at=item.said_at,
            sources=list(item.sources), assistant=item.assistant,
        )  # fmt: skip


class ToolCallOut(BaseModel):
    name: str
    arguments: dict[str, Any]


class AskReply(BaseModel):
    reply: str
    session_id: str
    user_id: str
    images: list[MemoryOut] = Field(default_factory=list)  # the images sent, as remembered
    memories: list[MemoryItem]
    tool_calls: list[ToolCallOut]
    confirm: str | None = None  # a tool that acts waits for a yes: the question asked
    seconds: float
    prompt_tokens: int
    completion_tokens: int


class MemoryIn(Present):
    text: str = Text
    conversation: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)
    time: datetime | None = None
    metadata: dict[str, Any] | None = None
    images: list[ImageIn] = Field(default_factory=list, max_length=8)  # each its own memory


class SearchIn(Present):
    query: str = Text
    limit: int = Field(default=10, ge=1, le=100)
    conversation: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)


class UpdateIn(Present):
    text: str = Text


class ImageOut(BaseModel):
    description: str
    sha256: str | None
    bytes: int | None


class MemoryOut(BaseModel):
    id: int
    text: str
    speaker: str
    conversation: str
    position: int
    participants: list[str]
    said_at: datetime
    stored_at: datetime
    updated_at: datetime | None
    metadata: dict[str, Any]
    images: list[ImageOut] = Field(default_factory=list)

    @classmethod
    def of(cls, episode: Episode) -> MemoryOut:
        image = episode.metadata.get("image") if isinstance(episode.metadata, dict) else None
        facts = image if isinstance(image, dict) else {}
        images = [
            ImageOut(description=a.caption, sha256=facts.get("sha256"), bytes=facts.get("bytes"))
            for a in episode.attachments
            if a.kind == "image"
        ]
        return cls(
            id=episode.id, text=episode.text, speaker=episode.speaker,
            conversation=episode.conversation, position=episode.position,
            participants=sorted(episode.audience), said_at=episode.said_at,
            stored_at=episode.stored_at, updated_at=episode.updated_at,
            metadata=dict(episode.metadata), images=images,
        )  # fmt: skip


class HistoryOut(BaseModel):
    memory_id: int
    event: str
    old_text: str | None
    new_text: str | None
    at: datetime
    actor: str | None

    @classmethod
    def of(cls, event: HistoryEvent) -> HistoryOut:
        return cls(
            memory_id=event.memory_id, event=event.event, old_text=event.old_text,
            new_text=event.new_text, at=event.at, actor=event.actor,
        )  # fmt: skip


class ConversationOut(BaseModel):
    id: str
    participants: list[str]
    started_at: datetime
    last_at: datetime
    messages: int

    @classmethod
    def of(cls, conversation: Conversation) -> ConversationOut:
        return cls(
            id=conversation.id, participants=sorted(conversation.participants),
            started_at=conversation.started_at, last_at=conversation.last_at,
            messages=conversation.messages,
        )  # fmt: skip


class FactOut(BaseModel):
    id: int
    subject: str
    attribute: str
    value: str
    statement: str
    category: str
    valid_from: datetime
    valid_to: datetime | None
    confidence: float
    sources: list[int]
    origin: str

    @classmethod
    def of(cls, fact: Fact) -> FactOut:
        return cls(
            id=fact.id, subject=fact.subject, attribute=fact.attribute, value=fact.value,
            statement=fact.statement, category=fact.category, valid_from=fact.valid_from,
            valid_to=fact.valid_to, confidence=round(fact.confidence, 6),
            sources=list(fact.sources), origin=fact.origin,
        )  # fmt: skip


class ProfileOut(BaseModel):
    subject: str
    facts: list[FactOut]
    text: str  # the profile as a prompt reads it

    @classmethod
    def of(cls, subject: str, profile: Profile) -> ProfileOut:
        facts = [FactOut.of(f) for f in profile.facts]
        return cls(subject=subject, facts=facts, text=profile.as_prompt())


class DiaryOut(BaseModel):
    id: int
    kind: str
    key: str
    text: str
    start: datetime
    end: datetime
    sources: list[int]
    origin: str

    @classmethod
    def of(cls, entry: DiaryEntry) -> DiaryOut:
        return cls(
            id=entry.id, kind=entry.kind, key=entry.key, text=entry.text, start=entry.start,
            end=entry.end, sources=list(entry.sources), origin=entry.origin,
        )  # fmt: skip


class Deleted(BaseModel):
    id: int
    deleted: bool = True


class Health(BaseModel):
    status: str
    store: str
    embedder: str
    llm: str
    auth: str  # "keys" or "loopback, one namespace"


class ErrorOut(BaseModel):
    error: str
