"""Every error leaves as JSON `{"error": "..."}` with the status that fits it: a caller's
mistake is a 4xx, never a 500; a body past the limit is refused before it is read."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from kuzya.errors import EmbedderError, InvalidInput, LLMError, NERError, NotFound, StoreError

log = logging.getLogger("kuzya.service")

STATUS: dict[type[Exception], int] = {
    InvalidInput: 422,
    NotFound: 404,
    LLMError: 502,  # the model behind the assistant failed
    StoreError: 503,
    EmbedderError: 503,
    NERError: 503,
}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def failure(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def install(app: FastAPI) -> None:
    async def known(request: Request, exc: Exception) -> JSONResponse:
        status = next(code for kind, code in STATUS.items() if isinstance(exc, kind))
        if status >= 500:
            log.warning("%s %s: %s", request.method, request.url.path, exc)
        return failure(status, str(exc))

    async def http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        return JSONResponse(
            {"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
        )

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = [f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in exc.errors()]
        return failure(422, "; ".join(problems) or "invalid request")

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path)
        return failure(500, f"internal error: {type(exc).__name__}")

    for kind in STATUS:
        app.add_exception_handler(kind, known)
    app.add_exception_handler(HTTPException, http)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, unexpected)


class BodyLimit:
    """ASGI middleware: a body larger than `limit` bytes gets 413 before the app sees it,
    whether its length is declared or it arrives in chunks (read here, then replayed)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await failure(413, f"the body is over {self.limit} bytes")(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.limit:
                await failure(413, f"the body is over {self.limit} bytes")(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)
