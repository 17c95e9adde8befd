"""`kuzya serve` (the assistant over HTTP) and `kuzya keys` (who may call it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.table import Table

from kuzya.cli.options import DbOption, LlmOption, NamespaceOption, SleepLlmOption, console
from kuzya.config import settings
from kuzya.errors import InvalidInput
from kuzya.service import keys as api_keys
from kuzya.service.settings import service_settings
from kuzya.store.keys import KeyStore
from kuzya.store.opening import open_store, shown

keys_app = typer.Typer(help="API keys of the service: each opens one namespace.")


def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on (env KUZYA_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (env KUZYA_PORT, default 8765).")] = None,
    db: DbOption = None,
    namespace: NamespaceOption = None,
    llm: LlmOption = None,
    tools: Annotated[
        bool | None, typer.Option("--tools/--no-tools", help="The model may call tools.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="A TOML file of settings (env KUZYA_CONFIG).")
    ] = None,
) -> None:
    """Serve the assistant and the memory API (OpenAPI at /docs). Without an API key in
    the store it listens on loopback only and serves one namespace."""
    import uvicorn

    from kuzya.service.app import create_app, refuse_open_to_network
    from kuzya.service.engine import Engine
    from kuzya.store.opening import is_url

    url = db is not None and is_url(db)
    given = service_settings(
        config, host=host, port=port, db=None if url else db, database_url=db if url else None,
        namespace=namespace, llm=llm, tools=tools,
    )  # fmt: skip
    engine = Engine(given)
    try:
        refuse_open_to_network(engine)
    except BaseException:
        engine.close()
        raise
    console.print(f"Kuzya serving on http://{given.host}:{given.port} (OpenAPI at /docs)")
    uvicorn.run(create_app(given, engine), host=given.host, port=given.port, log_level="warning")


@contextmanager
def _keys(db: str | None) -> Iterator[KeyStore]:
    store = open_store(db or settings().store, create=True)
    try:
        yield cast(KeyStore, store)
    finally:
        store.close()


@keys_app.command()
def create(
    namespace: Annotated[str, typer.Option("--namespace", "-n", help="What the key opens.")],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="The key asks only as this user.")
    ] = None,
    name: Annotated[str, typer.Option(help="What the key is for.")] = "",
    db: DbOption = None,
) -> None:
    """Make a key; it is shown once (only its digest is kept)."""
    with _keys(db) as store:
        key, stored = api_keys.create(store, namespace, user=user, name=name)
    console.print(f"key {stored.id} for namespace {stored.namespace!r}:", markup=False)
    print(key)


@keys_app.command("list")
def listing(namespace: NamespaceOption = None, db: DbOption = None) -> None:
    """Every key (never the key itself): what it opens and whether it is revoked."""
    with _keys(db) as store:
        found = store.api_keys(namespace)
    table = Table()
    for column in ("id", "namespace", "user", "name", "created", "revoked"):
        table.add_column(column)
    for key in found:
        table.add_row(
            str(key.id), key.namespace, key.user or "(anyone)", key.name,
            key.created_at.strftime("%Y-%m-%d %H:%M"),
            key.revoked_at.strftime("%Y-%m-%d %H:%M") if key.revoked_at else "",
        )  # fmt: skip
    console.print(table)


@keys_app.command()
def revoke(
    key_id: Annotated[int, typer.Argument(help="The key's id (kuzya keys list).")],
    db: DbOption = None,
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    with _keys(db) as store:
        revoked = api_keys.revoke(store, key_id)
    console.print(f"key {revoked.id} ({revoked.name}) revoked", markup=False)


def mcp(
    transport: Annotated[
        str, typer.Option(help="'stdio' (for a client that starts it) or 'http' (Streamable HTTP).")
    ] = "stdio",
    host: Annotated[
        str, typer.Option(help="With http: the loopback address to listen on.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="With http: the port.")] = 8766,
    db: DbOption = None,
    namespace: NamespaceOption = None,
) -> None:
    """Serve the memory to MCP clients: tools remember, recall, forget and profile."""
    from kuzya.cli.options import open_memory
    from kuzya.service.mcp import server

    if transport not in ("stdio", "http"):
        raise InvalidInput(f"transport {transport!r} is not 'stdio' or 'http'")
    if transport == "http" and not service_settings(host=host).loopback:
        raise InvalidInput(
            "kuzya mcp over http listens on loopback only (it has no keys); "
            "share a memory over the network with kuzya serve"
        )
    given = service_settings()
    with open_memory(db, namespace, None, llm=None, create=True, folder=True) as memory:
        memory.start_worker(every=given.sleep_every, idle_seconds=given.sleep_idle_seconds)
        if transport == "stdio":
            server(memory).run("stdio")
        else:
            server(memory).run("streamable-http", host=host, port=port)


def worker(
    db: DbOption = None,
    llm: SleepLlmOption = None,
    heartbeat: Annotated[
        float, typer.Option(help="Seconds between heartbeats; 3 missed: the job is retried.")
    ] = 10.0,
) -> None:
    """Run the consolidation queue of a PostgreSQL store: the sleep jobs the API processes
    ask for, one namespace at a time. Stop it with Ctrl-C (the running job finishes)."""
    from kuzya.service.engine import Engine
    from kuzya.sleep.queue import ensure_schema, queue_app, run_worker
    from kuzya.store.opening import is_url

    given = service_settings(database_url=db, sleep_llm=llm)
    if not is_url(given.store):
        raise InvalidInput(
            "kuzya worker runs the queue of a PostgreSQL store (--db postgresql://… or "
            "KUZYA_DATABASE_URL); with SQLite, kuzya serve consolidates in-process"
        )
    if heartbeat <= 0:
        raise InvalidInput("--heartbeat must be positive")
    engine = Engine(given, background=False)
    try:
        url = str(given.store)
        app = queue_app(url)
        with app.open():
            ensure_schema(app, url)
        console.print(f"Kuzya worker on {shown(url)}: waiting for sleep jobs")
        run_worker(app, lambda namespace: engine.space(namespace).memory, heartbeat=heartbeat)
    finally:
        engine.close()
