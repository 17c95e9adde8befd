"""What the service holds while it runs: one store and the models, shared by every
namespace, and per namespace its `Memory`, its assistant and its sleep worker."""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from kuzya import validate
from kuzya.assistant import Assistant
from kuzya.embed import load_embedder
from kuzya.images import Describer, ImageFolder, VisionDescriber, describe_tool
from kuzya.llm import is_small
from kuzya.memory import Memory
from kuzya.service.settings import ServiceSettings
from kuzya.store.base import Store
from kuzya.store.keys import KeyStore
from kuzya.store.opening import is_url, open_store
from kuzya.tools import MEMORY_TOOLS, Toolbox

if TYPE_CHECKING:  # the queue is PostgreSQL's: procrastinate comes with kuzya[postgres]
    import procrastinate


STRIPES = 64  # locks that keep each conversation's replies one at a time


@dataclass
class Space:
    """One namespace as the service serves it: conversations are answered at once, each
    conversation's turns one at a time (a turn is remembered before the next)."""

    memory: Memory
    assistant: Assistant
    stripes: tuple[threading.Lock, ...] = field(
        default_factory=lambda: tuple(threading.Lock() for _ in range(STRIPES))
    )

    def replying(self, conversation: str) -> threading.Lock:
        return self.stripes[zlib.crc32(conversation.encode()) % STRIPES]


class Engine:
    """`background`: each namespace is consolidated as messages arrive, in-process with
    SQLite (or when `sleep_queue` is off), else through the queue `kuzya worker` runs.
    A worker's own engine has none (it runs the consolidation)."""

    def __init__(self, settings: ServiceSettings, *, background: bool = True) -> None:
        self.settings = settings
        location = settings.store
        if not is_url(location):
            Path(location).parent.mkdir(parents=True, exist_ok=True)
        self.store: Store = open_store(location, durable=settings.durable, create=True)
        self.background = background
        self.queue: procrastinate.App | None = None
        self._lock = threading.Lock()
        self._spaces: dict[str, Space] = {}
        try:
            self.embedder = load_embedder(settings.embedder)
            self.llm = settings.load_llm(settings.llm)
            self.sleep_llm = (
                self.llm
                if settings.sleeps_with == settings.llm
                else settings.load_llm(settings.sleeps_with)
            )
            self.images = ImageFolder(settings.images_dir)
            vision = settings.vision
            self.describer: Describer | None = None if vision is None else VisionDescriber(vision)
            if background and is_url(location) and settings.sleep_queue:
                from kuzya.sleep.queue import ensure_schema, queue_app

                self.queue = queue_app(str(location))
                self.queue.open()
                ensure_schema(self.queue, str(location))
        except BaseException:
            self.close()
            raise

    @property
    def keys(self) -> KeyStore:
        return cast(KeyStore, self.store)

    def space(self, namespace: str) -> Space:
        """The namespace's memory and assistant, made on first use."""
        name = validate.name(namespace, "namespace")
        with self._lock:
            if name not in self._spaces:
                memory = Memory(self.store, self.embedder, namespace=name, llm=self.sleep_llm)
                idle = self.settings.sleep_idle_seconds
                if self.queue is not None:
                    from kuzya.sleep.queue import QueuedSleep

                    memory.consolidate_through(QueuedSleep(self.queue, name, idle))
                elif self.background:
                    memory.start_worker(every=self.settings.sleep_every, idle_seconds=idle)
                assistant = Assistant(
                    memory,
                    self.llm,
                    name=self.settings.assistant_name,
                    tools=Toolbox((*MEMORY_TOOLS, describe_tool(self.images, self.describer)))
                    if self.settings.tools
                    else None,
                    max_steps=self.settings.max_tool_steps,
                    small_model=is_small(self.llm),
                )
                self._spaces[name] = Space(memory, assistant)
            return self._spaces[name]

    def close(self) -> None:
        """Remember the last turns, let each worker finish, then close the store."""
        with self._lock:
            spaces, self._spaces = list(self._spaces.values()), {}
        try:
            for space in spaces:
                space.assistant.close()
                if space.memory.worker is not None:
                    space.memory.worker.stop()
        finally:
            self.store.close()
            if self.queue is not None:
                self.queue.close()
