"""`create_app(settings)`: the FastAPI application `kuzya serve` runs."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)

from kuzya.errors import InvalidInput
from kuzya.service import ask, errors, memories
from kuzya.service.engine import Engine
from kuzya.service.schemas import Health
from kuzya.service.settings import ServiceSettings
from kuzya.store.opening import shown


def refuse_open_to_network(engine: Engine) -> None:
    """A service past loopback with no key would serve anyone: refused."""
    if not engine.settings.loopback and not engine.keys.has_keys():
        raise InvalidInput(
            f"listening on {engine.settings.host} needs an API key first: "
            "kuzya keys create --namespace <name>"
        )


def create_app(settings: ServiceSettings, engine: Engine | None = None) -> FastAPI:
    """The service over `engine` (made from `settings` at startup, closed at shutdown)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        running = engine or Engine(settings)
        refuse_open_to_network(running)
        app.state.engine = running
        try:
            yield
        finally:
            running.close()

    app = FastAPI(
        title="Kuzya",
        summary="Long-term memory for assistants: ask, remember, recall, forget.",
        version="0.1.0",
        lifespan=lifespan,
    )
    errors.install(app)
    app.include_router(ask.router)
    app.include_router(memories.router)
    registry = CollectorRegistry()
    requests = Counter(
        "kuzya_requests", "Requests served", ["method", "route", "status"], registry=registry
    )
    latency = Histogram(
        "kuzya_request_seconds", "Seconds to answer a request", ["route"], registry=registry
    )

    @app.middleware("http")
    async def measured(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        route = getattr(request.scope.get("route"), "path", "unmatched")
        requests.labels(request.method, route, str(response.status_code)).inc()
        latency.labels(route).observe(time.perf_counter() - started)
        return response

    @app.get("/health", tags=["service"])
    def health(request: Request) -> Health:
        running: Engine = request.app.state.engine
        open_mode = running.settings.loopback and not running.keys.has_keys()
        return Health(
            status="ok",
            store=shown(running.settings.store),
            embedder=running.embedder.name,
            llm="none" if running.llm is None else running.llm.name,
            auth="loopback, one namespace" if open_mode else "keys",
        )

    @app.get("/metrics", tags=["service"], include_in_schema=False)
    def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    app.add_middleware(errors.BodyLimit, limit=settings.max_body_bytes)
    return app
