"""Kuzya: long-term memory for LLM assistants and agents, local-first."""

from kuzya.errors import (
    EmbedderError,
    InvalidInput,
    KuzyaError,
    LLMError,
    NotFound,
    StoreError,
)
from kuzya.memory import Memory
from kuzya.model import (
    Attachment,
    Conversation,
    DiaryEntry,
    Episode,
    Fact,
    HistoryEvent,
    Kind,
    Message,
    Recall,
    RecallItem,
)
from kuzya.recall.pipeline import RecallSettings

open = Memory.open  # kuzya.open("kuzya.db") or kuzya.open("postgresql://…")

__all__ = [
    "Attachment",
    "Conversation",
    "DiaryEntry",
    "EmbedderError",
    "Episode",
    "Fact",
    "HistoryEvent",
    "InvalidInput",
    "Kind",
    "KuzyaError",
    "LLMError",
    "Memory",
    "Message",
    "NotFound",
    "Recall",
    "RecallItem",
    "RecallSettings",
    "StoreError",
    "open",
]
