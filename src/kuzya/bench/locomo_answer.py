"""LoCoMo answered end to end: one reader model, greedy, answers every sampled question
three times, and only the context changes:

- ``kuzya``: what `Memory.recall` packs into the word budget (as in the recall benchmark:
  a fresh store of the turns, "now" a day after the last session);
- ``bm25``: the turns Okapi BM25 ranks best, packed into the same budget;
- ``whole``: the conversation's most recent turns that fit the reader's context window
  with room left for the question and the answer.

Every context is shown the same way (`Recall.as_prompt`: facts, then turns by day), in
one prompt that has the conversation first and the question last, so the reader's prompt
cache reads the whole conversation once per conversation, not once per question. The
score is SQuAD-style token F1 against the gold answer. The sample is fixed: evenly spaced
over the questions of categories 1-4 (the adversarial category 5 has no answer) of the
conversations in name order.
"""

from __future__ import annotations

import re
import statistics
import string
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kuzya.bench.locomo import CATEGORIES, TurnIndex, imported, question_time
from kuzya.bench.locomo_data import LocomoConversation, Question, read_locomo
from kuzya.bench.stores import places
from kuzya.embed import Embedder
from kuzya.errors import InvalidInput
from kuzya.llm.base import LLM, ChatMessage
from kuzya.memory import Memory
from kuzya.model import Kind, Recall, RecallItem
from kuzya.recall.pipeline import RecallSettings

CONTEXTS = ("kuzya", "bm25", "whole")
MAX_TOKENS = 32
TEMPLATE_TOKENS = 48  # room for the chat template's own tokens around the two messages
SYSTEM = (
    "You answer questions about a conversation between {a} and {b}, using the parts of "
    "it shown to you."
)
QUESTION = "\n\nQuestion: {question}\nAnswer in a few words (a name, a date, a short phrase)."

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalise(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def token_f1(prediction: str, gold: str) -> float:
    """Token F1 of the normalised texts (tokens counted with repeats); 1.0 when both are
    empty after normalising, 0.0 when only one is."""
    said, wanted = normalise(prediction).split(), normalise(gold).split()
    if not said or not wanted:
        return float(said == wanted)
    common = sum((Counter(said) & Counter(wanted)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def sample(conversations: Sequence[LocomoConversation], n: int) -> list[tuple[int, Question]]:
    """`n` questions evenly spaced over the answerable ones (categories 1-4 with a gold
    answer) in conversation order, as (conversation index, question); all when fewer."""
    pool = [
        (index, question)
        for index, conv in enumerate(conversations)
        for question in conv.questions
        if question.category in CATEGORIES and question.answer
    ]
    if n >= len(pool):
        return pool
    return [pool[k * len(pool) // n] for k in range(n)]


@runtime_checkable
class CountsTokens(Protocol):
    """A model that knows its context window and counts its tokens (the llama.cpp one)."""

    @property
    def context_tokens(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...


@dataclass(frozen=True)
class Window:
    """The reader's context window in tokens, and how it counts a text's tokens."""

    tokens: int
    count: Callable[[str], int]
    estimated: bool = False


def window_of(llm: LLM, default_tokens: int = 4096) -> Window:
    """The model's own window and tokenizer, or (for a model that cannot count) a guess of
    a token per three characters in `default_tokens`."""
    if isinstance(llm, CountsTokens):
        return Window(llm.context_tokens, llm.count_tokens)
    return Window(default_tokens, lambda text: len(text) // 3 + 1, estimated=True)


def prompt(
    conv: LocomoConversation, context: str, question: str | None = None
) -> list[ChatMessage]:
    """The reader's prompt: the same for every context, the question last. Without a
    question: the start that every question about this context shares."""
    said = f"Conversation:\n{context}"
    if question is not None:
        said += QUESTION.format(question=question)
    system = SYSTEM.format(a=conv.speakers[0], b=conv.speakers[1])
    return [ChatMessage("system", system), ChatMessage("user", said)]


def turns_shown(conv: LocomoConversation, indices: Sequence[int]) -> Recall:
    """Turns as recalled items, so they are shown as Kuzya's own context is."""
    items = tuple(
        RecallItem(
            id=i,
            kind=Kind.EPISODE,
            text=conv.messages[i].content,
            score=0.0,
            speaker=conv.messages[i].speaker,
            conversation=conv.messages[i].conversation,
            said_at=conv.messages[i].time,
            stored_at=conv.messages[i].time,
            sources=(),
        )
        for i in indices
    )
    return Recall("", items, question_time(conv))


def whole_context(
    conv: LocomoConversation, window: Window, questions: Sequence[str]
) -> tuple[Recall, int]:
    """The most recent turns whose prompt, with the longest of `questions`, leaves room
    for the answer in the window; and its size in tokens."""
    longest = max(questions, key=window.count, default="")
    fixed = sum(window.count(m.content) for m in prompt(conv, "", longest))
    room = window.tokens - fixed - MAX_TOKENS - TEMPLATE_TOKENS
    total = len(conv.messages)

    def tokens(start: int) -> int:
        return window.count(turns_shown(conv, range(start, total)).as_prompt())

    if room < tokens(total):
        raise InvalidInput(f"a context window of {window.tokens} tokens is too small here")
    low, high = 0, total  # the earliest start that fits lies in [low, high]
    while low < high:
        middle = (low + high) // 2
        if tokens(middle) <= room:
            high = middle
        else:
            low = middle + 1
    return turns_shown(conv, range(low, total)), tokens(low)


def clean(text: str) -> str:
    """The answer's first line, without a leading "Answer:"."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    return re.sub(r"^answer\s*:\s*", "", first, flags=re.IGNORECASE)


@dataclass
class Scores:
    """F1, seconds and context size of one context's answers, by category."""

    f1: dict[str, list[float]] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    words: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)

    def add(self, category: str, f1: float, seconds: float, words: int, tokens: int) -> None:
        self.f1.setdefault(category, []).append(f1)
        self.seconds.append(seconds)
        self.words.append(words)
        self.prompt_tokens.append(tokens)

    def summary(self) -> dict[str, Any]:
        def block(values: list[float]) -> dict[str, Any]:
            return {"f1": round(statistics.fmean(values), 4) if values else 0.0, "n": len(values)}

        return {
            "overall": block([v for c in CATEGORIES.values() for v in self.f1.get(c, [])]),
            "by_category": {c: block(self.f1.get(c, [])) for c in CATEGORIES.values()},
            "seconds_per_answer": _mean(self.seconds, 2),
            "context_words": _mean(self.words, 1),
            "prompt_tokens": _mean(self.prompt_tokens, 1),
        }


def _mean(values: Sequence[float], digits: int) -> float:
    return round(statistics.fmean(values), digits) if values else 0.0


@dataclass
class _Reader:
    """The model answering, its scores per context and every answer given."""

    llm: LLM
    scores: dict[str, Scores] = field(default_factory=lambda: {c: Scores() for c in CONTEXTS})
    answers: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def answer(
        self,
        name: str,
        conv: LocomoConversation,
        question: Question,
        context: Recall,
        seconds: float = 0.0,
    ) -> None:
        """Answer `question` from `context`; `seconds` it took to get the context."""
        started = time.perf_counter()
        completion = self.llm.chat(
            prompt(conv, context.as_prompt(), question.text),
            max_tokens=MAX_TOKENS,
            temperature=0.0,
        )
        seconds += time.perf_counter() - started
        said = clean(completion.text)
        f1 = token_f1(said, question.answer)
        self.scores[name].add(
            CATEGORIES[question.category],
            f1,
            seconds,
            context.words,
            completion.usage.prompt_tokens,
        )
        record = self.answers.setdefault(
            (conv.name, question.text),
            {
                "conversation": conv.name,
                "question": question.text,
                "category": CATEGORIES[question.category],
                "gold": question.answer,
            },
        )
        record[name] = {"answer": said, "f1": round(f1, 4)}


def _whole(
    reader: _Reader, conv: LocomoConversation, questions: Sequence[Question], window: Window
) -> dict[str, Any]:
    """Answer from the most recent turns that fit, read once (the prompt cache keeps them
    while the questions change): what was shown and the seconds the first reading took."""
    context, tokens = whole_context(conv, window, [q.text for q in questions])
    started = time.perf_counter()
    reader.llm.prefill(prompt(conv, context.as_prompt()))
    prefill = time.perf_counter() - started
    for question in questions:
        reader.answer("whole", conv, question, context)
    return {"turns": len(context.items), "of": len(conv.messages), "tokens": tokens,
            "prefill_seconds": round(prefill, 2)}  # fmt: skip


def _kuzya(
    reader: _Reader,
    conv: LocomoConversation,
    questions: Sequence[Question],
    memory: Memory,
    budget_words: int,
    latencies: list[float],
) -> None:
    for question in questions:
        started = time.perf_counter()
        context = memory.recall(
            question.text,
            participants=conv.speakers,
            now=question_time(conv),
            limit=100,
            budget_words=budget_words,
        )
        latencies.append(time.perf_counter() - started)
        reader.answer("kuzya", conv, question, context, latencies[-1])


def _bm25(
    reader: _Reader, conv: LocomoConversation, questions: Sequence[Question], budget_words: int
) -> None:
    index = TurnIndex(conv)
    for question in questions:
        started = time.perf_counter()
        kept, _ = index.within(question.text, budget_words)
        context = turns_shown(conv, kept)
        reader.answer("bm25", conv, question, context, time.perf_counter() - started)


def run(
    paths: Sequence[Path],
    embedder: Embedder,
    llm: LLM,
    *,
    questions: int = 200,
    budget_words: int = 400,
    window: Window | None = None,
    settings: RecallSettings | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Answer a fixed sample of `questions` with each context; the scores as a dict."""
    window = window or window_of(llm)
    conversations = sorted((read_locomo(path) for path in paths), key=lambda c: c.name)
    chosen = sample(conversations, questions)
    reader = _Reader(llm)
    latencies: list[float] = []
    shown: dict[str, Any] = {}
    embedder.embed(["warm up the model"])
    say = progress or (lambda line: None)
    with tempfile.TemporaryDirectory(prefix="kuzya-locomo-answer-") as tmp:
        for index, conv in enumerate(conversations):
            asked = [question for i, question in chosen if i == index]
            if not asked:
                continue
            started = time.perf_counter()
            shown[conv.name] = whole = _whole(reader, conv, asked, window)  # the cache is cold
            say(
                f"{conv.name}: {len(asked)} answers from the last {whole['turns']} of "
                f"{whole['of']} turns ({whole['tokens']} tokens, read in "
                f"{whole['prefill_seconds']:.0f} s) in {time.perf_counter() - started:.0f} s"
            )
            started = time.perf_counter()
            with (
                places("sqlite", Path(tmp)) as place,
                imported(conv, embedder, place, settings or RecallSettings()) as imports,
            ):
                _kuzya(reader, conv, asked, imports[0], budget_words, latencies)
            say(f"{conv.name}: from Kuzya's context in {time.perf_counter() - started:.0f} s")
            started = time.perf_counter()
            _bm25(reader, conv, asked, budget_words)
            say(f"{conv.name}: from BM25's context in {time.perf_counter() - started:.0f} s")
    return _report(reader, shown, latencies, window, chosen, budget_words, embedder.name)


def _report(
    reader: _Reader,
    shown: dict[str, Any],
    latencies: list[float],
    window: Window,
    chosen: Sequence[tuple[int, Question]],
    budget_words: int,
    embedder: str,
) -> dict[str, Any]:
    contexts = {name: scores.summary() for name, scores in reader.scores.items()}
    whole = contexts["whole"]
    prefill = sum(c["prefill_seconds"] for c in shown.values())
    answered = whole["overall"]["n"]
    whole["prefill_seconds"] = round(prefill, 1)
    whole["seconds_per_answer_with_prefill"] = (
        round(whole["seconds_per_answer"] + prefill / answered, 2) if answered else 0.0
    )
    whole["turns_shown"] = sum(c["turns"] for c in shown.values())
    whole["turns"] = sum(c["of"] for c in shown.values())
    ordered = sorted(latencies)
    return {
        "reader": reader.llm.name,
        "questions": len(chosen),
        "budget_words": budget_words,
        "max_tokens": MAX_TOKENS,
        "window_tokens": window.tokens,
        "window_estimated": window.estimated,
        "embedder": embedder,
        "recall_ms_p50": round(1000 * ordered[len(ordered) // 2], 2) if ordered else 0.0,
        "contexts": contexts,
        "conversations": shown,
        "answers": list(reader.answers.values()),
    }
