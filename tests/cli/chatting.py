"""One `kuzya chat` session through the CLI: a message, /end (sleep), /quit."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kuzya.cli.app import app


def chat_once(db: Path, llm: str, message: str, *options: str) -> str:
    """The session's output; it must end cleanly."""
    result = CliRunner().invoke(
        app,
        ["chat", "-u", "ana", "--llm", llm, *options, "--db", str(db)],
        input=f"{message}\n/end\n/quit\n",
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return result.output
