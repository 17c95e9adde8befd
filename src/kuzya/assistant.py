"""The assistant turn: recall → prompt (system, profile, memory, working memory) → LLM →
reply; the turn is remembered after the reply is returned, off the reply path."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kuzya import validate
from kuzya.errors import LLMError
from kuzya.facts import rules
from kuzya.llm.base import LLM, ChatMessage, Tool, ToolCall, Usage
from kuzya.llm.structured import parse_json
from kuzya.memory import Memory
from kuzya.model import Fact, Kind, Recall, RecallItem

SYSTEM = (
    "You are {name}, a helpful assistant with long-term memory. Messages come with notes "
    "from your memory: use them when they help (newer replace older), never invent "
    "memories, be brief."
)

TOOLS = (
    Tool(
        "search_memory",
        "Search long-term memory for anything said earlier.",
        {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    ),
    Tool(
        "add_memory",
        "Remember a note for later.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    Tool(
        "forget",
        "Forget what the user said about something.",
        {"type": "object", "properties": {"about": {"type": "string"}}, "required": ["about"]},
    ),
)


ANSWER = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def _answer_text(text: str) -> str:
    """The answer field of a JSON reply; the text itself if the model did not comply."""
    try:
        value = parse_json(text)
    except LLMError:
        return text
    answer = value.get("answer") if isinstance(value, dict) else None
    return answer if isinstance(answer, str) and answer.strip() else text


@dataclass(frozen=True)
class Reply:
    text: str
    recall: Recall
    usage: Usage
    seconds: float
    tool_calls: tuple[ToolCall, ...] = ()


def profile_item(fact: Fact) -> RecallItem:
    return RecallItem(
        id=fact.id,
        kind=Kind.FACT,
        text=fact.statement,
        score=1.0,
        speaker="",
        conversation="",
        said_at=fact.valid_from,
        stored_at=fact.recorded_at,
        sources=fact.sources,
    )


def extractive_reply(recall: Recall, limit: int = 3) -> str:
    """Without a model: the best recalled items, said plainly."""
    if not recall.items:
        return "I don't remember anything about that."
    return "From memory: " + " ".join(item.line() for item in recall.items[:limit])


class Assistant:
    """A chat assistant over a `Memory`. `llm=None` answers extractively from memory."""

    def __init__(
        self,
        memory: Memory,
        llm: LLM | None,
        *,
        name: str = "assistant",
        budget_words: int = 200,
        max_items: int = 6,
        relevance: float = 0.5,
        profile_facts: int = 8,
        working_turns: int = 6,
        max_tokens: int = 200,
        temperature: float = 0.0,
        use_tools: bool = False,
        json_reply: bool = False,
    ) -> None:
        self.memory, self.llm, self.name = memory, llm, validate.name(name, "name")
        self.budget_words, self.working_turns = budget_words, working_turns
        self.max_items, self.relevance, self.profile_facts = max_items, relevance, profile_facts
        self.max_tokens, self.temperature, self.use_tools = max_tokens, temperature, use_tools
        # Small local models answer far better when held to {"answer": "..."} by a grammar.
        self.json_reply = json_reply
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kuzya-remember")
        self._pending: Future[Any] | None = None

    def reply(
        self,
        message: str,
        *,
        conversation: str,
        participants: Sequence[str],
        speaker: str | None = None,
        now: datetime | str | None = None,
    ) -> Reply:
        """Answer `message` said by `speaker` (default: the first participant)."""
        text = validate.text(message)
        present = validate.names(participants, "participants")
        who = validate.name(speaker or present[0], "speaker")
        moment = validate.moment(now, "now")
        self.flush()  # the previous turn is in memory before this one is answered
        started = time.perf_counter()
        request = rules.forget_request(text, who)
        if request is not None:  # forgetting does not wait for sleep
            self.memory.forget(
                who,
                attribute=request.attribute,
                about=request.about,
                everything=request.attribute is None and request.about is None,
            )
        recall = self.memory.recall(
            text,
            participants=present,
            now=moment,
            conversation=conversation,
            speaker=who,
            budget_words=self.budget_words,
        )
        answer, usage, calls = self._answer(text, recall, conversation, present, who)
        seconds = time.perf_counter() - started
        self._pending = self._writer.submit(
            self._remember, text, answer, conversation, present, who, moment
        )
        return Reply(answer, recall, usage, seconds, calls)

    def _prompt(
        self, text: str, recall: Recall, conversation: str, present: Sequence[str], who: str
    ) -> list[ChatMessage]:
        """System, the working memory as turns, then the message with the notes right
        before it (small models read notes best next to the question)."""
        turns = self.memory.store.recent_turns(
            self.memory.namespace, conversation, present, self.working_turns
        )
        messages = [ChatMessage("system", self.system_prompt(present))]
        for turn in turns:
            mine = turn.metadata.get("role") == "assistant"
            content = turn.content if mine else f"{turn.speaker}: {turn.content}"
            messages.append(ChatMessage("assistant" if mine else "user", content))
        notes = self.notes(recall, present, who).as_prompt()
        said = text if len(present) == 1 else f"{who}: {text}"
        messages.append(ChatMessage("user", f"Notes from memory (I am {who}):\n{notes}\n\n{said}"))
        return messages

    def notes(self, recall: Recall, present: Sequence[str], who: str) -> Recall:
        """What goes into the prompt: the recalled facts (most similar first), then the
        rest of the asker's profile (most important first), then the recalled messages
        that score at least `relevance` of the best one (a short prompt is a fast and a
        less confusing one)."""
        facts = [i for i in recall.items if i.kind is Kind.FACT]
        recalled = {i.id for i in facts}
        profile = self.memory.profile(who, participants=present).facts
        facts += [profile_item(f) for f in profile if f.id not in recalled]
        others = [i for i in recall.items if i.kind is not Kind.FACT]
        best = max((i.score for i in others), default=0.0)
        kept = [i for i in others if i.score >= self.relevance * best][: self.max_items]
        return Recall(recall.query, tuple(facts[: self.profile_facts] + kept), recall.now)

    def system_prompt(self, present: Sequence[str] = ()) -> str:
        """The instructions before any memory."""
        system = SYSTEM.format(name=self.name)
        return system + (f"\nYou are talking with {', '.join(present)}." if present else "")

    def _answer(
        self, text: str, recall: Recall, conversation: str, present: Sequence[str], who: str
    ) -> tuple[str, Usage, tuple[ToolCall, ...]]:
        if self.llm is None:
            return extractive_reply(recall), Usage(), ()
        messages = self._prompt(text, recall, conversation, present, who)
        tools = TOOLS if self.use_tools else ()
        prompt = completion = 0
        called: list[ToolCall] = []
        for _ in range(3):  # tool rounds at most, then a plain answer
            result = self.llm.chat(
                messages,
                tools=tools,
                json_schema=ANSWER if self.json_reply and not tools else None,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
            prompt += result.usage.prompt_tokens
            completion += result.usage.completion_tokens
            if not result.tool_calls:
                text = _answer_text(result.text) if self.json_reply else result.text
                return text.strip(), Usage(prompt, completion), tuple(called)
            messages.append(ChatMessage("assistant", result.text, result.tool_calls))
            for call in result.tool_calls:
                called.append(call)
                output = self._tool(call, present, who)
                messages.append(ChatMessage("tool", output, tool_call_id=call.id))
            tools = ()
        return "", Usage(prompt, completion), tuple(called)

    def _tool(self, call: ToolCall, present: Sequence[str], who: str) -> str:
        argument = next(iter(call.arguments.values()), "")
        if not isinstance(argument, str) or not argument.strip():
            return f"error: {call.name} needs a non-empty text argument"
        if call.name == "search_memory":
            found = self.memory.recall(argument, participants=present, speaker=who)
            return found.as_prompt()
        if call.name == "add_memory":
            self.memory.remember(argument, speaker=who, participants=present)
            return "remembered"
        if call.name == "forget":
            done = self.memory.forget(who, about=argument)
            return f"forgot {done.facts} facts and {done.redacted + done.deleted} messages"
        return f"error: no tool named {call.name}"

    def _remember(
        self,
        text: str,
        answer: str,
        conversation: str,
        present: Sequence[str],
        who: str,
        moment: datetime,
    ) -> None:
        turns: list[dict[str, Any]] = [
            {"text": text, "speaker": who, "conversation": conversation,
             "participants": list(present), "time": moment},
        ]  # fmt: skip
        if answer.strip():
            turns.append(
                {"text": answer, "speaker": self.name, "conversation": conversation,
                 "participants": list(present), "time": moment,
                 "metadata": {"role": "assistant"}}
            )  # fmt: skip
        self.memory.remember_many(turns)

    def flush(self) -> None:
        """Wait until the last turn is remembered (raises what that write raised)."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def close(self) -> None:
        self.flush()
        self._writer.shutdown(wait=True)
