"""What a prompt holds from memory. Read-ahead notes: the newest things people said that the
present may see, within a word budget, oldest first, in the prompt's prefix, which a model
with a prompt cache reads before the next question arrives (`Assistant.prepare`), so a
reply pays only for its question and for the recalled notes the prefix lacks. And those
notes next to the question: recalled messages without the sentences a given fact states,
the assistant's own replies only when asked about, and the line asking for a short
answer."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime

from kuzya.entities.ner import is_russian
from kuzya.language.days import day_name
from kuzya.language.sentences import sentences
from kuzya.language.text import terms
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


def unstated(item: RecallItem, stated: Sequence[set[str]]) -> RecallItem | None:
    """The item without its sentences whose every term one of the `stated` facts holds;
    None when nothing else is left."""
    if not stated:
        return item
    parts = sentences(item.text)
    kept = [p for p in parts if not any(set(terms(p)) <= fact for fact in stated)]
    if not kept:
        return None
    if len(kept) == len(parts):
        return item
    text = " ".join(kept)
    return replace(item, text=text, events=tuple(e for e in item.events if e.phrase in text))


# a question about what the assistant said: "what did you recommend?", "ты мне советовал…"
_ABOUT_REPLIES = re.compile(
    r"\bdid you\b(?! (?:remember|know|recall))"
    r"|\byou (?:said|told|recommended|suggested|mentioned|answered|replied|promised|thought"
    r"|say|tell|recommend|suggest|mention)\b"
    r"|\byour (?:answer|reply|advice|suggestion|recommendation|idea)\b"
    r"|(?<!\w)(?:ты|вы)\s+(?:мне\s+|нам\s+)?\w+л[аои]?(?!\w)"
    r"|(?<!\w)(?:твой|твоя|твои|ваш|ваша|ваши) (?:ответ|совет|идея|рекомендаци)",
    re.IGNORECASE,
)


def asks_about_replies(question: str) -> bool:
    """Whether a question asks what the assistant itself said: only then do its own earlier
    replies go into the notes (they are the conversation, not evidence about anyone)."""
    return _ABOUT_REPLIES.search(question) is not None


# after the question: a small model otherwise may recite its notes instead of answering
_BRIEFLY = {False: "(Answer in one short sentence.)", True: "(Ответь одним коротким предложением.)"}


def briefly(question: str) -> str:
    """The line that follows a question with notes, in the question's language."""
    return _BRIEFLY[is_russian(question)]


NOTES_LEAD = {
    False: "Notes from memory ({who} is asking; today is {today}):",
    True: "Заметки из памяти (спрашивает {who}; сегодня {today}):",
}
