"""Read-ahead notes: the newest things people said that the present may see, within a word
budget, oldest first. They go into the prompt's prefix, which a model with a prompt cache
reads before the next question arrives (`Assistant.prepare`), so a reply pays only for its
question and for the recalled notes the prefix lacks."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from kuzya.entities.ner import is_russian
from kuzya.language.days import day_name
from kuzya.memory import Memory
from kuzya.model import RecallItem
from kuzya.recall import passages

FULL = 8  # words left over that no message worth reading fits in

_LEAD = {
    False: ("Notes from your memory, oldest first:", "Today is {today}."),
    True: ("Заметки из твоей памяти, сначала старые:", "Сегодня {today}."),
}


def read_ahead(
    memory: Memory,
    present: Sequence[str],
    now: datetime,
    words: int,
    leave_out: Collection[int] = (),
) -> tuple[RecallItem, ...]:
    """What people (not the assistant) said by `now` that `present` may see, newest first
    while it fits in `words` (a message too long for what is left is passed over: it
    reaches a prompt as the passages a question recalls), returned oldest first; without
    turns that state nothing ("lol", a bare question) and `leave_out` (the conversation's
    own recent turns, which the prompt holds as turns)."""
    if words <= 0:
        return ()
    scope = memory.store.scope(memory.namespace, present)
    kept: list[RecallItem] = []
    used, seen, k = 0, 0, 64
    while True:  # through at most `words` messages, the newest first
        ids = [i for i, _ in memory.store.recent_search(scope, min(k, words))]
        for episode in memory.store.fetch(scope, ids[seen:]):
            item = RecallItem.of_episode(episode, 0.0)
            if (
                item.assistant
                or item.id in leave_out
                or episode.said_at > now
                or used + item.words > words
                or passages.low_content(item.text)
            ):
                continue
            kept.append(item)
            used += item.words
        if len(ids) < k or used >= words - FULL:
            return tuple(reversed(kept))
        seen, k = len(ids), k * 2


def as_prompt(items: Sequence[RecallItem], now: datetime) -> str:
    """The notes as the system prompt lists them, each with its day, then today's date; in
    Russian when they mostly are."""
    russian = is_russian(" ".join(item.text for item in items))
    lead, today = _LEAD[russian]
    lines = [f"- [{day_name(i.said_at, russian, short=True)}] {i.line()}" for i in items]
    return "\n".join([lead, *lines, today.format(today=day_name(now, russian))])
