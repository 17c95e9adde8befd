"""Synthetic group chat: topic precision and privacy under parallel topics and side chats.

One group conversation with every participant and the assistant carries three topics
(a hiking trip, a book club reading a novel, a birthday party) interleaved at random,
plus some chit-chat, over several days. Side conversations (a DM between each person and
the assistant, small groups, and one group of everyone but one person) talk about the
same topics and hold "secret" markers: codes such as ``QX481`` that only their own
participants may ever be shown.

Topic precision: each topic has 30 questions, asked by everyone present (18 in other
words than the topic's own, 12 with its words or names; which is which is computed from
the topic's keyword list); precision@10 is the share of the ten best items said about
the asked topic in the group chat. Each topic has eight "key" messages (a decision, a
booking, a reveal), each asked for twice, once in other words and once with the topic's
words; key recall is the share of those questions whose key message is in the recall
packed into 400 words.

Privacy: for random subsets of the participants (always with the assistant) several
recalls, some aimed straight at the secrets or at the working memory of a conversation
the subset is not part of, are checked item by item: every source episode's audience
(`Memory.get(id).audience`) and every source's conversation must include the whole
subset, and no marker of a conversation the subset was not fully part of may appear in
an item's text. `checks` counts the two checks of each source and the marker scan of
each item; the recalls of the topic questions (everyone present) are checked too. Every
conversation's secrets must also be found by its own participants (a positive control:
a recall that returned nothing would pass the privacy checks).

Latency covers every recall above (not the ablation without neighbour smoothing);
import throughput counts every message, side chats included.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kuzya.bench.groupchat_topics import CHITCHAT, CLOSERS, OPENERS, SECRETS, TOPICS, Topic
from kuzya.bench.stores import places
from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import Episode, Message, Recall

ASSISTANT = "assistant"
GROUP = "group-main"
NAMES = tuple(
    "ana ben chloe dmitri emeka farah gio hana ivan jules kemal lucia marta noor oskar "
    "priya".split()
)
START = datetime(2025, 5, 5, 8, tzinfo=UTC)  # a Monday morning
DAYS = 6
KEY_BUDGET = 400


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


@dataclass(frozen=True)
class Question:
    topic: str
    text: str
    key: int | None  # index of the key message it asks for
    keywords: bool  # the text uses the topic's exact words or names


@dataclass(frozen=True)
class Line:
    """A generated message with its ground truth."""

    message: Message
    topic: str | None  # None: chit-chat
    key: int | None = None  # index into the topic's keys
    code: str | None = None  # the secret marker it carries


@dataclass
class Chat:
    participants: tuple[str, ...]
    lines: list[Line]  # every message, in time order
    members: dict[str, frozenset[str]]  # conversation -> its participants (with assistant)
    codes: dict[str, str] = field(default_factory=dict)  # marker -> conversation

    @property
    def group_messages(self) -> int:
        return sum(1 for line in self.lines if line.message.conversation == GROUP)


def questions() -> list[Question]:
    asked = []
    for topic in TOPICS:
        for index, (_, *texts) in enumerate(topic.keys):
            for text in texts:
                asked.append(Question(topic.name, text, index, bool(_words(text) & topic.keywords)))
        for text in topic.questions:
            asked.append(Question(topic.name, text, None, bool(_words(text) & topic.keywords)))
    return asked


def _chat_line(rng: random.Random, topic: Topic, speaker: str, people: Sequence[str]) -> str:
    others = [p for p in people if p != speaker] or list(people)
    values = {name: rng.choice(options) for name, options in topic.slots.items()}
    values["person"] = rng.choice(others).capitalize()
    text = rng.choice(topic.templates).format(**values)
    return f"{rng.choice(OPENERS)}{text}{rng.choice(CLOSERS)}"


def _times(rng: random.Random, count: int) -> list[datetime]:
    """Sorted moments between 8:00 and 23:00 over DAYS days."""
    return sorted(
        START + timedelta(days=rng.randrange(DAYS), seconds=rng.randrange(15 * 3600))
        for _ in range(count)
    )


def _code(rng: random.Random, taken: Mapping[str, str]) -> str:
    while True:
        code = (
            rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ")
            + rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ")
            + str(rng.randrange(100, 1000))
        )
        if code not in taken:
            return code


def generate(messages: int = 2000, participants: int = 12, seed: int = 2025) -> Chat:
    """The group chat (with its key messages at random places) and the side chats."""
    if not 2 <= participants <= len(NAMES):
        raise ValueError(f"participants must be from 2 to {len(NAMES)}")
    keys = [(topic, i) for topic in TOPICS for i in range(len(topic.keys))]
    if messages < 2 * len(keys):
        raise ValueError(f"messages must be at least {2 * len(keys)}")
    rng = random.Random(seed)
    people = NAMES[:participants]
    members: dict[str, frozenset[str]] = {}
    lines: list[Line] = []

    def say(
        conversation: str,
        speaker: str,
        text: str,
        when: datetime,
        topic: str | None,
        key: int | None = None,
        code: str | None = None,
    ) -> None:
        present = tuple(sorted(members[conversation]))
        message = Message(text, speaker, conversation, present, when)
        lines.append(Line(message, topic, key, code))

    # The group chat: topics in short runs (a reply often stays on topic), some chit-chat.
    members[GROUP] = frozenset((*people, ASSISTANT))
    key_at = dict(zip(rng.sample(range(messages), len(keys)), keys, strict=True))
    topic = rng.choice(TOPICS)
    for i, when in enumerate(_times(rng, messages)):
        speaker = rng.choice(people)
        if i in key_at:
            topic, key = key_at[i]
            say(GROUP, speaker, topic.keys[key][0], when, topic.name, key)
        elif rng.random() < 0.08:
            say(GROUP, speaker, rng.choice(CHITCHAT), when, None)
        else:
            if rng.random() < 0.5:
                topic = rng.choice(TOPICS)
            say(GROUP, speaker, _chat_line(rng, topic, speaker, people), when, topic.name)
    # Side chats: a DM per person, small groups, and everyone but one person.
    sides: list[tuple[str, tuple[str, ...]]] = [(f"dm-{p}", (p,)) for p in people]
    for i in range(max(4, participants)):
        size = 2 + i % min(5, participants - 1)
        sides.append((f"side-{i}", tuple(rng.sample(people, size))))
    if participants >= 3:
        left_out = rng.choice(people)
        sides.append(("side-all-but-one", tuple(p for p in people if p != left_out)))
    codes: dict[str, str] = {}
    for conversation, humans in sides:
        members[conversation] = frozenset((*humans, ASSISTANT))
        talk = [rng.choice(TOPICS) for _ in range(6)]
        moments = _times(rng, len(talk) + 2)
        for topic, when in zip(talk, moments, strict=False):
            speaker = rng.choice(humans)
            text = _chat_line(rng, topic, speaker, people)
            say(conversation, speaker, text, when, topic.name)
        secrets = (rng.choice(SECRETS), rng.choice(rng.choice(TOPICS).secrets))
        for template, when in zip(secrets, moments[-2:], strict=True):
            code = _code(rng, codes)
            codes[code] = conversation
            say(
                conversation, rng.choice(humans), template.format(code=code), when, None, None, code
            )
    lines.sort(key=lambda line: (line.message.time, line.message.conversation))
    return Chat(people, lines, members, codes)


def _percentiles(latencies: Sequence[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }


@dataclass
class _Privacy:
    """Checks every item of a recall against the ground truth and the store's audiences."""

    memory: Memory
    chat: Chat
    recalls: int = 0
    items: int = 0
    checks: int = 0
    violations: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    _episodes: dict[int, Episode] = field(default_factory=dict)

    def _fail(self, kind: str, present: Sequence[str], query: str, detail: Any) -> None:
        self.violations += 1
        if len(self.examples) < 10:
            self.examples.append(
                {"kind": kind, "participants": list(present), "query": query, "detail": detail}
            )

    def check(self, result: Recall, present: Sequence[str]) -> None:
        group = set(present)
        self.recalls += 1
        for item in result.items:
            self.items += 1
            for source in item.sources:
                episode = self._episodes.get(source)
                if episode is None:
                    episode = self._episodes[source] = self.memory.get(source)
                self.checks += 2
                if not group <= episode.audience:
                    self._fail(
                        "audience",
                        present,
                        result.query,
                        {"episode": source, "audience": sorted(episode.audience)},
                    )
                if not group <= self.chat.members.get(episode.conversation, frozenset()):
                    where = {"episode": source, "conversation": episode.conversation}
                    self._fail("conversation", present, result.query, where)
            self.checks += 1
            for code, conversation in self.chat.codes.items():
                if code in item.text and not group <= self.chat.members[conversation]:
                    self._fail(
                        "marker",
                        present,
                        result.query,
                        {"code": code, "from": conversation, "item": item.text},
                    )


def _subsets(chat: Chat, count: int, seed: int) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    chosen = []
    for _ in range(count):
        size = rng.randint(1, len(chat.participants))
        chosen.append((*rng.sample(chat.participants, size), ASSISTANT))
    return chosen


def _privacy_probes(
    chat: Chat, present: Sequence[str], rng: random.Random, asked: Sequence[Question]
) -> list[tuple[str, str | None, str | None]]:
    """(query, conversation, speaker) recalls for one subset, some aimed at its blind spots."""
    group = set(present)
    speaker = present[0]
    forbidden = [c for c, m in chat.members.items() if not group <= m]
    hidden = [line for line in chat.lines if line.code and line.message.conversation in forbidden]
    probes: list[tuple[str, str | None, str | None]] = [
        ("what is my secret code?", None, speaker),
        ("secret", None, None),
        (rng.choice(asked).text, GROUP, speaker),
    ]
    if hidden:
        target = rng.choice(hidden)
        assert target.code is not None
        probes += [
            (target.message.text, None, target.message.speaker),
            (target.code, None, None),
            ("and what was the code for that?", target.message.conversation, speaker),
        ]
    return probes


def run(
    embedder: Embedder,
    workdir: Path,
    *,
    messages: int = 2000,
    participants: int = 12,
    subsets: int = 100,
    seed: int = 2025,
    progress: Callable[[str], None] | None = None,
    backend: str = "sqlite",
    db: str | None = None,
) -> dict[str, Any]:
    with places(backend, workdir, db) as place:
        return _run(embedder, place("groupchat"), messages, participants, subsets, seed,
                    progress)  # fmt: skip


def _run(
    embedder: Embedder,
    location: str | Path,
    messages: int,
    participants: int,
    subsets: int,
    seed: int,
    progress: Callable[[str], None] | None,
) -> dict[str, Any]:
    chat = generate(messages, participants, seed)
    embedder.embed(["warm up the model"])
    say = progress or (lambda _: None)
    latencies: list[float] = []
    with Memory.open(
        location,
        namespace="groupchat",
        embedder=embedder,
        durable=False,
        llm="none",
    ) as memory:
        say(f"importing {len(chat.lines)} messages in {len(chat.members)} conversations")
        started = time.perf_counter()
        stored = memory.remember_many(line.message for line in chat.lines)
        import_seconds = time.perf_counter() - started
        truth = {episode.id: line for episode, line in zip(stored, chat.lines, strict=True)}
        key_id = {
            (line.topic, line.key): episode_id
            for episode_id, line in truth.items()
            if line.key is not None
        }
        now = chat.lines[-1].message.time + timedelta(hours=1)
        everyone = (*chat.participants, ASSISTANT)
        privacy = _Privacy(memory, chat)

        def recall(query: str, present: Sequence[str], **options: Any) -> Recall:
            started = time.perf_counter()
            result = memory.recall(query, participants=present, now=now, **options)
            latencies.append(1000 * (time.perf_counter() - started))
            privacy.check(result, present)
            return result

        def topic_precision(mem: Memory, query: Question) -> float:
            started = time.perf_counter()
            top = mem.recall(
                query.text, participants=everyone, now=now, limit=10, budget_words=None
            )
            if mem is memory:
                latencies.append(1000 * (time.perf_counter() - started))
            privacy.check(top, everyone)
            return sum(1 for item in top.items if truth[item.id].topic == query.topic) / 10

        say("topic questions")
        asked = questions()
        scores: dict[str, dict[str, list[float]]] = {t.name: {} for t in TOPICS}
        plain = memory.with_settings(neighbour_weight=0.0)
        for question in asked:
            precision = topic_precision(memory, question)
            table = scores[question.topic]
            table.setdefault("all", []).append(precision)
            table.setdefault("keywords" if question.keywords else "paraphrased", []).append(
                precision
            )
            table.setdefault("no_neighbours", []).append(topic_precision(plain, question))
            if question.key is not None:
                packed = recall(question.text, everyone, limit=100, budget_words=KEY_BUDGET)
                wanted = key_id[(question.topic, question.key)]
                found = any(wanted in item.sources for item in packed.items)
                table.setdefault("key", []).append(1.0 if found else 0.0)
                kind = "key_keywords" if question.keywords else "key_paraphrased"
                table.setdefault(kind, []).append(1.0 if found else 0.0)

        say(f"privacy: {subsets} participant subsets")
        rng = random.Random(seed + 1)
        for present in _subsets(chat, subsets, seed + 2):
            for query, conversation, speaker in _privacy_probes(chat, present, rng, asked):
                recall(
                    query,
                    present,
                    conversation=conversation,
                    speaker=speaker,
                    limit=50,
                    budget_words=None,
                )
        # Positive controls: the secrets are found by those who may see them.
        controls = 0
        found_secrets = 0
        for conversation, audience in chat.members.items():
            codes = {c for c, conv in chat.codes.items() if conv == conversation}
            if not codes:
                continue
            humans = sorted(audience - {ASSISTANT})
            result = recall(
                "what is my secret code?",
                sorted(audience),
                speaker=humans[0],
                limit=50,
                budget_words=None,
            )
            controls += 1
            found_secrets += any(code in item.text for item in result.items for code in codes)

    def mean(values: Sequence[float]) -> float:
        return round(statistics.fmean(values), 4) if values else 0.0

    group_lines = [line for line in chat.lines if line.message.conversation == GROUP]
    topics = {
        name: {
            "precision_at_10": mean(table["all"]),
            "n": len(table["all"]),
            "precision_paraphrased": mean(table.get("paraphrased", [])),
            "n_paraphrased": len(table.get("paraphrased", [])),
            "precision_keywords": mean(table.get("keywords", [])),
            "n_keywords": len(table.get("keywords", [])),
            "precision_without_neighbours": mean(table["no_neighbours"]),
            "key_recall_400": mean(table["key"]),
            "n_key": len(table["key"]),
            "key_recall_400_paraphrased": mean(table.get("key_paraphrased", [])),
            "key_recall_400_keywords": mean(table.get("key_keywords", [])),
            "share_of_group_chat": round(
                sum(1 for line in group_lines if line.topic == name) / len(group_lines), 4
            ),
        }
        for name, table in scores.items()
    }
    return {
        "messages": chat.group_messages,
        "side_messages": len(chat.lines) - chat.group_messages,
        "participants": len(chat.participants),
        "conversations": len(chat.members),
        "embedder": embedder.name,
        "topics": topics,
        "mean_precision_at_10": mean([t["precision_at_10"] for t in topics.values()]),
        "mean_precision_without_neighbours": mean(
            [t["precision_without_neighbours"] for t in topics.values()]
        ),
        "mean_key_recall_400": mean([t["key_recall_400"] for t in topics.values()]),
        "privacy": {
            "subsets": subsets,
            "recalls": privacy.recalls,
            "items": privacy.items,
            "checks": privacy.checks,
            "violations": privacy.violations,
            "examples": privacy.examples,
            "secrets_found_by_their_audience": {"found": found_secrets, "total": controls},
        },
        "latency_ms": _percentiles(latencies),
        "import_msgs_per_s": round(len(chat.lines) / import_seconds, 1),
    }
