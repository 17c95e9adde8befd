"""The diary of each visit as structured JSON — what happened, what the customers want,
what the waiter did — written off the reply path: after closing, once the visit has left
working memory and the day's sleep has read it. With a model, the model writes the JSON
(schema-checked, asked again once); bad JSON falls back to the rules, never a crash.
Each visit's entry goes through Kuzya's diary layer (`kuzya.sleep.diary`), one per
audience, so a confidence's entry is seen only by those who heard it, and sleep
compresses old entries per month like any other."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, Field

from kuzya.errors import LLMError
from kuzya.facts import rules
from kuzya.llm.base import LLM, ChatMessage
from kuzya.llm.structured import structured
from kuzya.memory import Memory
from kuzya.model import Episode, is_assistant
from kuzya.sim.customers import Visit
from kuzya.sleep import diary

FIELD_WORDS = 40
SYSTEM = (
    "You keep a noodle shop waiter's diary. Read one visit and answer with one JSON "
    'object: {"event": what happened, "preference": what each customer wants or must '
    'avoid, "action": what the waiter did}. One short sentence each.'
)


class VisitNote(BaseModel):
    event: str = Field(description="what happened at the visit, one sentence")
    preference: str = Field(description="what the customers want or avoid, as they said it")
    action: str = Field(description="what the waiter did: proposed, recommended, answered")


def _clip(text: str) -> str:
    words = text.split()
    return " ".join(words[:FIELD_WORDS]) + (" …" if len(words) > FIELD_WORDS else "")


def rule_note(episodes: Sequence[Episode]) -> VisitNote:
    """The note without a model: the order tickets, the customers' claims (Kuzya's fact
    rules), the waiter's proposals, answers and recommendations."""
    spoken = [e for e in episodes if not is_assistant(e)]
    who = ", ".join(dict.fromkeys(e.speaker for e in spoken))
    tickets = [e.text for e in episodes if e.metadata.get("act") == "order"]
    if tickets:
        event = f"{who} visited: {' '.join(tickets)}"
    else:
        event = f"{who} told the waiter something in confidence"
    claims = [c.statement() for e in spoken for c in rules.claims(e.text, e.speaker)]
    acts = ("propose", "recommend", "answer", "aside")
    done = [e.text for e in episodes if e.metadata.get("act") in acts]
    return VisitNote(
        event=_clip(event),
        preference=_clip("; ".join(dict.fromkeys(claims)) or "nothing new"),
        action=_clip(" ".join(done) or "took the order"),
    )


def model_note(llm: LLM, episodes: Sequence[Episode]) -> VisitNote:
    """The model's note; `LLMError` when its JSON is unusable or its event names none of
    the customers who spoke (a note about no one is no diary)."""
    transcript = "\n".join(f"{e.speaker}: {e.text}" for e in episodes)
    messages = [ChatMessage("system", SYSTEM), ChatMessage("user", transcript)]
    note = structured(llm, messages, VisitNote, retries=1, max_tokens=200)
    named = set(re.findall(r"\w+", note.event.lower()))
    if not named & {e.speaker.lower() for e in episodes if not is_assistant(e)}:
        raise LLMError(f"{llm.name}'s diary note names no one who visited: {note.event[:80]!r}")
    return VisitNote(**{k: _clip(v) for k, v in note.model_dump().items()})


def write(memory: Memory, visits: Sequence[Visit], llm: LLM | None) -> tuple[int, int]:
    """Write the entries of these visits; returns (entries written, model fallbacks)."""
    written = fallbacks = 0
    for visit in visits:
        by_audience: dict[frozenset[str], list[Episode]] = defaultdict(list)
        for episode in memory.get_all(conversation=visit.conversation, limit=10_000):
            by_audience[episode.audience].append(episode)
        for episodes in by_audience.values():
            note, origin = rule_note(episodes), "rules"
            if llm is not None:
                try:
                    note, origin = model_note(llm, episodes), f"llm:{llm.name}"
                except LLMError:
                    fallbacks += 1
            diary.write_conversation(
                memory.store, memory.namespace, memory.embedder, episodes,
                json.dumps(note.model_dump(), ensure_ascii=False), origin,
            )  # fmt: skip
            written += 1
    return written, fallbacks
