"""The hot path of `remember`, no LLM: what a message is analysed into before it is stored
(index terms, the dates its time expressions mean, the entities it mentions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kuzya import dates, entities
from kuzya.embed import Embedder
from kuzya.model import Message
from kuzya.store.base import EntityStore, NewEpisode
from kuzya.text import terms

Vectors = npt.NDArray[np.float32]  # one row per message


def analysed(message: Message, vector: Any, known: Mapping[str, str]) -> NewEpisode:
    """A message with its vector, terms, dates and the mentions of the names `known`
    (alias -> entity key) and of new ones."""
    return NewEpisode(
        message,
        vector,
        " ".join(terms(message.content)),
        tuple(dates.find(message.text, message.time)),
        tuple(entities.mentions(message.content, known)),
    )


def analysed_batch(
    store: EntityStore, namespace: str, messages: Sequence[Message], vectors: Vectors
) -> list[NewEpisode]:
    """Messages analysed in order. The names a message may resolve are those its own
    audience may see, and those taught by earlier messages of the batch that its audience
    may see too."""
    known: dict[tuple[str, frozenset[str]], dict[str, str]] = {}
    batch = []
    for message, vector in zip(messages, vectors, strict=True):
        audience = frozenset(message.participants)
        if (message.speaker, audience) not in known:
            known[message.speaker, audience] = store.gazetteer(
                namespace, message.speaker, sorted(audience)
            )
        new = analysed(message, vector, known[message.speaker, audience])
        batch.append(new)
        for (speaker, viewers), names in known.items():
            if not viewers <= audience:
                continue
            for mention in new.mentions:
                names.setdefault(mention.key, mention.key)
                if mention.relation and speaker == message.speaker:
                    names[f"my {mention.relation}"] = mention.key
    return batch


def analysed_one(
    store: EntityStore, embedder: Embedder, namespace: str, message: Message
) -> NewEpisode:
    """One message embedded and analysed as the hot path does (for a rewritten text)."""
    vector = embedder.embed([message.content])[0]
    known = store.gazetteer(namespace, message.speaker, message.participants)
    return analysed(message, vector, known)
