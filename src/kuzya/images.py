"""Images people send: read (a file, base64 or a data: URL), described (by a vision model
served the OpenAI way, or the sender's own caption), remembered as a message whose
attachment carries the description, and kept as a file beside the store for as long as
that message exists.

"What was on the photo I sent on Monday?" then recalls it like any message: the
description is indexed with it, at the time it was sent."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from kuzya.entities.ner import is_russian
from kuzya.errors import InvalidInput, KuzyaError, NotFound
from kuzya.llm.base import LLM, ChatMessage
from kuzya.memory import Memory
from kuzya.model import Attachment, Episode
from kuzya.tools import Context, Output, ToolSpec

MAX_IMAGE_BYTES = 10 * 1024 * 1024
SCHEME = "kuzya-image:"  # an attachment's url: the file is the store's own
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png", "png"),
    (b"\xff\xd8\xff", "image/jpeg", "jpg"),
    (b"GIF87a", "image/gif", "gif"),
    (b"GIF89a", "image/gif", "gif"),
)
_DATA_URL = re.compile(r"data:(image/[\w.+-]+)?(;base64)?,", re.IGNORECASE)


@dataclass(frozen=True)
class Image:
    data: bytes
    mime: str
    extension: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode()}"


def image(data: bytes) -> Image:
    """The image these bytes are (PNG, JPEG, GIF or WebP), or `InvalidInput`."""
    if not data:
        raise InvalidInput("the image is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise InvalidInput(f"the image is {len(data)} bytes; at most {MAX_IMAGE_BYTES} are taken")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return Image(data, "image/webp", "webp")
    for signature, mime, extension in _SIGNATURES:
        if data.startswith(signature):
            return Image(data, mime, extension)
    raise InvalidInput("not an image Kuzya reads (PNG, JPEG, GIF or WebP)")


def read_image(source: str | Path | bytes) -> Image:
    """An image from its bytes, a file path, a data: URL or base64 text."""
    if isinstance(source, bytes):
        return image(source)
    if isinstance(source, Path):
        try:
            return image(source.read_bytes())
        except OSError as exc:
            raise InvalidInput(f"cannot read image {source}: {exc.strerror or exc}") from None
    text = source.strip()
    if (found := _DATA_URL.match(text)) is not None:
        if not found.group(2):
            raise InvalidInput("a data: URL of an image must be base64 (';base64,')")
        text = text[found.end() :]
    try:
        return image(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):
        raise InvalidInput("the image is neither base64 nor a data: URL") from None


class Describer(Protocol):
    """Says what an image shows."""

    name: str

    def describe(
        self, picture: Image, *, question: str | None = None, russian: bool = False
    ) -> str: ...


PROMPT = {
    False: "Describe this image in one or two plain sentences: what it shows, any text in it.",
    True: "Опиши изображение одним-двумя простыми предложениями: что на нём, какой на нём текст.",
}


class VisionDescriber:
    """A vision model served the OpenAI way (`image_url` content parts, as Ollama's
    llava or qwen2.5-vl take)."""

    def __init__(self, llm: LLM, max_tokens: int = 160) -> None:
        self.llm, self.max_tokens = llm, max_tokens
        self.name = llm.name

    def describe(
        self, picture: Image, *, question: str | None = None, russian: bool = False
    ) -> str:
        asked = question or PROMPT[russian]
        message = ChatMessage("user", asked, images=(picture.data_url,))
        text = self.llm.chat([message], max_tokens=self.max_tokens).text.strip()
        if not text:
            raise KuzyaError(f"{self.name} said nothing about the image")
        return text


NO_DESCRIBER = (
    "no vision model is configured to describe images and no caption was sent: send a "
    "caption with the image, or set KUZYA_VISION_MODEL (a vision model served the OpenAI "
    "way, e.g. Ollama's llava, at KUZYA_VISION_BASE_URL)"
)


class ImageFolder:
    """Image files beside the store, one per message that carries one:
    `<root>/<namespace digest>/<message id>.<extension>`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _folder(self, namespace: str) -> Path:
        return self.root / hashlib.sha256(namespace.encode()).hexdigest()[:16]

    def put(self, namespace: str, episode_id: int, picture: Image) -> Path:
        """Write the file whole (a crash leaves none half-written)."""
        folder = self._folder(namespace)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{episode_id}.{picture.extension}"
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(picture.data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path

    def find(self, namespace: str, episode_id: int) -> Path | None:
        return next(iter(sorted(self._folder(namespace).glob(f"{episode_id}.*"))), None)

    def sweep(self, memory: Memory) -> int:
        """Remove the files of messages that are gone (deleted, forgotten) or no longer
        carry their image; returns how many went."""
        removed = 0
        for path in sorted(self._folder(memory.namespace).glob("*")):
            number = path.stem
            try:
                kept = number.isdigit() and _carries_image(memory.get(int(number)))
            except NotFound:
                kept = False
            if not kept:
                path.unlink(missing_ok=True)
                removed += 1
        return removed


def _carries_image(episode: Episode) -> bool:
    return any(a.kind == "image" and (a.url or "").startswith(SCHEME) for a in episode.attachments)


def remember_image(
    memory: Memory,
    folder: ImageFolder,
    picture: Image,
    *,
    speaker: str,
    participants: Sequence[str],
    conversation: str,
    text: str = "",
    caption: str | None = None,
    describer: Describer | None = None,
    time: datetime | str | None = None,
) -> Episode:
    """Remember an image sent with `text` (may be empty): its description (the vision
    model's, else the sender's `caption`) goes into the message's attachment, its hash,
    size and type into the metadata, and the file beside the store."""
    russian = is_russian(f"{text} {caption or ''}")
    if describer is not None:
        description = describer.describe(picture, russian=russian)
        if caption and caption.strip():
            description = f"{description} ({caption.strip()})"
    elif caption and caption.strip():
        description = caption.strip()
    else:
        raise InvalidInput(NO_DESCRIBER)
    attachment = Attachment("image", description, f"{SCHEME}{picture.sha256}")
    episode = memory.remember(
        text.strip() or ("(фото)" if russian else "(photo)"),
        speaker=speaker,
        participants=participants,
        conversation=conversation,
        time=time,
        attachments=[attachment],
        metadata={"image": {"sha256": picture.sha256, "bytes": len(picture.data),
                            "type": picture.mime}},
    )  # fmt: skip
    folder.put(memory.namespace, episode.id, picture)
    return episode


class DescribeImage(BaseModel):
    """Look at an image someone sent (a memory whose text is "(photo)" or that shares an
    image): what it shows, or the answer to a question about it."""

    model_config = ConfigDict(extra="forbid")

    memory_id: int = Field(ge=1, description="The id of the memory that holds the image.")
    question: str | None = Field(default=None, description="What to find out about it.")


def describe_tool(folder: ImageFolder, describer: Describer | None) -> ToolSpec:
    """The `describe_image` tool: only images those present may see; without a vision
    model, the description stored when the image came."""

    def run(context: Context, arguments: DescribeImage) -> Output:
        memory = context.memory
        scope = memory.store.scope(memory.namespace, context.present)
        found = memory.store.fetch(scope, [arguments.memory_id])
        pictures = [a for e in found for a in e.attachments if a.kind == "image"]
        if not pictures:
            return Output(f"error: memory {arguments.memory_id} holds no image you may see")
        path = folder.find(memory.namespace, arguments.memory_id)
        if describer is None or path is None:
            return Output(pictures[0].caption, frozenset({arguments.memory_id}))
        text = describer.describe(read_image(path), question=arguments.question)
        return Output(text, frozenset({arguments.memory_id}))

    return ToolSpec("describe_image", DescribeImage, run)
