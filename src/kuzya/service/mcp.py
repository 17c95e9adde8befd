"""Kuzya as an MCP server (`kuzya mcp`): the tools remember, recall, forget and profile,
over stdio or Streamable HTTP, on one namespace. Every tool takes the people present:
what it shows is what all of them could see, as everywhere in Kuzya."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from kuzya.errors import KuzyaError
from kuzya.memory import Memory

Result = TypeVar("Result")

INSTRUCTIONS = (
    "Long-term memory. remember what people say (with everyone who heard it as "
    "participants), recall what those present may be reminded of, forget what someone "
    "asks to forget, and read what is known about a person (profile). Memories are shown "
    "only when every participant present could see them."
)


def _told(tool: Callable[..., Result]) -> Callable[..., Result]:
    """A caller's mistake (or a store that fails) goes back to the client as the tool's
    error, in Kuzya's words."""

    @functools.wraps(tool)
    def run(*args: Any, **kwargs: Any) -> Result:
        try:
            return tool(*args, **kwargs)
        except KuzyaError as exc:
            raise ToolError(str(exc)) from exc

    return run


def server(memory: Memory) -> MCPServer:
    """The MCP server over `memory` (its namespace)."""
    mcp = MCPServer("kuzya", instructions=INSTRUCTIONS, log_level="WARNING")

    @mcp.tool()
    @_told
    def remember(
        text: str,
        speaker: str,
        participants: list[str] | None = None,
        conversation: str = "mcp",
        time: str | None = None,
    ) -> dict[str, Any]:
        """Remember a message `speaker` said to `participants` (default: the speaker
        alone), at `time` (ISO 8601; default: now). Returns the stored memory's id."""
        episode = memory.remember(
            text, speaker=speaker, participants=participants, conversation=conversation, time=time
        )
        return {"id": episode.id, "said_at": episode.said_at.isoformat()}

    @mcp.tool()
    @_told
    def recall(
        query: str, participants: list[str], speaker: str | None = None, limit: int = 10
    ) -> list[dict[str, Any]]:
        """The memories best matching `query` that everyone in `participants` may see,
        best first, each with the messages it comes from (`sources`)."""
        found = memory.recall(
            query, participants=participants, speaker=speaker, limit=limit, budget_words=None
        )
        return [
            {"id": item.id, "text": item.dated_text(), "speaker": item.speaker,
             "said_at": item.said_at.isoformat(), "score": round(item.score, 4),
             "sources": list(item.sources)}
            for item in found.items
        ]  # fmt: skip

    @mcp.tool()
    @_told
    def forget(
        subject: str,
        about: str | None = None,
        attribute: str | None = None,
        everything: bool = False,
        participants: list[str] | None = None,
    ) -> dict[str, int]:
        """Forget what `subject` said `about` something (or of an `attribute` such as
        "address", or `everything`), wherever `participants` (default: the subject)
        may see it. The text leaves every index and file."""
        done = memory.forget(
            subject, about=about, attribute=attribute, everything=everything,
            participants=participants, actor=subject,
        )  # fmt: skip
        return {"facts": done.facts, "messages": done.redacted + done.deleted}

    @mcp.tool()
    @_told
    def profile(subject: str, participants: list[str] | None = None) -> dict[str, Any]:
        """What is known now about `subject`, as `participants` (default: the subject)
        may see it: facts, most important first."""
        known = memory.profile(subject, participants=participants)
        return {
            "subject": subject,
            "facts": [
                {"attribute": f.attribute, "value": f.value, "statement": f.statement,
                 "since": f.valid_from.isoformat(), "sources": list(f.sources)}
                for f in known.facts
            ],
        }  # fmt: skip

    return mcp
