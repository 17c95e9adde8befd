"""Kuzya: long-term memory for LLM assistants and agents, local-first."""

from kuzya.errors import EmbedderError, InvalidInput, KuzyaError, NotFound, StoreError
from kuzya.memory import Memory
from kuzya.model import (
    Attachment,
    Conversation,
    Episode,
    HistoryEvent,
    Kind,
    Message,
    Recall,
    RecallItem,
)
from kuzya.recall import RecallSettings

__all__ = [
    "Attachment",
    "Conversation",
    "EmbedderError",
    "Episode",
    "HistoryEvent",
    "InvalidInput",
    "Kind",
    "KuzyaError",
    "Memory",
    "Message",
    "NotFound",
    "Recall",
    "RecallItem",
    "RecallSettings",
    "StoreError",
]
