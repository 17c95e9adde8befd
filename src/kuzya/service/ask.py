"""`/ask`: one turn with the assistant, remembered for the next (in any session of the
same people, and after a restart)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from kuzya.assistant import Reply
from kuzya.service.access import Caller, caller, present
from kuzya.service.engine import Engine
from kuzya.service.schemas import AskReply, AskRequest, MemoryItem, ToolCallOut

router = APIRouter(tags=["assistant"])

Who = Annotated[Caller, Depends(caller)]


def answer(body: AskRequest, request: Request, who: Caller) -> tuple[str, Reply]:
    """The asker and the assistant's reply to them; one reply at a time per namespace, so
    each turn is in memory before the next is answered."""
    engine: Engine = request.app.state.engine
    asker, people = present(who, body.user_id, body.participants, default=body.session_id)
    space = engine.space(who.namespace)
    with space.replying:
        reply = space.assistant.reply(
            body.message,
            conversation=body.session_id,
            participants=people,
            speaker=asker,
            now=body.time,
        )
    return asker, reply


@router.post("/ask")
def ask(body: AskRequest, request: Request, who: Who) -> AskReply:
    """The assistant's reply, and the memories it was given (with the messages they come
    from). Without `user_id`, the session stands for the person."""
    asker, reply = answer(body, request, who)
    return AskReply(
        reply=reply.text,
        session_id=body.session_id,
        user_id=asker,
        memories=[MemoryItem.of(item) for item in reply.recall.items],
        tool_calls=[
            ToolCallOut(name=c.name, arguments=dict(c.arguments)) for c in reply.tool_calls
        ],
        seconds=round(reply.seconds, 4),
        prompt_tokens=reply.usage.prompt_tokens,
        completion_tokens=reply.usage.completion_tokens,
    )
