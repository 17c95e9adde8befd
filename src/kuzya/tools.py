"""The assistant's tools, in the OpenAI tools format: each tool's arguments are a pydantic
model (the JSON schema the model sees, and the check its call must pass, by name), and a
tool that acts on the world (forgetting, or an e-mail tool a user adds) runs only after
the person confirms it. `converse` is the loop: model → tool calls → results → model,
until a final answer or the step limit."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kuzya.language.text import tokens
from kuzya.llm.base import LLM, ChatMessage, Tool, ToolCall, Usage
from kuzya.memory import Memory


@dataclass(frozen=True)
class Context:
    """Who a tool runs for: the memory, the one asking and everyone present."""

    memory: Memory
    who: str
    present: tuple[str, ...]
    conversation: str


@dataclass(frozen=True)
class Output:
    """What a tool returns to the model, and the memories it showed (the reply's sources)."""

    text: str
    found: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ToolSpec:
    """A tool: its name, its arguments' model (whose docstring describes the tool), what
    it does, and, for a tool that acts, how to ask the person to confirm it."""

    name: str
    arguments: type[BaseModel]
    run: Callable[[Context, Any], Output]
    # set: the tool acts, and runs once confirmed; says what it will do (in Russian if True)
    confirm: Callable[[Any, bool], str] | None = None

    @property
    def tool(self) -> Tool:
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        return Tool(self.name, (self.arguments.__doc__ or self.name).strip(), schema)


class _Arguments(BaseModel):
    """Bounds on text stay out of the schemas: a grammar made from a long maxLength is
    too big for llama.cpp. The engine bounds every text it takes (`kuzya.validate`)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class SearchMemory(_Arguments):
    """Search long-term memory for anything said earlier (only what everyone present may see)."""

    query: str = Field(min_length=1, description="What to look for.")
    limit: int = Field(default=5, ge=1, le=20, description="How many memories at most.")


class AddMemory(_Arguments):
    """Remember a note for later, as said by the person asking to those present."""

    text: str = Field(min_length=1, description="The note, in full.")


class ForgetMemory(_Arguments):
    """Forget what the person asking said about something (asks them to confirm first)."""

    about: str = Field(min_length=1, description="What to forget.")


def _search(context: Context, arguments: SearchMemory) -> Output:
    found = context.memory.recall(
        arguments.query, participants=context.present, speaker=context.who, limit=arguments.limit
    )
    sources = frozenset(s for item in found.items for s in item.sources)
    return Output(found.as_prompt() if found.items else "nothing found", sources)


def _add(context: Context, arguments: AddMemory) -> Output:
    context.memory.remember(
        arguments.text,
        speaker=context.who,
        conversation=context.conversation,
        participants=context.present,
    )
    return Output("remembered")


def _forget(context: Context, arguments: ForgetMemory) -> Output:
    done = context.memory.forget(context.who, about=arguments.about, participants=context.present)
    return Output(f"forgot {done.facts} facts and {done.redacted + done.deleted} messages")


MEMORY_TOOLS = (
    ToolSpec("search_memory", SearchMemory, _search),
    ToolSpec("add_memory", AddMemory, _add),
    ToolSpec(
        "forget_memory",
        ForgetMemory,
        _forget,
        confirm=lambda a, russian: (
            f"забыть, что вы говорили про «{a.about}»"
            if russian
            else f"forget what you said about {a.about!r}"
        ),
    ),
)


@dataclass(frozen=True)
class Pending:
    """A call of a tool that acts, waiting for the person to say yes."""

    call: ToolCall
    spec: ToolSpec
    arguments: BaseModel

    def question(self, russian: bool) -> str:
        assert self.spec.confirm is not None
        action = self.spec.confirm(self.arguments, russian)
        return f"Мне {action}? (да / нет)" if russian else f"Shall I {action}? (yes / no)"


@dataclass
class Conversation:
    """The outcome of `converse`."""

    answer: str = ""
    usage: Usage = field(default_factory=Usage)
    calls: list[ToolCall] = field(default_factory=list)
    found: set[int] = field(default_factory=set)
    pending: Pending | None = None


class Toolbox:
    """The tools a model may call, by name."""

    def __init__(self, specs: Sequence[ToolSpec] = MEMORY_TOOLS) -> None:
        self.specs: Mapping[str, ToolSpec] = {spec.name: spec for spec in specs}
        if len(self.specs) != len(specs):
            raise ValueError("two tools share a name")

    @property
    def tools(self) -> tuple[Tool, ...]:
        return tuple(spec.tool for spec in self.specs.values())

    def check(self, call: ToolCall) -> tuple[ToolSpec, BaseModel] | str:
        """The tool and its arguments, or the error to tell the model."""
        spec = self.specs.get(call.name)
        if spec is None:
            return f"error: there is no tool {call.name!r}; the tools are {', '.join(self.specs)}"
        try:
            return spec, spec.arguments.model_validate(dict(call.arguments))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            return f"error: bad arguments for {call.name}: {problems}"


def converse(
    llm: LLM,
    messages: list[ChatMessage],
    toolbox: Toolbox,
    context: Context,
    *,
    max_steps: int = 4,
    max_tokens: int = 200,
    temperature: float = 0.0,
    on_text: Callable[[str], None] | None = None,
) -> Conversation:
    """Ask the model, run the tools it calls (a bad call gets an error back, a tool that
    acts waits for confirmation), and ask again, until it answers or `max_steps` model
    calls are spent; the last call offers no tools, so it must answer. The answer goes
    to `on_text` too: streamed on the last step, whole when an earlier step answers."""
    result = Conversation()
    prompt = completion = 0
    for step in range(max_steps):
        last = step == max_steps - 1 or result.pending is not None
        reply = llm.chat(
            messages,
            tools=() if last else toolbox.tools,
            max_tokens=max_tokens,
            temperature=temperature,
            on_text=on_text if last else None,
        )
        prompt += reply.usage.prompt_tokens
        completion += reply.usage.completion_tokens
        if not reply.tool_calls or last:
            result.answer = reply.text
            if on_text is not None and not last and reply.text:
                on_text(reply.text)
            break
        messages.append(ChatMessage("assistant", reply.text, reply.tool_calls))
        for call in reply.tool_calls:
            result.calls.append(call)
            messages.append(
                ChatMessage("tool", _outcome(call, toolbox, context, result), tool_call_id=call.id)
            )
    result.usage = Usage(prompt, completion)
    return result


def _outcome(call: ToolCall, toolbox: Toolbox, context: Context, result: Conversation) -> str:
    checked = toolbox.check(call)
    if isinstance(checked, str):
        return checked
    spec, arguments = checked
    if spec.confirm is not None:
        result.pending = Pending(call, spec, arguments)
        return (
            f"not done yet: {spec.name} needs the user's confirmation. Tell the user you "
            f"will {spec.confirm(arguments, False)} once they say yes."
        )
    output = spec.run(context, arguments)
    result.found.update(output.found)
    return output.text


_YES = frozenset(
    """yes y yep yeah sure ok okay confirm confirmed proceed
    да ага ок окей давай конечно подтверждаю угу""".split()
)
_YES_PHRASES = ("go ahead", "do it", "please do")
_NO = frozenset("no nope not don't dont cancel stop wait нет не отмена отмени стоп погоди".split())


def confirms(text: str) -> bool:
    """Whether a short message says yes (and nothing that says no, and asks nothing)."""
    words = tokens(text)
    said = " ".join(words)
    yes = bool(_YES & set(words)) or any(phrase in said for phrase in _YES_PHRASES)
    return 0 < len(words) <= 6 and yes and not _NO & set(words) and "?" not in text
