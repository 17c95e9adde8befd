"""`/v1/…`: memories (add, search, list, get, update, delete, history), conversations,
facts, profiles and the diary, each as the people present may see them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, HTTPException, Query, Request, UploadFile

from kuzya.errors import NotFound
from kuzya.images import MAX_IMAGE_BYTES, read_image, remember_image
from kuzya.memory import Memory
from kuzya.model import Episode
from kuzya.service.access import Caller, caller, present
from kuzya.service.engine import Engine
from kuzya.service.schemas import (
    ConversationOut,
    Deleted,
    DiaryOut,
    FactOut,
    HistoryOut,
    MemoryIn,
    MemoryItem,
    MemoryOut,
    ProfileOut,
    SearchIn,
    UpdateIn,
)

router = APIRouter(prefix="/v1", tags=["memories"])

Who = Annotated[Caller, Depends(caller)]
UserId = Annotated[str | None, Query(min_length=1, max_length=200)]
People = Annotated[list[str] | None, Query(max_length=1000)]


def _present(
    who: Who, user_id: UserId = None, participants: People = None
) -> tuple[str, list[str]]:
    """Who asks and who is present, from the query (`user_id`, `participants`)."""
    return present(who, user_id, participants)


Seen = Annotated[tuple[str, list[str]], Depends(_present)]


def _memory(request: Request, who: Caller) -> Memory:
    engine: Engine = request.app.state.engine
    return engine.space(who.namespace).memory


def _visible(memory: Memory, people: list[str], memory_id: int) -> Episode:
    """The memory if everyone present may see it; else 404, as if it did not exist."""
    scope = memory.store.scope(memory.namespace, people)
    found = memory.store.fetch(scope, [memory_id]) if 0 < memory_id < 2**63 else []
    if not found:
        raise NotFound(f"no memory {memory_id}")
    return found[0]


def _own(memory: Memory, people: list[str], asker: str, memory_id: int) -> Episode:
    episode = _visible(memory, people, memory_id)
    if episode.speaker != asker:
        raise HTTPException(403, f"memory {memory_id} was said by someone else")
    return episode


@router.post("/memories", status_code=201)
def add(body: MemoryIn, request: Request, who: Who) -> MemoryOut:
    """Remember a message said by the user to those present."""
    asker, people = present(who, body.user_id, body.participants)
    memory, conversation = _memory(request, who), body.conversation or f"user:{asker}"
    if not body.images:
        episode = memory.remember(
            body.text, speaker=asker, conversation=conversation, participants=people,
            time=body.time, metadata=body.metadata,
        )  # fmt: skip
        return MemoryOut.of(episode)
    engine: Engine = request.app.state.engine
    pictures = [(read_image(p.data), p.caption) for p in body.images]  # all checked first
    stored = [
        remember_image(
            memory,
            engine.images,
            picture,
            speaker=asker,
            participants=people,
            conversation=conversation,
            text=body.text if n == 0 else "",
            caption=caption,
            describer=engine.describer,
            time=body.time,
        )
        for n, (picture, caption) in enumerate(pictures)
    ]
    return MemoryOut.of(stored[0])


@router.post("/images", status_code=201)
def upload(
    request: Request,
    who: Who,
    file: Annotated[UploadFile, File(description="The image: PNG, JPEG, GIF or WebP.")],
    user_id: Annotated[str | None, Form(min_length=1, max_length=200)] = None,
    participants: Annotated[list[str] | None, Form()] = None,
    conversation: Annotated[str | None, Form(min_length=1, max_length=200)] = None,
    text: Annotated[str, Form(max_length=32_000)] = "",
    caption: Annotated[str | None, Form(max_length=2000)] = None,
) -> MemoryOut:
    """Remember an uploaded image (multipart form), described by the vision model or by
    its caption, sent by the user to those present."""
    asker, people = present(who, user_id, participants)
    engine: Engine = request.app.state.engine
    episode = remember_image(
        _memory(request, who), engine.images, read_image(file.file.read(MAX_IMAGE_BYTES + 1)),
        speaker=asker, participants=people, conversation=conversation or f"user:{asker}",
        text=text, caption=caption, describer=engine.describer,
    )  # fmt: skip
    return MemoryOut.of(episode)


@router.post("/memories/search")
def search(body: SearchIn, request: Request, who: Who) -> list[MemoryItem]:
    """The memories best matching the query that everyone present may see."""
    asker, people = present(who, body.user_id, body.participants)
    found = _memory(request, who).recall(
        body.query,
        participants=people,
        speaker=asker,
        conversation=body.conversation,
        limit=body.limit,
        budget_words=None,
    )
    return [MemoryItem.of(item) for item in found.items]


@router.get("/memories")
def listing(
    request: Request,
    who: Who,
    seen: Seen,
    conversation: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=2**62)] = 0,
) -> list[MemoryOut]:
    """Memories in time order that everyone present may see."""
    _, people = seen
    episodes = _memory(request, who).get_all(
        participants=people, conversation=conversation, limit=limit, offset=offset
    )
    return [MemoryOut.of(e) for e in episodes]


@router.get("/memories/{memory_id}")
def get(memory_id: int, request: Request, who: Who, seen: Seen) -> MemoryOut:
    _, people = seen
    return MemoryOut.of(_visible(_memory(request, who), people, memory_id))


@router.put("/memories/{memory_id}")
def update(memory_id: int, body: UpdateIn, request: Request, who: Who) -> MemoryOut:
    """Replace the text of a memory the user said; the old text stays in its history."""
    asker, people = present(who, body.user_id, body.participants)
    memory = _memory(request, who)
    _own(memory, people, asker, memory_id)
    return MemoryOut.of(memory.update(memory_id, body.text, actor=asker))


@router.delete("/memories/{memory_id}")
def delete(memory_id: int, request: Request, who: Who, seen: Seen) -> Deleted:
    """Forget a memory the user said, and everything made from it."""
    asker, people = seen
    memory = _memory(request, who)
    _own(memory, people, asker, memory_id)
    memory.delete(memory_id, actor=asker)
    engine: Engine = request.app.state.engine
    engine.images.sweep(memory)  # an image it held leaves the disk too
    return Deleted(id=memory_id)


@router.get("/memories/{memory_id}/history")
def history(memory_id: int, request: Request, who: Who, seen: Seen) -> list[HistoryOut]:
    _, people = seen
    memory = _memory(request, who)
    _visible(memory, people, memory_id)
    return [HistoryOut.of(e) for e in memory.history(memory_id, participants=people)]


@router.get("/conversations")
def conversations(request: Request, who: Who, seen: Seen) -> list[ConversationOut]:
    """Conversations everyone present took part in, most recent first."""
    _, people = seen
    found = _memory(request, who).conversations(participants=people)
    return [ConversationOut.of(c) for c in found]


@router.get("/profile/{subject}")
def profile(subject: str, request: Request, who: Who, seen: Seen) -> ProfileOut:
    """What is known now about `subject`, as those present may see it."""
    _, people = seen
    return ProfileOut.of(subject, _memory(request, who).profile(subject, participants=people))


@router.get("/facts")
def facts(
    request: Request,
    who: Who,
    seen: Seen,
    subject: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    include_past: bool = False,
) -> list[FactOut]:
    _, people = seen
    found = _memory(request, who).facts(
        subject=subject, participants=people, include_past=include_past
    )
    return [FactOut.of(f) for f in found]


@router.get("/diary")
def diary(
    request: Request,
    who: Who,
    seen: Seen,
    kind: Annotated[str | None, Query(pattern="^(conversation|day|period)$")] = None,
) -> list[DiaryOut]:
    _, people = seen
    entries = _memory(request, who).diary(participants=people, kind=kind)
    return [DiaryOut.of(e) for e in entries]
