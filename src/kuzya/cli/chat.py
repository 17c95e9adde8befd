"""`kuzya chat` (an assistant whose memory survives restarts), `kuzya sleep` and
`kuzya profile`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated

import typer

from kuzya.assistant import Assistant
from kuzya.cli.options import (
    ConsolidateLlmOption,
    CreateOption,
    DbOption,
    EmbedderOption,
    LlmOption,
    NamespaceOption,
    NerOption,
    ReadOnlyOption,
    SleepLlmOption,
    Viewers,
    console,
    ids,
    open_memory,
)
from kuzya.clock import utcnow
from kuzya.config import settings
from kuzya.errors import InvalidInput
from kuzya.facts.schema import ATTRIBUTES
from kuzya.llm import LLM, is_small
from kuzya.memory import Memory

HELP = (
    "/recall <query>  what memory holds about it     /profile  what is known about you\n"
    "/forget <what>   forget an attribute or a topic /end      end the session (consolidate)\n"
    "/quit            leave (memory is kept)"
)


def _command(line: str, memory: Memory, user: str, present: list[str]) -> str | None:
    """Handle a slash command; returns "end" / "quit" to change the session."""
    name, _, argument = line[1:].partition(" ")
    argument = argument.strip()
    if name in {"end", "quit", "exit"}:
        return "quit" if name != "end" else "end"
    if name == "profile":
        console.print(
            memory.profile(user, participants=present).as_prompt(), markup=False, soft_wrap=True
        )
    elif name == "recall" and argument:
        console.print(memory.recall(argument, participants=present).as_prompt(), markup=False)
    elif name == "forget" and argument:
        attribute = argument.replace(" ", "_").lower()
        done = (
            memory.forget(user, attribute=attribute, actor=user)
            if attribute in ATTRIBUTES
            else memory.forget(user, about=argument, actor=user)
        )
        console.print(
            f"forgot {done.facts} facts; {done.redacted} messages redacted, {done.deleted} deleted"
        )
    else:
        console.print(HELP, markup=False)
    return None


def _consolidate(memory: Memory, sleeper: LLM | None) -> None:
    """/end: consolidate the session, and say with what."""
    report = memory.sleep()
    calls = report.llm.get("calls", 0)
    how = f"with {sleeper.name} (model calls: {calls})" if sleeper else "by rules"
    console.print(f"session ended; consolidated {report.episodes} messages {how}")


def chat(
    user: Annotated[str, typer.Option("--user", "-u", help="Who is talking.")],
    participants: Annotated[
        str | None, typer.Option("--participants", "-p", help="Everyone present (with --user).")
    ] = None,
    llm: LlmOption = None,
    sleep_llm: SleepLlmOption = None,
    ner: NerOption = None,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    create: CreateOption = False,
    memory_kind: Annotated[
        str, typer.Option("--memory", help="engine (Kuzya's) or recurrent (GRU slots).")
    ] = "engine",
) -> None:
    """Chat with an assistant that remembers across sessions and restarts; sleep (at /end
    and in the background) consolidates with the chat's model unless --sleep-llm says
    otherwise."""
    if memory_kind == "recurrent":
        return _recurrent(user, llm, db, namespace, embedder)
    if memory_kind != "engine":
        raise InvalidInput(f"--memory {memory_kind!r} is engine or recurrent")
    config = settings(llm=llm, sleep_llm=sleep_llm)
    model = config.load_llm(config.llm)
    sleeper = model if config.sleeps_with == config.llm else config.load_llm(config.sleeps_with)
    present = list(dict.fromkeys([user, *(ids(participants) if participants else [])]))
    with open_memory(
        db, namespace, embedder, sleeper or "none", ner, create=True, folder=create
    ) as memory:
        memory.start_worker()
        console.print(
            f"[bold]kuzya chat[/bold] — {user} with {model.name if model else 'no LLM'}, "
            f"sleeping with {sleeper.name if sleeper else 'rules'} "
            f"({memory.stats()['episodes']} memories). /help for commands."
        )
        assistant = Assistant(memory, model, small_model=is_small(model))
        conversation = f"chat-{user}-{utcnow():%Y%m%d-%H%M%S}"
        assistant.prepare(conversation, present)
        try:
            for line in _lines(user):
                if line.startswith("/"):
                    action = _command(line, memory, user, present)
                    if action == "quit":
                        break
                    if action == "end":
                        assistant.flush()
                        _consolidate(memory, sleeper)
                        conversation = f"chat-{user}-{utcnow():%Y%m%d-%H%M%S}"
                    assistant.prepare(conversation, present)  # /forget changes the profile
                    continue
                reply = assistant.reply(line, conversation=conversation, participants=present)
                if reply.text:  # small talk may go unanswered
                    console.print(f"[cyan]assistant>[/cyan] {reply.text}", highlight=False)
                assistant.prepare(conversation, present)  # while the user reads and types
        finally:
            assistant.close()


def _lines(user: str) -> Iterator[str]:
    """What the user types, line by line, until the input ends (blank lines skipped)."""
    while True:
        try:
            line = input(f"{user}> ").strip()
        except EOFError:
            return
        if line:
            yield line


def _recurrent(
    user: str, llm: str | None, db: str | None, namespace: str | None, embedder: str | None
) -> None:
    """The chat over recurrent memory, kept beside the store (`<store>-recurrent/`)."""
    from kuzya.embed import load_embedder
    from kuzya.recurrent.chat import RecurrentChat

    config = settings(llm=llm, db=db, namespace=namespace, embedder=embedder)
    folder = config.db.parent / f"{config.db.stem}-recurrent"
    talk = RecurrentChat(
        config.load_llm(config.llm), load_embedder(config.embedder),
        folder / config.namespace, user=user,
    )  # fmt: skip
    console.print(
        f"[bold]kuzya chat[/bold] — {user} with recurrent memory "
        f"({talk.memory.filled} of {talk.memory.num_slots} slots). /end ends a session, /quit."
    )
    try:
        for line in _lines(user):
            if line in ("/quit", "/exit"):
                break
            if line == "/end":
                slot = talk.end()
                console.print("session ended" + ("" if slot is None else f"; kept in slot {slot}"))
            else:
                console.print(f"[cyan]assistant>[/cyan] {talk.reply(line)}", highlight=False)
    finally:
        talk.end()  # a session cut short by quitting is kept too


def sleep(
    llm: ConsolidateLlmOption = None,
    ner: NerOption = None,
    now: Annotated[datetime | None, typer.Option("--now")] = None,
    jump: Annotated[
        bool,
        typer.Option(
            "--jump",
            help="Allow a --now more than a year past the newest message or sleep "
            "(its decay and compression cannot be undone).",
        ),
    ] = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="If another sleep is running, wait for it to end.")
    ] = False,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Consolidate: facts, forget requests, diary, entities, decay, compression. One sleep
    runs at a time per namespace: another one returns at once, saying so, or --wait."""
    with open_memory(db, namespace, embedder, llm, ner) as memory:
        report = memory.sleep(now=now, jump=jump, wait=wait)
    if report.skipped:
        console.print(f"{report.skipped}; nothing done (--wait waits for it)", soft_wrap=True)
        return
    typer.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=1))


def profile(
    subject: str,
    participants: Viewers = None,
    past: Annotated[bool, typer.Option("--past", help="Also facts no longer true.")] = False,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    embedder: EmbedderOption = None,
    read_only: ReadOnlyOption = False,
) -> None:
    """What is known about someone, as those present (by default the subject alone) may
    see it."""
    present = ids(participants) if participants else [subject]
    with open_memory(db, namespace, embedder, read_only=read_only or None) as memory:
        if not past:
            shown = memory.profile(subject, participants=present).as_prompt()
            console.print(shown, markup=False, soft_wrap=True)
            return
        for fact in memory.facts(subject=subject, participants=present, include_past=True):
            console.print(
                f"#{fact.id} [{fact.category}] {fact.dated()}", markup=False, soft_wrap=True
            )
