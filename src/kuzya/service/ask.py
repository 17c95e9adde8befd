"""`/ask`: one turn with the assistant, remembered for the next (in any session of the
same people, and after a restart); `/ask/stream` sends the answer as it is written."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from kuzya.assistant import Reply
from kuzya.facts import rules
from kuzya.images import read_image, remember_image
from kuzya.service.access import Caller, caller, present
from kuzya.service.engine import Engine
from kuzya.service.errors import STATUS, log
from kuzya.service.schemas import AskReply, AskRequest, MemoryItem, MemoryOut, ToolCallOut

router = APIRouter(tags=["assistant"])

Who = Annotated[Caller, Depends(caller)]


def _reply(
    engine: Engine,
    who: Caller,
    body: AskRequest,
    asker: str,
    people: list[str],
    on_text: Callable[[str], None] | None = None,
) -> AskReply:
    """The assistant's reply; one at a time per conversation, so each turn is in memory
    before the next is answered."""
    space = engine.space(who.namespace)
    pictures = [read_image(picture.data) for picture in body.images]  # all checked first
    with space.replying(body.session_id):
        space.assistant.flush()  # the last turn first, then the images sent with this one
        sent = [
            remember_image(
                space.memory,
                engine.images,
                picture,
                speaker=asker,
                participants=people,
                conversation=body.session_id,
                caption=sent_with.caption,
                describer=engine.describer,
                time=body.time,
            )
            for picture, sent_with in zip(pictures, body.images, strict=True)
        ]
        reply: Reply = space.assistant.reply(
            body.message,
            conversation=body.session_id,
            participants=people,
            speaker=asker,
            now=body.time,
            on_text=on_text,
        )
        # the next turn's prefix is read while the person reads this reply
        space.assistant.prepare(body.session_id, people, asker, body.time)
    forgot = rules.forget_request(body.message, asker) is not None
    if forgot or any(call.name == "forget_memory" for call in reply.tool_calls):
        engine.images.sweep(space.memory)  # the files of images forgotten go too
    return AskReply(
        reply=reply.text,
        session_id=body.session_id,
        user_id=asker,
        images=[MemoryOut.of(episode) for episode in sent],
        memories=[MemoryItem.of(item) for item in reply.recall.items],
        tool_calls=[
            ToolCallOut(name=c.name, arguments=dict(c.arguments)) for c in reply.tool_calls
        ],
        confirm=reply.confirm,
        seconds=round(reply.seconds, 4),
        prompt_tokens=reply.usage.prompt_tokens,
        completion_tokens=reply.usage.completion_tokens,
    )


@router.post("/ask")
def ask(body: AskRequest, request: Request, who: Who) -> AskReply:
    """The assistant's reply, and the memories it was given (with the messages they come
    from). Without `user_id`, the session stands for the person."""
    asker, people = present(who, body.user_id, body.participants, default=body.session_id)
    return _reply(request.app.state.engine, who, body, asker, people)


@router.post(
    "/ask/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"}},
)
async def ask_stream(body: AskRequest, request: Request, who: Who) -> StreamingResponse:
    """As /ask, as server-sent events: `delta` events carry the answer's text as the model
    writes it, then one `reply` event the whole reply (as /ask returns it; its text is
    the final word), or an `error` event with the error and its HTTP status."""
    asker, people = present(who, body.user_id, body.participants, default=body.session_id)
    engine: Engine = request.app.state.engine
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def put(event: str, data: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, (event, data))

    def work() -> None:
        try:
            done = _reply(
                engine, who, body, asker, people, lambda text: put("delta", {"text": text})
            )
            put("reply", done.model_dump(mode="json"))
        except Exception as exc:
            known = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), None)
            if known is None:
                log.exception("/ask/stream failed")
            message = str(exc) if known else f"internal error: {type(exc).__name__}"
            put("error", {"error": message, "status": known or 500})
        finally:
            put("end", None)

    async def events() -> AsyncIterator[str]:
        running = loop.run_in_executor(None, work)
        while (message := await queue.get())[0] != "end":
            event, data = message
            yield f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
        await running

    return StreamingResponse(
        events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )
