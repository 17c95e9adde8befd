"""Forgetting on request ("forget my address"): the facts are retired and the sentences
that stated them are cut from the source messages (a message left empty is deleted).

Only the requester's own facts and words are forgotten, and only those the
participants present may see; the history records that something was forgotten, not
what.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kuzya.facts.schema import Forget
from kuzya.model import Episode, Fact
from kuzya.store.base import Store
from kuzya.text import terms

_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")


@dataclass(frozen=True)
class Forgotten:
    facts: int
    redacted: int  # messages with sentences cut out
    deleted: int  # messages that had nothing else to say


def _mentions(text: str, words: set[str]) -> bool:
    return bool(words) and words <= set(terms(text))


def _targets(facts: Sequence[Fact], request: Forget) -> list[Fact]:
    """Facts of the attribute, about the thing, both ("forget that I live in Lisbon"), or
    with neither every fact of the subject ("forget everything about me")."""
    about = set(terms(request.about or ""))
    return [
        f
        for f in facts
        if (request.attribute is None or f.attribute == request.attribute)
        and (not about or about & set(terms(f"{f.value} {f.statement}")))
    ]


def forget(
    store: Store,
    namespace: str,
    request: Forget,
    participants: Sequence[str],
    actor: str | None,
    rewrite: Callable[[Episode, str], None],
) -> Forgotten:
    """Retire the facts the request names and cut their sentences from the sources.
    `rewrite(episode, text)` stores the redacted text of an episode (re-indexed)."""
    facts = _targets(
        store.facts(
            namespace, participants=participants, subject=request.subject, current_only=False
        ),
        request,
    )
    reason = f"forget requested by {request.subject}"
    with store.fact_writer(namespace) as writer:
        for fact in facts:
            writer.retire(fact.id, reason, actor)
    words = [set(terms(f.value)) for f in facts]
    if request.about:
        words.append(set(terms(request.about)))
    sources = {s for f in facts for s in f.sources}
    if request.about and request.attribute is None:  # and what else they said about it
        hits = store.text_search(namespace, terms(request.about), participants, 200)
        sources.update(item for item, _ in hits)
    redacted = deleted = 0
    for episode in store.fetch(namespace, sorted(sources), participants):
        if episode.speaker != request.subject:
            continue
        kept = [
            s
            for s in _SENTENCE.split(episode.text)
            if s.strip() and not any(_mentions(s, w) for w in words)
        ]
        if not kept:
            store.delete_episode(namespace, episode.id, actor)
            deleted += 1
        elif len(kept) < len([s for s in _SENTENCE.split(episode.text) if s.strip()]):
            rewrite(episode, " ".join(kept))
            redacted += 1
    return Forgotten(len(facts), redacted, deleted)
