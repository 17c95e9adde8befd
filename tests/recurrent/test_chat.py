"""The chat over recurrent memory: a session ends with /end or when idle, goes into a slot
and is there after a restart; the recalled sessions go into the system prompt. The model
is scripted here (the prompt is what is checked); the real embedder encodes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kuzya.embed import Embedder
from kuzya.recurrent.chat import RecurrentChat
from kuzya.testing import ScriptedLLM


def test_a_session_ends_when_idle_and_is_recalled_after_a_restart(
    use_embedder: Embedder, tmp_path: Path
) -> None:
    now = [0.0]
    llm = ScriptedLLM(["Nice to meet you, Alice.", "Hello!", "Your name is Alice."])
    talk = RecurrentChat(llm, use_embedder, tmp_path / "m", idle_seconds=60, clock=lambda: now[0])
    talk.reply("My name is Alice and I work at a bakery.")
    assert talk.memory.filled == 0  # the session is still under way
    now[0] = 500.0  # idle: the next message opens a new session
    talk.reply("Hi again")
    assert talk.memory.filled == 1
    again = RecurrentChat(llm, use_embedder, tmp_path / "m")
    assert again.memory.filled == 1  # saved when the session ended
    assert again.reply("What is my name?") == "Your name is Alice."
    system = llm.calls[-1].messages[0].content
    assert system.startswith("You are a helpful assistant") and "My name is Alice" in system


def test_kuzya_chat_with_recurrent_memory_across_restarts(tmp_path: Path) -> None:
    def chat(lines: list[str]) -> str:
        run = subprocess.run(
            [sys.executable, "-m", "kuzya", "chat", "--user", "ana", "--memory", "recurrent",
             "--llm", "none", "--db", str(tmp_path / "c.db")],
            input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        return run.stdout

    first = chat(["I work at Yandex as a data engineer.", "/end", "/quit"])
    assert "kept in slot 0" in first
    chat(["My cat is called Murka.", "/quit"])  # kept when the chat closes
    later = chat(["Where do I work?"])
    assert "Yandex" in later and "2 of 10 slots" in later
    assert (tmp_path / "c-recurrent" / "default.safetensors").exists()
