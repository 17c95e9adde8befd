"""The diary: a summary per conversation, per day, and for old periods a summary of the
summaries (compression of old memories). Extractive without a model: the messages
closest to the conversation's centroid, first sentence each, in time order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import Protocol

import numpy as np

from kuzya.embed.base import Embedder
from kuzya.errors import LLMError
from kuzya.language.sentences import spans
from kuzya.llm.base import LLM, ChatMessage
from kuzya.model import DiaryEntry, Episode
from kuzya.store.base import DiaryStore, EpisodeStore, NewDiaryEntry, SearchStore


class DiaryWriting(DiaryStore, EpisodeStore, SearchStore, Protocol):
    """What the diary job uses: the diary, the day's episodes and their vectors."""


EXTRACTIVE = "extractive"
KINDS = ("conversation", "day", "period")  # what an entry summarises
_MAX_WORDS = 30


def _clip(text: str) -> str:
    """The text's first sentences, up to 20 characters at least, in at most 30 words."""
    ends = [end for _, end in spans(text)]
    words = text[: next((end for end in ends if end >= 20), len(text))].split()
    return " ".join(words[:_MAX_WORDS]) + (" …" if len(words) > _MAX_WORDS else "")


def extractive_summary(texts: Sequence[str], vectors: np.ndarray, size: int = 4) -> str:
    """The `size` texts nearest the centroid and unlike each other, in their order."""
    if not texts:
        return ""
    centroid = vectors.mean(axis=0)
    relevance = vectors @ centroid
    chosen: list[int] = []
    while len(chosen) < min(size, len(texts)):
        penalty = np.max(vectors @ vectors[chosen].T, axis=1) if chosen else 0.0
        score = relevance - 0.5 * penalty
        score[chosen] = -np.inf
        chosen.append(int(np.argmax(score)))
    return " ".join(_clip(texts[i]) for i in sorted(chosen))


def write_conversation(
    store: DiaryWriting,
    namespace: str,
    embedder: Embedder,
    episodes: Sequence[Episode],
    summary: str | None,
    origin: str,
) -> DiaryEntry:
    """The entry for one conversation (one audience), rewritten as the conversation grows.
    `episodes` are all of its episodes so far; `summary` a model's summary of them."""
    first, last = episodes[0], episodes[-1]
    if summary is None:
        vectors = store.vector_of(namespace, [e.id for e in episodes])
        rows = [e for e in episodes if e.id in vectors]
        summary = extractive_summary(
            [f"{e.speaker}: {e.content}" for e in rows], np.stack([vectors[e.id] for e in rows])
        )
        origin = EXTRACTIVE
    text = f"{first.said_at:%d %B %Y}, {first.conversation}: {summary}"
    return store.put_diary(
        namespace,
        NewDiaryEntry(
            kind="conversation",
            key=first.conversation,
            level=0,
            text=text,
            start=first.said_at,
            end=last.said_at,
            audience=tuple(sorted(first.audience)),
            sources=tuple(e.id for e in episodes),
            origin=origin,
            vector=embedder.embed([text])[0],
        ),
    )


def vector_text(kind: str, key: str, text: str) -> str:
    """What an entry's vector was made from: its text, a period's without the month
    heading (see `compress`); an import embeds it again."""
    return text.removeprefix(f"{key}: ") if kind == "period" else text


COMPRESS_AFTER = timedelta(days=30)


def compressible(store: DiaryWriting, namespace: str, now: datetime) -> list[DiaryEntry]:
    """The conversation entries `compress` would compress at `now` (older than a month)."""
    cutoff = now - COMPRESS_AFTER
    return store.diary(namespace, kind="conversation", uncompressed=True, before=cutoff)


def compress(
    store: DiaryWriting, namespace: str, embedder: Embedder, llm: LLM | None, now: datetime
) -> list[DiaryEntry]:
    """Conversation entries older than a month become one entry per month and
    audience; the entries it covers leave recall (they stay readable in the diary)."""
    groups: dict[tuple[str, frozenset[str]], list[DiaryEntry]] = defaultdict(list)
    for entry in compressible(store, namespace, now):
        groups[(entry.start.strftime("%Y-%m"), entry.audience)].append(entry)
    written = []
    for (month, audience), entries in sorted(groups.items(), key=lambda g: g[0][0]):
        previous = [
            e
            for e in store.diary(namespace, kind="period", participants=sorted(audience))
            if e.key == month and e.audience == audience
        ]
        entries = previous + entries
        # two entries are joined as they are; a model call is worth it from three on
        text, origin = _summarise([e.text for e in entries], llm if len(entries) > 2 else None)
        if text is None:
            vectors = store.diary_vectors(namespace, [e.id for e in entries])
            text, origin = extractive_summary([e.text for e in entries], vectors, 6), EXTRACTIVE
        written.append(
            store.put_diary(
                namespace,
                NewDiaryEntry(
                    kind="period",
                    key=month,
                    level=1,
                    text=f"{month}: {text}",
                    start=min(e.start for e in entries),
                    end=max(e.end for e in entries),
                    audience=tuple(sorted(audience)),
                    sources=tuple(sorted({s for e in entries for s in e.sources})),
                    origin=origin,
                    vector=embedder.embed([text])[0],
                    covers=tuple(e.id for e in entries if e.kind == "conversation"),
                ),
            )
        )
    return written


def _summarise(texts: Sequence[str], llm: LLM | None) -> tuple[str | None, str]:
    if llm is None:
        return None, EXTRACTIVE
    prompt = "Summarise these diary entries in at most 5 sentences, keeping names, places "
    prompt += "and dates:\n" + "\n".join(f"- {t}" for t in texts)
    try:
        reply = llm.chat([ChatMessage("user", prompt)], max_tokens=300)
    except LLMError:
        return None, EXTRACTIVE
    text = reply.text.strip()
    return (text, f"llm:{llm.name}") if text else (None, EXTRACTIVE)


def write_day(
    store: DiaryWriting, namespace: str, embedder: Embedder, day: str, audience: frozenset[str]
) -> DiaryEntry | None:
    """The day's entry for one audience: its conversations' entries, in time order."""
    entries = [
        e
        for e in store.diary(namespace, kind="conversation", participants=sorted(audience))
        if e.audience == audience and e.start.strftime("%Y-%m-%d") == day
    ]
    if not entries:
        return None
    text = " | ".join(e.text for e in entries)
    return store.put_diary(
        namespace,
        NewDiaryEntry(
            kind="day",
            key=day,
            level=0,
            text=text,
            start=min(e.start for e in entries),
            end=max(e.end for e in entries),
            audience=tuple(sorted(audience)),
            sources=tuple(sorted({s for e in entries for s in e.sources})),
            origin=EXTRACTIVE,
            vector=embedder.embed([text])[0],
        ),
    )


def rebuild(
    store: DiaryWriting,
    namespace: str,
    embedder: Embedder,
    episodes: Sequence[int],
    leaving: Collection[int] = (),
) -> int:
    """Rewrite, from what is left, every entry that summarised any of these episodes
    (after they were redacted or deleted, or before the `leaving` ones are deleted):
    conversation entries from their episodes, day entries from the conversation entries,
    period entries from the entries they compress. An entry with nothing left goes. A
    model's summary is replaced by an extract, which holds only what is still there.
    Returns how many entries were rewritten or removed."""
    entries = store.diary(namespace, covering=list(episodes)) if episodes else []
    periods = {
        e.id: [c.id for c in store.diary(namespace, compressed_into=e.id)]
        for e in entries
        if e.kind == "period"
    }  # read first: rewriting a conversation entry releases it from its period
    for entry in (e for e in entries if e.kind == "conversation"):
        kept = [
            e
            for e in store.list_episodes(
                namespace, participants=sorted(entry.audience), conversation=entry.key,
                limit=100_000,
            )
            if e.audience == entry.audience and e.id not in leaving
        ]  # fmt: skip
        if kept:
            write_conversation(store, namespace, embedder, kept, None, EXTRACTIVE)
        else:
            store.delete_diary(namespace, [entry.id])
    for entry in (e for e in entries if e.kind == "day"):
        if write_day(store, namespace, embedder, entry.key, entry.audience) is None:
            store.delete_diary(namespace, [entry.id])
    for entry in (e for e in entries if e.kind == "period"):
        _rewrite_period(store, namespace, embedder, entry, periods[entry.id])
    return len(entries)


def _rewrite_period(
    store: DiaryWriting,
    namespace: str,
    embedder: Embedder,
    entry: DiaryEntry,
    covers: Sequence[int],
) -> None:
    covered = store.diary(namespace, ids=list(covers)) if covers else []
    if not covered:
        store.delete_diary(namespace, [entry.id])
        return
    vectors = store.diary_vectors(namespace, [e.id for e in covered])
    text = extractive_summary([e.text for e in covered], vectors, 6)
    store.put_diary(
        namespace,
        NewDiaryEntry(
            kind="period",
            key=entry.key,
            level=entry.level,
            text=f"{entry.key}: {text}",
            start=min(e.start for e in covered),
            end=max(e.end for e in covered),
            audience=tuple(sorted(entry.audience)),
            sources=tuple(sorted({s for e in covered for s in e.sources})),
            origin=EXTRACTIVE,
            vector=embedder.embed([text])[0],
            covers=tuple(e.id for e in covered),
        ),
    )
