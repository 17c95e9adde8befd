"""Non-interference, property-based: what Kuzya shows a set of people P depends only on
the messages P may see.

For a random history among 3–12 people (group conversations and direct ones with the
assistant, English and Russian, facts that change, negations, relatives, secrets) and a
random P of 1–3 of them, store S1 gets every message and store S2 only the messages whose
audience includes every member of P (same order, same times). After `sleep` on both,
everything P is shown must be the same in S1 and S2, ids aside: facts with their
validity and sources, fact histories, profiles, the diary, recall (with BM25's
corpus-wide statistics switched off, the one permitted difference), the assistant's
prompt prefix and notes, and (once entities are per audience) the entities.
"""

from __future__ import annotations

import json
import re
import string
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kuzya.assistant import Assistant
from kuzya.embed import Embedder, load_embedder
from kuzya.llm.base import ChatMessage, Completion
from kuzya.memory import Memory
from kuzya.prompt_notes import read_ahead
from kuzya.testing import ScriptedLLM

T0 = datetime(2025, 3, 3, 9, tzinfo=UTC)
NAMES = [
    "ana", "ben", "chen", "dana", "emil", "fatima", "gosha", "hana", "ivan", "jun", "kira", "lev",
]  # fmt: skip

CITIES = ["Lisbon", "Porto", "Oslo", "Bergen", "Madrid", "Prague"]
FIRMS = ["Google", "Spotify", "Nokia", "Siemens"]
FOODS = ["sushi", "pizza", "olives", "jazz"]
RELATIVES = [("brother", "Leo"), ("sister", "Mia"), ("cousin", "Tom")]
RU_CITIES = ["Москве", "Казани", "Праге", "Самаре"]
RU_FIRMS = ["Яндексе", "Сбере", "Озоне"]

# (template, slot kinds) – each slot is filled from the list its kind names
TEMPLATES: list[tuple[str, tuple[str, ...]]] = [
    ("I live in {}", ("city",)),
    ("We moved to {} last month", ("city",)),
    ("I don't live in {} anymore", ("city",)),
    ("I no longer live in {}", ("city",)),
    ("I work at {}", ("firm",)),
    ("I quit {} yesterday, don't tell the team", ("firm",)),
    ("I don't work at {} anymore", ("firm",)),
    ("I love {}", ("food",)),
    ("I hate {} now", ("food",)),
    ("My {} {} lives in {}", ("relation", "relative", "city")),
    ("my {} {} moved to {}", ("relation", "relative", "city")),
    ("My {} is called {}", ("relation", "relative")),
    ("{} moved to {}", ("relative", "city")),  # the rules leave it; the scripted model reads it
    ("Je vis à {}", ("city",)),  # the same
    ("My PIN is {}", ("pin",)),
    ("My address is {} Zanzibar Lane", ("pin",)),
    ("The code for the door is {}, keep it secret", ("pin",)),
    ("I'm allergic to {}", ("food",)),
    ("What did we talk about yesterday?", ()),
    ("Let's meet on Friday near the station", ()),
    ("Я живу в {}", ("ru_city",)),
    ("Я больше не живу в {}", ("ru_city",)),
    ("Я работаю в {}", ("ru_firm",)),
    ("Мой брат Олег работает в {}", ("ru_firm",)),
    ("Моя сестра Маша живёт в {}", ("ru_city",)),
    ("Я люблю суши", ()),
    ("Я ненавижу суши", ()),
    ("Мой пин-код {}, никому не говори", ("pin",)),
]

SLOTS: dict[str, st.SearchStrategy[str]] = {
    "city": st.sampled_from(CITIES),
    "firm": st.sampled_from(FIRMS),
    "food": st.sampled_from(FOODS),
    "relation": st.sampled_from([r for r, _ in RELATIVES]),
    "relative": st.sampled_from([n for _, n in RELATIVES]),
    "pin": st.sampled_from(["4821", "1907", "3356", "7264"]),
    "ru_city": st.sampled_from(RU_CITIES),
    "ru_firm": st.sampled_from(RU_FIRMS),
}

QUERIES = [
    "where do I live?",
    "where does Leo live?",
    "what is my PIN?",
    "what did we talk about?",
    "где я живу?",
]


@dataclass(frozen=True)
class Said:
    text: str
    speaker: str
    conversation: str
    participants: tuple[str, ...]
    time: datetime


@dataclass(frozen=True)
class Case:
    people: tuple[str, ...]
    messages: tuple[Said, ...]
    present: tuple[str, ...]  # P
    speaker: str  # one of P, who asks
    conversation: str  # one P was in, when there is one

    @property
    def now(self) -> datetime:
        return self.messages[-1].time + timedelta(days=2)

    def visible(self) -> list[Said]:
        return [m for m in self.messages if set(self.present) <= set(m.participants)]


@st.composite
def cases(draw: st.DrawFn, min_messages: int = 8, max_messages: int = 25) -> Case:
    people = tuple(NAMES[: draw(st.integers(3, 12))])
    conversations: dict[str, tuple[str, ...]] = {}
    for i in range(draw(st.integers(1, 4))):
        size = draw(st.integers(2, min(5, len(people))))
        members = draw(st.lists(st.sampled_from(people), min_size=size, max_size=size, unique=True))
        conversations[f"group{i}"] = tuple(sorted(members))
    for person in draw(st.lists(st.sampled_from(people), min_size=1, max_size=4, unique=True)):
        conversations[f"dm:{person}"] = (person,)
    names = sorted(conversations)
    moment = T0
    messages = []
    for _ in range(draw(st.integers(min_messages, max_messages))):
        conversation = draw(st.sampled_from(names))
        members = conversations[conversation]
        template, kinds = draw(st.sampled_from(TEMPLATES))
        text = template.format(*(draw(SLOTS[k]) for k in kinds))
        moment += timedelta(hours=draw(st.integers(1, 40)), minutes=draw(st.integers(0, 59)))
        speaker = draw(st.sampled_from(members))
        messages.append(Said(text, speaker, conversation, members, moment))
    # P: mostly people who shared a conversation (the interesting case), sometimes anyone
    pool = conversations[draw(st.sampled_from(names))] if draw(st.booleans()) else people
    present = tuple(
        sorted(
            draw(
                st.lists(st.sampled_from(pool), min_size=1, max_size=min(3, len(pool)), unique=True)
            )
        )
    )
    shared = [c for c in names if set(present) <= set(conversations[c])]
    conversation = draw(st.sampled_from(shared)) if shared else draw(st.sampled_from(names))
    return Case(people, tuple(messages), present, draw(st.sampled_from(present)), conversation)


# -- stores ---------------------------------------------------------------------------------


class Remembered:
    """The real default embedder with a memo per text: a text is encoded once for the
    module, so both stores get the very same vector for it whatever batch it arrives in,
    and the templated texts that recur across examples cost nothing the second time."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.name, self.dim = model.name, model.dim
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        new = sorted({t for t in texts if t not in self.vectors})
        if new:
            self.vectors.update(zip(new, self.model.embed(new), strict=True))
        return np.stack([self.vectors[t] for t in texts]) if texts else self.model.embed([])


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """The real default embedder, loaded once for the module."""
    return Remembered(load_embedder("use"))


def build(
    path: Path, messages: Sequence[Said], embedder: Embedder, now: datetime, llm: Any = None
) -> Memory:
    memory = Memory.open(path, namespace="ni", embedder=embedder, llm=llm, durable=False)
    for m in messages:  # one by one in both stores: the same embedding calls
        memory.remember(
            m.text,
            speaker=m.speaker,
            conversation=m.conversation,
            participants=list(m.participants),
            time=m.time,
        )
    memory.sleep(now=now)
    return memory


# -- canonical views: ids replaced by what they stand for ------------------------------------------


class Score(float):
    """A recall score, compared to 6 places: equal to another within 1e-5. Scores are sums
    of float32 cosines, and a matrix product of another shape (a store with more rows)
    may round the last bits otherwise; rounding both to 6 places would still part them at
    a boundary. Real interference moves a score by far more (1e-3 and up)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, float) and abs(self - other) <= 1e-5

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"{float(self):.6f}"


class Canon:
    """Maps one store's ids to id-free descriptions."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.episodes = {
            e.id: (e.text, e.said_at.isoformat()) for e in memory.get_all(limit=100_000)
        }
        self.fact_ids = {
            f.id: (f.statement, f.valid_from.isoformat()) for f in memory.facts(include_past=True)
        }

    def episode(self, number: int) -> Any:
        return self.episodes.get(number, ("<unknown episode>", number))

    def texts(self, ids: Sequence[int]) -> list[Any]:
        return sorted(self.episode(i) for i in ids)

    def detail(self, text: str) -> str:
        return re.sub(r"memory (\d+)", lambda m: f"memory {self.episode(int(m.group(1)))!r}", text)

    def fact(self, f: Any) -> tuple[Any, ...]:
        return (
            f.subject,
            f.attribute,
            f.statement,
            f.value,
            f.category,
            f.priority,
            f.valid_from.isoformat(),
            None if f.valid_to is None else f.valid_to.isoformat(),
            f.strength,
            tuple(self.texts(f.sources)),
            tuple(sorted(f.audience)),
            f.origin,
            None if f.ended_by is None else self.episode(f.ended_by),
        )

    def item(self, i: Any) -> tuple[Any, ...]:
        return (
            i.kind.value,
            i.text,
            i.speaker,
            i.conversation,
            i.said_at.isoformat(),
            Score(i.score),
            tuple(self.texts(i.sources)),
            i.line(),
        )


def view(memory: Memory, case: Case) -> dict[str, Any]:
    """Everything P is shown, without ids."""
    canon = Canon(memory)
    present = list(case.present)
    out: dict[str, Any] = {}
    facts = memory.facts(participants=present, include_past=True)
    out["facts"] = [canon.fact(f) for f in facts]
    histories = []
    for f in facts:
        events = memory.fact_history(f.id, participants=present)
        histories.append((canon.fact(f), [(e, canon.detail(d)) for e, d, _ in events]))
    out["fact_history"] = histories
    subjects = sorted({*present, *(f.subject for f in facts), "Leo", "Mia", "Олег"})
    out["profiles"] = {
        s: [canon.fact(f) for f in memory.profile(s, participants=present).facts] for s in subjects
    }
    out["diary"] = [
        (
            d.kind,
            d.key,
            d.level,
            d.text,
            d.start.isoformat(),
            d.end.isoformat(),
            tuple(sorted(d.audience)),
            tuple(canon.texts(d.sources)),
        )
        for d in memory.diary(participants=present)
    ]
    plain = memory.with_settings(text_weight=0.0)
    recalls = {}
    for query in QUERIES:
        result = plain.recall(query, participants=present, now=case.now, speaker=case.speaker)
        recalls[query] = [canon.item(i) for i in result.items]
    out["recall"] = recalls
    assistant = Assistant(plain, llm=None)
    try:
        profile = assistant.profile(case.speaker, present)
        known = read_ahead(plain, present, case.now, assistant.ahead_words)
        prefix = assistant.prefix(
            case.conversation, present, case.speaker, profile, known=known, now=case.now
        )
        out["prefix"] = [(m.role, m.content) for m in prefix]
        asked = plain.recall(
            QUERIES[0],
            participants=present,
            now=case.now,
            speaker=case.speaker,
            conversation=case.conversation,
        )
        out["notes"] = [canon.item(i) for i in assistant.notes(asked, profile, known).items]
    finally:
        assistant.close()
    if _entities_have_participants(memory):
        out["entities"] = sorted(
            (e.name, e.kind, e.mentions, tuple(sorted(e.aliases)))
            for e in memory.entities(participants=present)  # type: ignore[call-arg]
        )
    return out


def _entities_have_participants(memory: Memory) -> bool:
    import inspect

    return "participants" in inspect.signature(memory.entities).parameters


def differences(one: Any, two: Any, where: str = "") -> list[str]:
    """Where the view of all messages (one) and of P's messages (two) part, briefly."""
    if one == two:
        return []
    if isinstance(one, dict) and isinstance(two, dict):
        return [d for k in one.keys() | two.keys() for d in differences(
            one.get(k), two.get(k), f"{where}/{k}")]  # fmt: skip
    if isinstance(one, list) and isinstance(two, list):
        extra = [x for x in one if x not in two]
        missing = [x for x in two if x not in one]
        if not extra and not missing:
            return [f"{where}: same items, another order:\n    {one!r}\n    {two!r}"]
        return [f"{where}:\n    only with all messages: {extra!r}\n    only with P's: {missing!r}"]
    return [f"{where}:\n    with all messages: {one!r}\n    with P's: {two!r}"]


def check(case: Case, embedder: Embedder, llm: Callable[[], Any] | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="kuzya-ni-") as folder:
        make = llm or (lambda: None)
        every = build(Path(folder) / "all.db", case.messages, embedder, case.now, make())
        seen = build(Path(folder) / "seen.db", case.visible(), embedder, case.now, make())
        try:
            one, two = view(every, case), view(seen, case)
        finally:
            every.close()
            seen.close()
    found = differences(one, two)
    assert not found, (
        f"P={case.present} asked by {case.speaker} in {case.conversation}; history:\n"
        + "\n".join(
            f"  {m.time:%d %b %H:%M} {m.conversation} {m.participants} {m.speaker}: {m.text}"
            for m in case.messages
        )
        + "\ndifferences:\n"
        + "\n".join(found)
    )


SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    "print_blob": True,
    # no shrinking: an example takes a second, and the failure message shows the history
    "phases": [Phase.explicit, Phase.reuse, Phase.generate],
}


@settings(max_examples=50, **SETTINGS)
@given(case=cases())
def test_what_p_is_shown_depends_only_on_what_p_may_see(embedder, case):
    check(case, embedder)


@pytest.mark.slow
@settings(max_examples=400, **SETTINGS)
@given(case=cases(max_messages=20))
def test_what_p_is_shown_depends_only_on_what_p_may_see_many_histories(embedder, case):
    check(case, embedder)


# -- the LLM path: a scripted extractor that reads the numbered transcript ----------------------

_LINE = re.compile(r"^\[(\d+)\] ([^:]+): (.*)$")
_HEADING = re.compile(r"^## conversation (\S+)")
_LLM_RULES = [
    (re.compile(r"\bI live in (\w+)", re.I), "lives_in", False),
    (re.compile(r"\bmoved to (\w+)", re.I), "lives_in", False),
    (re.compile(r"\bI (?:don't|no longer) live in (\w+)", re.I), "lives_in", True),
    (re.compile(r"\bI work at (\w+)", re.I), "works_at", False),
    (re.compile(r"\bI quit (\w+)", re.I), "works_at", True),
    (re.compile(r"\bI love (\w+)", re.I), "likes", False),
    (re.compile(r"\bI hate (\w+)", re.I), "dislikes", False),
    (re.compile(r"\bJe vis à (\w+)", re.I), "lives_in", False),
]
_THIRD_PARTY = re.compile(r"^([A-Z]\w+) moved to (\w+)")


def extraction(transcript: str) -> str:
    """What a careful model would answer: a fact per "I live in X"-like line (the message
    number it read), and a summary per conversation made of its lines."""
    facts: list[dict[str, Any]] = []
    lines: dict[str, list[str]] = {}
    conversation = ""
    for row in transcript.splitlines():
        if heading := _HEADING.match(row):
            conversation = heading.group(1)
            continue
        line = _LINE.match(row)
        if line is None:
            continue
        number, speaker, text = int(line.group(1)), line.group(2), line.group(3)
        lines.setdefault(conversation, []).append(f"{speaker} said: {text.rstrip('.')}")
        if moved := _THIRD_PARTY.match(text):
            facts.append(
                {"message": number, "subject": moved.group(1), "attribute": "lives_in",
                 "value": moved.group(2)}
            )  # fmt: skip
        for pattern, attribute, negated in _LLM_RULES:
            if found := pattern.search(text):
                value = found.group(1).strip(string.punctuation)
                facts.append(
                    {"message": number, "subject": "I", "attribute": attribute,
                     "value": value.lower(), "negated": negated}
                )  # fmt: skip
    summaries = [{"conversation": c, "summary": ". ".join(said) + "."} for c, said in lines.items()]
    return json.dumps({"facts": facts, "summaries": summaries}, ensure_ascii=False)


class TranscriptReader(ScriptedLLM):
    """A scripted model whose answer is computed from the prompt: the extraction JSON for a
    transcript, a plain join of the entries for a diary summary."""

    name = "reader"

    def chat(self, messages: Sequence[ChatMessage], **options: Any) -> Completion:
        prompt = messages[-1].content
        if "## conversation" in prompt:
            self.add(extraction(prompt))
        else:
            entries = [line[2:] for line in prompt.splitlines() if line.startswith("- ")]
            self.add(" ".join(entries))
        return super().chat(messages, **options)


@settings(max_examples=50, **SETTINGS)
@given(case=cases(max_messages=16))
def test_non_interference_with_an_llm_extractor(embedder, case):
    check(case, embedder, llm=TranscriptReader)


def test_the_llm_extractor_is_used(tmp_path, embedder):
    """Control: the scripted extractor's facts and summaries reach the views."""
    said = [
        Said("Je vis à Lyon", "ana", "dm:ana", ("ana",), T0),
        Said("I work at Google", "ana", "dm:ana", ("ana",), T0 + timedelta(hours=1)),
    ]
    reader = TranscriptReader()
    memory = build(tmp_path / "m.db", said, embedder, T0 + timedelta(days=1), reader)
    try:
        facts = memory.facts(participants=["ana"])
        assert {(f.attribute, f.value.lower(), f.origin) for f in facts} >= {
            ("lives_in", "lyon", "llm:reader")
        }
        assert any(d.origin == "llm:reader" for d in memory.diary(participants=["ana"]))
        assert reader.calls
    finally:
        memory.close()


def test_the_generator_makes_interesting_cases():
    """Control: a good share of generated cases (a third at least) have messages P may see
    and messages hidden from P (else the property would hold vacuously)."""
    mixed = 0
    total = 0

    @settings(max_examples=60, derandomize=True, deadline=None)
    @given(case=cases())
    def count(case: Case) -> None:
        nonlocal mixed, total
        total += 1
        visible = len(case.visible())
        if 0 < visible < len(case.messages):
            mixed += 1

    count()
    assert total == 60 and mixed >= 20, (mixed, total)
