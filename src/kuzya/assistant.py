"""The assistant turn: recall → prompt (system, profile, memory, working memory) → LLM →
reply; the turn is remembered after the reply is returned, off the reply path."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from kuzya import prompt_notes, validate
from kuzya.entities.ner import is_russian
from kuzya.errors import InvalidInput, LLMError
from kuzya.extractive import extractive_reply
from kuzya.facts import rules
from kuzya.language import dates
from kuzya.language.days import day_name
from kuzya.language.sentences import whole
from kuzya.language.text import terms
from kuzya.llm.base import LLM, ChatMessage, ToolCall, Usage
from kuzya.llm.structured import parse_json
from kuzya.memory import Memory
from kuzya.model import Episode, Kind, Recall, RecallItem, is_assistant
from kuzya.recall import passages, query
from kuzya.tools import Context, Pending, Toolbox, confirms, converse

SYSTEM = (
    "You are {name}, a helpful assistant with long-term memory. Messages come with notes "
    "from your memory: use them when they help (newer replace older), never invent "
    "memories, be brief, answer in the language of the question. Notes marked (you) are "
    "your own earlier replies and may be wrong: what people said wins."
)

ANSWER = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


# A small model's answer is one line: a line break inside its JSON string, as it is
# ("Lisbon }⏎⏎The user asked…") or escaped, starts a ramble, so it ends the reply.
SMALL_STOP: tuple[str, ...] = ("\n", "\\n")


def answer_text(text: str) -> str:
    """The answer field of a JSON reply (without a closing brace a small model writes
    inside it, as in "Lisbon }"); the text itself if the model did not comply."""
    try:
        value = parse_json(text)
    except LLMError:
        return text
    answer = value.get("answer") if isinstance(value, dict) else None
    answer = answer.rstrip().removesuffix("}").rstrip() if isinstance(answer, str) else None
    return answer or text


def _speaker(speaker: str | None, present: Sequence[str]) -> str:
    """Who is speaking: named, and present; it may go unnamed only when one person is."""
    if speaker is None:
        if len(present) > 1:
            raise InvalidInput("speaker= is needed when more than one person is present")
        return present[0]
    who = validate.name(speaker, "speaker")
    if who not in present:
        raise InvalidInput(f"speaker {who!r} is not among the participants")
    return who


@dataclass(frozen=True)
class _Turn:
    """A turn to write after the reply: the message (None once it was stored, as a request
    to forget is) and the answer with the memories it was made from."""

    text: str | None
    answer: str
    conversation: str
    present: tuple[str, ...]
    who: str
    moment: datetime
    used: frozenset[int]


@dataclass(frozen=True)
class Reply:
    """An answer, what was recalled for it, the tokens it took and the seconds from the
    message to the reply (waiting for the previous turn's background work included)."""

    text: str
    recall: Recall
    usage: Usage
    seconds: float
    tool_calls: tuple[ToolCall, ...] = ()
    confirm: str | None = None  # a tool that acts waits for a yes: the question asked


class Assistant:
    """A chat assistant over a `Memory`. `llm=None` answers extractively from memory.

    `small_model` suits a model as small as SmolLM2 (135M): its reply is held to
    `{"answer": ...}` by a grammar and to `max_tokens` (default 48), and the recalled facts
    are repeated next to the message with the messages they came from, since such a model
    reads little else. A capable model gets each memory once and writes freely (default
    `max_tokens` 200), and the newest `ahead_words` of what people said (default 800, at
    most a fifth of the model's context window in tokens; 0 for a small model) in the
    prompt's prefix, read before a question comes (see `prepare`).

    Replies in different conversations may run at once, from many threads; the replies of
    one conversation are to come one at a time, each after the last returned."""

    def __init__(
        self,
        memory: Memory,
        llm: LLM | None,
        *,
        name: str = "assistant",
        budget_words: int = 200,
        max_items: int = 6,
        own_replies: int = 2,
        profile_facts: int = 8,
        working_turns: int = 6,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        tools: Toolbox | None = None,
        max_steps: int = 4,
        small_model: bool = False,
        ahead_words: int | None = None,
    ) -> None:
        self.memory, self.llm, self.name = memory, llm, validate.name(name, "name")
        self.budget_words, self.working_turns = budget_words, working_turns
        self.max_items, self.profile_facts = max_items, profile_facts
        self.own_replies = own_replies
        self.temperature, self.tools, self.small_model = temperature, tools, small_model
        self.max_steps = validate.integer(max_steps, "max_steps", 1, 32)
        # tool calls that act, waiting for their asker's yes, by (conversation, asker)
        self._waiting: dict[tuple[str, str], Pending] = {}
        self.max_tokens = max_tokens or (48 if small_model else 200)
        if ahead_words is None:  # a fifth of a known window: up to half of it in Russian
            window = getattr(llm, "context_tokens", None)
            ahead_words = 0 if small_model else min(800, window // 5 if window else 800)
        self.ahead_words = validate.integer(ahead_words, "ahead_words", 0, 100_000)
        self.stop = SMALL_STOP if small_model else ()
        # one thread, so the writes and the prefills after them run in order
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kuzya-remember")
        self._pending: list[Future[Any]] = []
        self._lock = threading.Lock()  # of the two above: replies may come from many threads

    def reply(
        self,
        message: str,
        *,
        conversation: str,
        participants: Sequence[str],
        speaker: str | None = None,
        now: datetime | str | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Reply:
        """Answer `message` said by `speaker` (needed when more than one person is present).
        `on_text` receives the answer as it is written (streamed where the model can); the
        reply's text is the final word (a question to confirm a tool is added to it)."""
        text = validate.text(message)
        present = validate.names(participants, "participants")
        who = _speaker(speaker, present)
        moment = validate.moment(now, "now")
        started = time.perf_counter()
        self.flush()  # the previous turn is in memory before this one is answered
        with self._lock:
            waiting = self._waiting.pop((conversation, who), None)
        if waiting is not None and confirms(text):
            reply = self._confirmed(waiting, text, conversation, present, who, moment, started)
            if on_text is not None:
                on_text(reply.text)
            return reply
        asked_to_forget = rules.forget_request(text, who) is not None
        if asked_to_forget:  # carried out, and stored without what it forgets, before recall
            self.memory.remember(
                text, speaker=who, conversation=conversation, participants=present, time=moment
            )
        recall = self.memory.recall(
            text,
            participants=present,
            now=moment,
            # the conversation's last turns go to a model as they are, so recall leaves
            # them out; an extractive answer has only what recall finds
            conversation=None if self.llm is None else conversation,
            speaker=who,
            budget_words=self.budget_words,
        )
        answer, usage, calls, used, pending = self._answer(
            text, recall, conversation, present, who, on_text
        )
        question = None
        if pending is not None:
            with self._lock:
                self._waiting[(conversation, who)] = pending
            question = pending.question(is_russian(text))
            answer = f"{answer}\n{question}".strip()
        seconds = time.perf_counter() - started
        said = None if asked_to_forget else text
        turn = _Turn(said, answer, conversation, present, who, moment, frozenset(used))
        self._after(self._remember, turn)
        return Reply(answer, recall, usage, seconds, calls, question)

    def _confirmed(
        self,
        waiting: Pending,
        text: str,
        conversation: str,
        present: tuple[str, ...],
        who: str,
        moment: datetime,
        started: float,
    ) -> Reply:
        """The person said yes: the tool runs now, and the reply says what it did."""
        output = waiting.spec.run(
            Context(self.memory, who, present, conversation), waiting.arguments
        )
        answer = f"{'Готово' if is_russian(text) else 'Done'}: {output.text}."
        turn = _Turn(text, answer, conversation, present, who, moment, frozenset())
        self._after(self._remember, turn)
        recall = Recall(text, (), moment)
        return Reply(answer, recall, Usage(), time.perf_counter() - started, (waiting.call,))

    def _prompt(
        self, text: str, recall: Recall, conversation: str, present: Sequence[str], who: str
    ) -> tuple[list[ChatMessage], set[int]]:
        """The prefix (system with the read-ahead notes and the asker's profile, then the
        working memory as turns), then the message with the notes the prefix lacks right
        before it (small models read notes best next to the question); and the memories the
        notes and the people's turns come from."""
        profile = self.profile(who, present, recall.now)
        turns = self._turns(conversation, present)
        known = self._ahead(present, recall.now, turns)
        messages = self.prefix(conversation, present, who, profile, turns, known, recall.now)
        notes = self.notes(recall, profile, known)
        # named as the turns before it are, or a model may answer as if it had said it
        said = text if self.small_model and len(present) == 1 else f"{who}: {text}"
        # the dates the message means, as the notes give theirs ("last Wednesday = 6 May")
        meant = "; ".join(dict.fromkeys(n for span in dates.find(text, recall.now)
                                        if (n := span.note())))  # fmt: skip
        said += f" ({meant})" if meant else ""
        if notes.items:  # in the question's language: a small model answers in the notes'
            russian = is_russian(text)
            today = day_name(recall.now, russian)
            lead = prompt_notes.NOTES_LEAD[russian].format(who=who, today=today)
            listed = notes.as_notes(russian, in_time_order=query.asks_now(text))
            said = f"{lead}\n{listed}\n\n{said}"
        if notes.items or known:
            said += f"\n{prompt_notes.briefly(text)}"
        used = {s for item in (*known, *notes.items) for s in item.sources}
        used.update(turn.id for turn in turns if not is_assistant(turn))
        return [*messages, ChatMessage("user", said)], used

    def _ahead(
        self, present: Sequence[str], now: datetime, turns: Sequence[Episode]
    ) -> tuple[RecallItem, ...]:
        leave_out = {turn.id for turn in turns}
        return prompt_notes.read_ahead(self.memory, present, now, self.ahead_words, leave_out)

    def _turns(self, conversation: str, present: Sequence[str]) -> list[Episode]:
        scope = self.memory.store.scope(self.memory.namespace, present)
        return self.memory.store.recent_turns(scope, conversation, self.working_turns)

    def prefix(
        self,
        conversation: str,
        present: Sequence[str],
        who: str,
        profile: Sequence[RecallItem],
        turns: Sequence[Episode] | None = None,
        known: Sequence[RecallItem] = (),
        now: datetime | None = None,
    ) -> list[ChatMessage]:
        """What every reply to `who` in this conversation starts with until the next turn:
        the system prompt with the read-ahead notes `known` (dated as of `now`) and the
        profile, then the recent turns. It changes slowly (new notes and turns come at its
        end), so a runtime with a prompt cache reads it once (see `prepare`)."""
        system = self.system_prompt(present, profile, who, known, now)
        messages = [ChatMessage("system", system)]
        for turn in self._turns(conversation, present) if turns is None else turns:
            mine = is_assistant(turn)
            content = turn.content if mine else f"{turn.speaker}: {turn.content}"
            messages.append(ChatMessage("assistant" if mine else "user", content))
        return messages

    def profile(
        self, who: str, present: Sequence[str], now: datetime | None = None
    ) -> tuple[RecallItem, ...]:
        """The asker's facts that hold at `now` (by default the current time) and that the
        present may see, most important first."""
        facts = self.memory.profile(who, participants=present, now=now).facts
        return tuple(RecallItem.of_fact(f, dated=False) for f in facts[: self.profile_facts])

    def notes(
        self, recall: Recall, profile: Sequence[RecallItem], known: Sequence[RecallItem] = ()
    ) -> Recall:
        """What goes next to the message: what the prefix lacks (the profile and the
        read-ahead notes `known`, whose messages and facts drawn only from them are left
        out) of the following. The recalled facts the profile lacks, then the
        best `max_items` recalled messages (by rank, not by a share of the best score: fused
        scores are not calibrated, and the answer often ranks third), each without the
        sentences a fact in the prompt already states (never a whole message for one fact
        it holds: the rest of it may be what the question needs). The assistant's own past
        replies come only when the question asks what it said (`prompt_notes.asks_about_replies`),
        after what people said, marked as its own words, at most `own_replies` of them:
        they are the conversation, not evidence about anyone. Turns
        that state nothing (questions asked before, "lol") are left out: an earlier "where
        do I live?" is the closest match to the same question, never its answer. For a
        small model every recalled fact stays, and every message whole."""
        given = set() if self.small_model else {i.id for i in profile}
        read = {i.id for i in known}
        facts = [
            i
            for i in recall.items
            if i.kind is Kind.FACT and i.id not in given and not read.issuperset(i.sources)
        ]
        stated = [] if self.small_model else [set(terms(i.text)) for i in (*profile, *facts)]
        others = [
            i for i in recall.items if i.kind is not Kind.FACT and not passages.low_content(i.text)
        ]
        said = [u for i in others if not i.assistant and (u := prompt_notes.unstated(i, stated))]
        own = [
            replace(i, speaker=f"{i.speaker} (you)")
            for i in others
            if i.assistant and prompt_notes.asks_about_replies(recall.query)
        ]
        kept = said[: self.max_items] + own[: min(self.own_replies, self.max_items - len(said))]
        kept = [i for i in kept if i.kind is not Kind.EPISODE or i.id not in read]
        return Recall(recall.query, tuple(facts + kept), recall.now)

    def prepare(
        self,
        conversation: str,
        participants: Sequence[str],
        speaker: str | None = None,
        now: datetime | str | None = None,
    ) -> None:
        """Have the model read this conversation's prefix as of `now` (by default the
        current time) in the background, after the last turn is written, so the next reply
        reads only its notes and message. Call it when a chat opens and after each reply;
        `flush` waits for it. It does nothing for models without a prompt cache and for
        `llm=None`."""
        present = validate.names(participants, "participants")
        who = _speaker(speaker, present)
        conversation = validate.name(conversation, "conversation")
        moment = validate.moment(now, "now")
        if self.llm is not None:
            self._after(self._prefill, self.llm, conversation, present, who, moment)

    def _prefill(
        self, llm: LLM, conversation: str, present: Sequence[str], who: str, now: datetime
    ) -> None:
        profile = self.profile(who, present, now)
        turns = self._turns(conversation, present)
        known = self._ahead(present, now, turns)
        llm.prefill(self.prefix(conversation, present, who, profile, turns, known, now))

    def system_prompt(
        self,
        present: Sequence[str] = (),
        profile: Sequence[RecallItem] = (),
        who: str = "",
        known: Sequence[RecallItem] = (),
        now: datetime | None = None,
    ) -> str:
        """The instructions, who is present, the read-ahead notes `known` with today's date
        (`now`), and what is known about the asker."""
        system = SYSTEM.format(name=self.name)
        if present:
            system += f"\nYou are talking with {', '.join(present)}."
        if known and now is not None:
            system += f"\n{prompt_notes.as_prompt(known, now)}"
        if profile:
            listed = "\n".join(f"- {item.line()}" for item in profile)
            system += f"\nWhat you know about {who}:\n{listed}"
        return system

    def _answer(
        self,
        text: str,
        recall: Recall,
        conversation: str,
        present: Sequence[str],
        who: str,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, Usage, tuple[ToolCall, ...], set[int], Pending | None]:
        """The reply, its cost, the tools it called, the memories it was made from (what
        its notes and the people's turns came from and the memories its tools found; the
        profile facts it repeats join them in `_repeated`), and a call of a tool that waits
        for a yes."""
        if self.llm is None:
            answer, quoted = extractive_reply(text, recall)
            if on_text is not None and answer:
                on_text(answer)
            return answer, Usage(), (), {s for i in quoted for s in i.sources}, None
        messages, used = self._prompt(text, recall, conversation, present, who)
        pending: Pending | None = None
        calls: tuple[ToolCall, ...] = ()
        if self.tools is None:
            result = self.llm.chat(
                messages,
                json_schema=ANSWER if self.small_model else None,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                on_text=None if self.small_model else on_text,
                stop=self.stop,
            )
            answer = answer_text(result.text) if self.small_model else result.text
            if self.small_model and on_text is not None and answer:
                on_text(answer)
            if result.finish_reason == "length":
                answer = whole(answer.strip())
            usage, calls = result.usage, ()
        else:
            context = Context(self.memory, who, tuple(present), conversation)
            talk = converse(
                self.llm, messages, self.tools, context, max_steps=self.max_steps,
                max_tokens=self.max_tokens, temperature=self.temperature, on_text=on_text,
            )  # fmt: skip
            answer, usage, calls, pending = talk.answer, talk.usage, tuple(talk.calls), talk.pending
            used.update(talk.found)
        return answer.strip(), usage, calls, used, pending

    def _remember(self, turn: _Turn) -> None:
        said: list[dict[str, Any]] = []
        if turn.text is not None:
            said.append(
                {"text": turn.text, "speaker": turn.who, "conversation": turn.conversation,
                 "participants": list(turn.present), "time": turn.moment}
            )  # fmt: skip
        if turn.answer.strip():
            scope = self.memory.store.scope(self.memory.namespace, turn.present)
            used = turn.used | self._repeated(turn)
            still_there = {e.id for e in self.memory.store.fetch(scope, sorted(used))}
            said.append(
                {"text": turn.answer, "speaker": self.name, "conversation": turn.conversation,
                 "participants": list(turn.present), "time": turn.moment,
                 "metadata": {"role": "assistant"}, "derived_from": sorted(still_there)}
            )  # fmt: skip
        self.memory.remember_many(said)

    def _repeated(self, turn: _Turn) -> set[int]:
        """The sources of the profile facts the answer repeats (from the system prompt,
        so no note names them); worked out after the reply, off its path."""
        said = set(terms(turn.answer))
        facts = self.memory.profile(turn.who, participants=turn.present, now=turn.moment).facts
        return {
            source
            for fact in facts[: self.profile_facts]
            if set(terms(fact.value)) <= said
            for source in fact.sources
        }

    def _after(self, work: Callable[..., None], *arguments: Any) -> None:
        """Run `work` on the writer thread, after what was queued before it."""
        with self._lock:
            self._pending.append(self._writer.submit(work, *arguments))

    def flush(self) -> None:
        """Wait until the last turns are remembered and the prepared prefix read (raises
        the first error of those)."""
        with self._lock:
            pending, self._pending = self._pending, []
        for future in pending:
            future.exception()  # wait for every one before raising any
        for future in pending:
            future.result()

    def close(self) -> None:
        self.flush()
        self._writer.shutdown(wait=True)
