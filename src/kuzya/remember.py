"""The hot path of `remember`, no LLM: what a message is analysed into before it is stored
(index terms, the dates its time expressions mean, the entities it mentions), and how
messages are committed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from kuzya.embed.base import Embedder
from kuzya.entities import mentions
from kuzya.errors import InvalidInput, NotFound
from kuzya.facts import rules
from kuzya.language import dates
from kuzya.language.text import terms
from kuzya.model import Episode, Message, is_assistant
from kuzya.store.base import EntityStore, NewEpisode, Store

if TYPE_CHECKING:  # the eraser analyses rewritten messages with this module
    from kuzya.forgetting import Eraser

Vectors = npt.NDArray[np.float32]  # one row per message
BATCH = 256  # messages per transaction


def indexed(message: Message, vector: Any) -> NewEpisode:
    """A message with its vector, index terms and the dates its time expressions mean."""
    return NewEpisode(
        message,
        vector,
        " ".join(terms(message.content)),
        tuple(dates.find(message.text, message.time)),
    )


def analysed(message: Message, vector: Any, known: Mapping[str, str]) -> NewEpisode:
    """A message `indexed`, with the mentions of the names `known` (alias -> entity key)
    and of new ones."""
    found = tuple(mentions.mentions(message.content, known))
    return replace(indexed(message, vector), mentions=found)


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
            scope = store.scope(namespace, sorted(audience))
            known[message.speaker, audience] = store.gazetteer(scope, message.speaker)
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
    known = store.gazetteer(store.scope(namespace, message.participants), message.speaker)
    return analysed(message, vector, known)


def store_messages(
    store: Store, embedder: Embedder, namespace: str, eraser: Eraser, messages: Sequence[Message]
) -> list[Episode]:
    """Validated messages committed in order, BATCH to a transaction, once each one's
    participants are known to see the memories it was derived from (so that a refusal
    writes nothing). A request to forget ("forget my address") is carried out as it is
    stored, and stored without the things it forgets. A message whose key is stored
    already is not stored again: its stored episode takes its place."""
    known = store.keyed(namespace, [m.key for m in messages if m.key])
    if known:
        fresh = [m for m in messages if m.key not in known]
        new = iter(store_messages(store, embedder, namespace, eraser, fresh) if fresh else [])
        return [
            store.get_episode(namespace, known[m.key]) if m.key in known else next(new)
            for m in messages
        ]
    for message in messages:
        if message.derived_from and len(
            store.fetch(store.scope(namespace, message.participants), message.derived_from)
        ) < len(message.derived_from):
            raise InvalidInput("derived_from names memories its participants may not see")
    stored: list[Episode] = []
    for start in range(0, len(messages), BATCH):
        batch = messages[start : start + BATCH]
        stored.extend(_commit(store, embedder, namespace, eraser, batch))
    return stored


def _commit(
    store: Store, embedder: Embedder, namespace: str, eraser: Eraser, messages: Sequence[Message]
) -> list[Episode]:
    requests = [
        None if is_assistant(m) else rules.forget_request(m.text, m.speaker) for m in messages
    ]
    messages = [
        m if r is None else replace(m, text=r.said) for m, r in zip(messages, requests, strict=True)
    ]
    vectors = embedder.embed([m.content for m in messages])
    stored = store.add_episodes(namespace, analysed_batch(store, namespace, messages, vectors))
    for episode, request in zip(stored, requests, strict=True):
        if request is not None:
            eraser.forget(request, sorted(episode.audience), episode.speaker, episode)
    if not any(requests):
        return stored
    store.purge()
    return [_current(store, namespace, e) for e in stored]


def _current(store: Store, namespace: str, episode: Episode) -> Episode:
    try:
        return store.get_episode(namespace, episode.id)
    except NotFound:
        return episode  # forgotten by a request later in the same batch
