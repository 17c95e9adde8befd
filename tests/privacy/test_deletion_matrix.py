"""The deletion matrix: every way of forgetting × every place a memory can show up.

Ways: `delete` by id, `forget` by attribute, by `about`, `everything=True`, a spoken
request in English and in Russian, and the assistant's `forget` tool. Places: recall,
facts (past ones included), fact histories, profiles, the diary at every level, entities
and aliases, the assistant's replies (stored turns and their histories), and the raw
bytes of the database, its -wal and -shm files right after the call.

The requester, ana, says a distinctive secret in her direct conversation and repeats it
in a group with ben; the assistant quotes it (extractively and through a model), and
sleep runs 40 days later so that day and period entries summarise it. After forgetting,
the secret (as written, lower-cased, and as its index stems) must be found nowhere, and
the other memories must still be recalled.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kuzya.assistant import Assistant
from kuzya.embed import Embedder, load_embedder
from kuzya.language.text import terms
from kuzya.llm.base import Completion, ToolCall, Usage
from kuzya.memory import Memory
from kuzya.testing import ScriptedLLM
from kuzya.tools import Toolbox

T0 = datetime(2025, 1, 6, 10, tzinfo=UTC)
LATER = T0 + timedelta(days=40)
DM, GROUP = "dm:ana", "group:ana+ben"


@dataclass(frozen=True)
class Secret:
    """What ana says and must be forgotten, and the words that must not survive it."""

    said: str  # in her direct conversation
    repeated: str  # in the group
    quoted: str  # the model's reply that quotes it
    words: tuple[str, ...]  # distinctive words of the secret
    query: str  # a question that recalls it

    def forms(self) -> set[str]:
        """The words as written, lower-cased, and as the index stores them (stems)."""
        found: set[str] = set()
        for word in self.words:
            found.update({word, word.lower(), *terms(word)})
        return {f for f in found if len(f) >= 4}


ENGLISH = Secret(
    said="My address is 17 Zanzibar Lane.",
    repeated="Come over to 17 Zanzibar Lane on Friday, everyone!",
    quoted="Your address is 17 Zanzibar Lane.",
    words=("Zanzibar",),
    query="what is my address?",
)
OSLO = Secret(
    said="My address is 17 Zanzibar Lane in Oslo.",
    repeated="Come over to Oslo on Friday, everyone!",
    quoted="You live at 17 Zanzibar Lane in Oslo.",
    words=("Zanzibar", "Oslo"),
    query="what is my address?",
)
RUSSIAN = Secret(
    said="Мой адрес ул. Квакерова 17.",
    repeated="Приходите в гости на ул. Квакерова 17 в пятницу!",
    quoted="Ваш адрес: ул. Квакерова 17.",
    words=("Квакерова",),
    query="какой у меня адрес?",
)

# What must survive every way of forgetting (ana's other facts survive all but
# `everything`); each with a query that recalls it and a word the answer must hold.
BENS = ("ben", GROUP, "I live in Bergen and I work at Spotify", "where does Ben live?", "Bergen")
ANAS = ("ana", DM, "I love sushi", "what food do I love?", "sushi")
ANAS_WORK = ("ana", GROUP, "I work at Google", "where does Ana work?", "Google")


@dataclass
class Forgetting:
    """One way of forgetting, carried out on a fresh store; what was seen right after."""

    name: str
    secret: Secret
    survivors: tuple[tuple[str, str, str, str, str], ...]
    memory: Memory | None = None
    path: Path | None = None
    raw: dict[str, bytes] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    before: dict[str, Any] = field(default_factory=dict)


def _said(memory: Memory, speaker: str, conversation: str, text: str, when: datetime) -> int:
    members = ["ana"] if conversation == DM else ["ana", "ben"]
    return memory.remember(
        text, speaker=speaker, conversation=conversation, participants=members, time=when
    ).id


def _history(memory: Memory, secret: Secret) -> dict[str, int]:
    ids = {}
    when = T0
    for speaker, conversation, text, *_ in (BENS, ANAS_WORK):
        ids[text] = _said(memory, speaker, conversation, text, when)
        when += timedelta(hours=3)
    ids["secret"] = _said(memory, "ana", DM, secret.said, when)
    ids["repeated"] = _said(memory, "ana", GROUP, secret.repeated, when + timedelta(hours=1))
    ids["sushi"] = _said(memory, "ana", DM, ANAS[2], when + timedelta(days=1))
    _said(memory, "ben", GROUP, "Great, see you all then", when + timedelta(days=1, hours=2))
    # the assistant quotes the secret: extractively, and through a model
    plain = Assistant(memory, None)
    plain.reply(secret.query, conversation=DM, participants=["ana"], now=when + timedelta(days=2))
    plain.close()
    model = ScriptedLLM([secret.quoted])
    quoting = Assistant(memory, model)
    quoting.reply(secret.query, conversation=DM, participants=["ana"], now=when + timedelta(days=3))
    quoting.close()
    memory.sleep(now=LATER)
    return ids


def _raw(path: Path) -> dict[str, bytes]:
    return {
        suffix: Path(f"{path}{suffix}").read_bytes()
        for suffix in ("", "-wal", "-shm")
        if Path(f"{path}{suffix}").exists()
    }


def _forget(case: Forgetting, memory: Memory) -> None:
    if case.name == "delete":
        memory.delete(case.ids["secret"], actor="ana")
        memory.delete(case.ids["repeated"], actor="ana")
    elif case.name == "attribute":
        memory.forget("ana", attribute="address")
    elif case.name == "about":
        memory.forget("ana", about="Oslo")
    elif case.name == "everything":
        memory.forget("ana", everything=True)
    elif case.name == "spoken-en":
        memory.remember(
            "Please forget my address, delete it from your memory",
            speaker="ana",
            conversation=DM,
            participants=["ana"],
            time=LATER + timedelta(hours=1),
        )
    elif case.name == "spoken-ru":
        memory.remember(
            "Забудь, пожалуйста, мой адрес",
            speaker="ana",
            conversation=DM,
            participants=["ana"],
            time=LATER + timedelta(hours=1),
        )
    elif case.name == "tool":  # the model calls forget_memory, the person says yes
        call = ToolCall("call-1", "forget_memory", {"about": case.secret.words[0]})
        model = ScriptedLLM([Completion("", (call,), Usage(), "tool_calls"), "Shall I?"])
        assistant = Assistant(memory, model, tools=Toolbox())
        asked = assistant.reply(
            "I would rather you did not keep my street on file",
            conversation=DM,
            participants=["ana"],
            now=LATER + timedelta(hours=1),
        )
        assert asked.confirm is not None
        done = assistant.reply(
            "yes", conversation=DM, participants=["ana"], now=LATER + timedelta(hours=2)
        )
        assistant.close()
        assert [c.name for c in done.tool_calls] == ["forget_memory"]
    else:
        raise AssertionError(case.name)


WAYS = {
    "delete": (ENGLISH, (BENS, ANAS, ANAS_WORK)),
    "attribute": (ENGLISH, (BENS, ANAS, ANAS_WORK)),
    "about": (OSLO, (BENS, ANAS, ANAS_WORK)),
    "everything": (ENGLISH, (BENS,)),
    "spoken-en": (ENGLISH, (BENS, ANAS, ANAS_WORK)),
    "spoken-ru": (RUSSIAN, (BENS, ANAS, ANAS_WORK)),
    "tool": (ENGLISH, (BENS, ANAS, ANAS_WORK)),
}


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    model = load_embedder("use")
    model.embed(["warm up"])
    return model


def _texts(memory: Memory, case: Forgetting) -> dict[str, list[str]]:
    """Every text each place shows, to search for the secret."""
    out: dict[str, list[str]] = {}
    groups = (["ana"], ["ana", "ben"], ["ben"])
    queries = (case.secret.query, *case.secret.words, "what did we talk about?", "where do I live?")
    out["recall"] = [
        f"{i.text} | {i.line()}"
        for p in groups
        for q in queries
        for i in memory.recall(q, participants=p, now=LATER, budget_words=None, limit=100)
    ]
    facts = memory.facts(include_past=True)
    for p in groups:
        facts += memory.facts(participants=p, include_past=True)
    out["facts"] = [f"{f.statement} | {f.value}" for f in facts]
    out["fact history"] = [
        f"{event} {detail}" for f in facts for event, detail, _ in memory.fact_history(f.id)
    ]
    out["profile"] = [
        memory.profile(s, participants=p).as_prompt() for s in ("ana", "ben") for p in groups
    ]
    out["diary"] = [
        f"{d.kind}/{d.level} {d.key}: {d.text}"
        for p in groups
        for d in memory.diary(participants=p)
    ]
    out["entities"] = [f"{e.name} {e.key} {' '.join(sorted(e.aliases))}" for e in memory.entities()]
    episodes = memory.get_all(limit=10_000)
    out["assistant turns"] = [e.text for e in episodes if e.metadata.get("role") == "assistant"]
    out["messages and their histories"] = [e.text for e in episodes] + [
        f"{h.old_text} -> {h.new_text}" for e in episodes for h in memory.history(e.id)
    ]
    return out


@pytest.fixture(scope="module", params=sorted(WAYS))
def forgotten(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[Forgetting]:
    secret, survivors = WAYS[request.param]
    case = Forgetting(request.param, secret, survivors)
    case.path = tmp_path_factory.mktemp(request.param) / "k.db"
    memory = Memory.open(case.path, namespace="matrix", embedder=embedder)
    case.ids = _history(memory, secret)
    case.before = _texts(memory, case)
    _forget(case, memory)
    case.raw = _raw(case.path)  # right after the call, before anything else touches the file
    case.memory = memory
    yield case
    memory.close()


def _leaks(texts: list[str], secret: Secret) -> list[str]:
    return [t for t in texts if any(form in t or form in t.lower() for form in secret.forms())]


PLACES = [
    "recall",
    "facts",
    "fact history",
    "profile",
    "diary",
    "entities",
    "assistant turns",
    "messages and their histories",
]


@pytest.mark.parametrize("place", PLACES)
def test_the_secret_is_nowhere(forgotten: Forgetting, place: str) -> None:
    assert forgotten.memory is not None
    leaks = _leaks(_texts(forgotten.memory, forgotten)[place], forgotten.secret)
    assert not leaks, f"{forgotten.name}: {place} still shows the secret: {leaks}"


@pytest.mark.parametrize("place", PLACES)
def test_the_secret_stays_forgotten_after_another_sleep(forgotten: Forgetting, place: str) -> None:
    assert forgotten.memory is not None
    forgotten.memory.sleep(now=LATER + timedelta(days=45))
    leaks = _leaks(_texts(forgotten.memory, forgotten)[place], forgotten.secret)
    assert not leaks, f"{forgotten.name}: after sleep, {place} shows the secret: {leaks}"


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_the_secret_is_not_in_the_files(forgotten: Forgetting, suffix: str) -> None:
    data = forgotten.raw.get(suffix, b"")
    found = sorted(
        form
        for form in forgotten.secret.forms()
        if form.encode() in data or form.lower().encode() in data
    )
    assert not found, f"{forgotten.name}: k.db{suffix} still holds {found} after the call"


def test_the_secret_was_everywhere_before(forgotten: Forgetting) -> None:
    """Control: before forgetting, the secret was recalled, a fact, in the profile, in the
    assistant's turns and (but for the Russian address: the diary quotes a message's first
    sentence, and "ул." ends one) in the diary."""
    before = forgotten.before
    places = ["recall", "facts", "profile", "assistant turns"]
    if forgotten.secret is not RUSSIAN:
        places.append("diary")
    for place in places:
        assert _leaks(before[place], forgotten.secret), (forgotten.name, place, before[place])


def test_what_should_stay_is_still_recalled(forgotten: Forgetting) -> None:
    memory = forgotten.memory
    assert memory is not None
    for speaker, conversation, text, query, word in forgotten.survivors:
        present = ["ana"] if conversation == DM else ["ana", "ben"]
        recalled = memory.recall(query, participants=present, now=LATER, speaker=speaker)
        assert word in recalled.as_prompt(), (forgotten.name, text, recalled.as_prompt())
        assert any(e.text == text for e in memory.get_all(participants=present)), text
    assert "Spotify" in memory.profile("ben").as_prompt()
    if forgotten.name != "everything":
        assert "Google" in memory.profile("ana", participants=["ana", "ben"]).as_prompt()
        assert "sushi" in memory.profile("ana").as_prompt()
