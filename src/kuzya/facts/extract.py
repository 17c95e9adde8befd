"""Facts from a chunk of messages: rules always, plus one schema-checked LLM call per
chunk when a model is configured (the same call also summarises the chunk for the diary).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

from kuzya.errors import LLMError
from kuzya.facts import rules
from kuzya.facts.claims import Found, dated
from kuzya.facts.schema import ATTRIBUTES, OPEN_NAME, OPEN_NAME_LENGTH, Claim, Forget
from kuzya.language.sentences import sentences
from kuzya.language.text import terms
from kuzya.llm.base import LLM, ChatMessage
from kuzya.llm.structured import structured
from kuzya.model import Episode, is_assistant

CHUNK = 60  # messages per LLM call (about 2,000 tokens of a conversation)
CHUNK_WORDS = 1_500  # words per LLM call, at most
PART_WORDS = 300  # a message longer than this goes to the model in parts
log = logging.getLogger(__name__)


class ExtractedFact(BaseModel):
    message: int = Field(description="number of the message that states the fact")
    subject: str = Field(description="who the fact is about: the speaker's name for 'I'")
    attribute: str = Field(
        description="one of the listed attributes, or a short snake_case name of your own",
        pattern=f"^{OPEN_NAME.pattern}$",
        max_length=OPEN_NAME_LENGTH,
    )
    value: str
    negated: bool = Field(default=False, description="true if it says the fact no longer holds")


class Summary(BaseModel):
    conversation: str
    summary: str = Field(description="2-3 sentences: what happened, who, when")


class ForgetRequest(BaseModel):
    message: int = Field(description="number of the message that asks to forget")
    what: str = Field(description="the attribute or the thing to forget, as said")


class Extraction(BaseModel):
    facts: list[ExtractedFact] = Field(default_factory=list)
    summaries: list[Summary] = Field(default_factory=list)
    forget: list[ForgetRequest] = Field(default_factory=list)
    # facts that did not fit the schema (a bad attribute name): set aside, not fatal
    skipped: SkipJsonSchema[list[str]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _set_aside(cls, data: Any) -> Any:
        """Keep the facts that validate; the others become one line each in `skipped`, so
        one badly named fact does not cost the chunk's other facts and summaries."""
        if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
            return data
        kept, skipped = [], []
        for item in data["facts"]:
            try:
                ExtractedFact.model_validate(item)
                kept.append(item)
            except ValidationError as e:
                problem = "; ".join(
                    f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()
                )
                skipped.append(f"{str(item)[:80]} ({problem})")
        return {**data, "facts": kept, "skipped": skipped}


_SYSTEM = (
    "You read a conversation and list the personal facts its speakers state about "
    "themselves or people they name, as JSON. Attributes: {attributes}; for anything "
    "else a speaker keeps doing, avoids or plans, name the attribute yourself in short "
    "snake_case (usual_order for what they always order, favourite_band, job_title). "
    "What a speaker orders as usual or every time is a fact: [3] ana: the usual "
    'flat white, please -> {{"message": 3, "subject": "ana", "attribute": '
    '"usual_order", "value": "flat white"}}. Use the speaker\'s name as subject '
    "when they say 'I'. Only facts stated as true, not "
    "questions, wishes or jokes; set negated=true when a message says a fact stopped "
    "being true. List the messages in which a speaker asks you to forget or delete "
    "something they said (forget: message number and what). Also write a short summary "
    "of each conversation."
)


@dataclass(frozen=True)
class Digest:
    """What a chunk of messages yields: claims with their episodes, and a summary."""

    found: list[Found]
    summaries: dict[str, str]  # conversation id -> a model's summary (empty without one)
    forget: list[tuple[Episode, Forget]] = field(default_factory=list)  # found by the model


def rule_claims(episodes: Sequence[Episode]) -> list[Found]:
    return [
        Found(episode, dated(claim, episode), "rules")
        for episode in episodes
        if not is_assistant(episode)  # its replies state nothing about anyone
        for claim in rules.claims(episode.text, episode.speaker)
    ]


def digest(episodes: Sequence[Episode], llm: LLM | None) -> Digest:
    """Rule claims for every message; with a model, its claims and summary too. A model
    that keeps answering junk leaves the rule claims standing (its error is raised by
    `structured` and turned into an empty contribution here, counted by the caller)."""
    found = rule_claims(episodes)
    if llm is None or not episodes:
        return Digest(found, {})
    messages = [
        ChatMessage("system", _SYSTEM.format(attributes=", ".join(ATTRIBUTES))),
        ChatMessage("user", _transcript(episodes)),
    ]
    try:
        answer = structured(llm, messages, Extraction, retries=1, max_tokens=900)
    except LLMError:
        return Digest(found, {})
    if answer.skipped:
        log.warning(
            "%s: %d facts with unusable fields skipped, the rest kept: %s",
            llm.name,
            len(answer.skipped),
            " | ".join(answer.skipped),
        )
    seen = {(f.episode.id, f.claim.attribute, f.claim.value.lower()) for f in found}
    origin = f"llm:{llm.name}"
    for fact in answer.facts:
        if not 0 <= fact.message < len(episodes):
            continue  # a model's invention: no such message
        value, subject = fact.value.strip(), fact.subject.strip()
        episode = episodes[fact.message]
        if not value or not subject or (episode.id, fact.attribute, value.lower()) in seen:
            continue
        if subject.lower() in {"i", "me", "speaker", "user", "я"}:
            subject = episode.speaker
        emphatic = any(
            rules.ALWAYS.search(s) and value.lower() in s.lower() for s in sentences(episode.text)
        )
        claim = dated(Claim(subject, fact.attribute, value, fact.negated, emphatic), episode)
        found.append(Found(episode, claim, origin))
        seen.add((episode.id, fact.attribute, value.lower()))
    conversations = {e.conversation for e in episodes}
    summaries = {
        s.conversation: s.summary.strip()
        for s in answer.summaries
        if s.conversation in conversations and s.summary.strip()
    }
    return Digest(found, summaries, _requests(episodes, answer.forget))


def _requests(
    episodes: Sequence[Episode], asked: Sequence[ForgetRequest]
) -> list[tuple[Episode, Forget]]:
    """The model's forget requests that name a message and something in it to forget."""
    requests = []
    for request in asked:
        what = request.what.strip(" .!?\"'")
        if not 0 <= request.message < len(episodes) or not terms(what):
            continue
        episode = episodes[request.message]
        attribute = what.lower().replace(" ", "_")
        if attribute in ATTRIBUTES:
            requests.append((episode, Forget(episode.speaker, attribute, None)))
        else:
            requests.append((episode, Forget(episode.speaker, None, what)))
    return requests


def _transcript(episodes: Sequence[Episode]) -> str:
    """Numbered messages under a heading per conversation."""
    lines: list[str] = []
    for number, episode in enumerate(episodes):
        if number == 0 or episodes[number - 1].conversation != episode.conversation:
            lines.append(f"## conversation {episode.conversation} ({episode.said_at:%Y-%m-%d})")
        lines.append(f"[{number}] {episode.speaker}: {episode.content}")
    return "\n".join(lines)


def parts(episode: Episode, size: int = PART_WORDS) -> list[Episode]:
    """A message longer than `size` words as consecutive parts of whole sentences, each
    with the message's id (what a model finds in a part is the message's claim)."""
    if len(episode.text.split()) <= size:
        return [episode]
    pieces: list[list[str]] = [[]]
    used = 0
    for sentence in sentences(episode.text):
        words = len(sentence.split())
        if pieces[-1] and used + words > size:
            pieces.append([])
            used = 0
        pieces[-1].append(sentence)
        used += words
    return [
        replace(episode, text=" ".join(piece), attachments=episode.attachments if i == 0 else ())
        for i, piece in enumerate(pieces)
    ]


def chunks(
    episodes: Sequence[Episode], size: int = CHUNK, words: int = CHUNK_WORDS
) -> list[list[Episode]]:
    """Consecutive episodes (long ones in parts) in chunks of at most `size` messages and
    `words` words, whole conversations kept together where they fit (one model call then
    covers several short conversations)."""
    out: list[list[Episode]] = []
    current: list[Episode] = []
    used = 0
    for _, group in groupby(episodes, key=lambda e: e.conversation):
        conversation = [part for episode in group for part in parts(episode)]
        weight = sum(len(e.content.split()) for e in conversation)
        if current and (len(current) + len(conversation) > size or used + weight > words):
            out.append(current)
            current, used = [], 0
        for episode in conversation:  # a conversation too long for one call is cut
            length = len(episode.content.split())
            if current and (len(current) >= size or used + length > words):
                out.append(current)
                current, used = [], 0
            current.append(episode)
            used += length
    if current:
        out.append(current)
    return out
