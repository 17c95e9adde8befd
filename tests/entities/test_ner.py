"""Named-entity recognition in sleep, with the real models (spaCy's small English model
and natasha): names the hot-path rules miss are added and typed, typing leaves kinds
told by relations alone, a second sleep changes nothing, new associations are made once
and stay in the audience that said them, and the assistant's turns are not read.

Graph-level tests use the fast hash embedder; NER needs no vectors.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kuzya import Memory
from kuzya.bench.locomo_data import read_locomo
from kuzya.entities.mentions import key, mentions
from kuzya.entities.ner import ModelNER, is_russian
from kuzya.entities.recognise import JOB
from kuzya.errors import NERError
from kuzya.model import Episode
from kuzya.sleep.sleeper import SleepReport
from kuzya.testing import HashEmbedder
from tests.entities.store_view import by_key, query, walked

T0 = datetime(2024, 1, 10, 12, tzinfo=UTC)
LATER = T0 + timedelta(days=1)
DM = ["ana", "kuzya"]
GROUP = ["ana", "bob", "kuzya"]
LOCOMO = Path("/work/shared/locomo")

# (message, the name the model adds, its kind): the rules miss each of these names
# because it starts the message with nothing after it that says it is a name ("Paris was",
# "Наташа вчера"), or is so common a word that only a telling verb would do ("Ольга"), or
# they find only part of it.
MISSED = [
    ("Paris was lovely in the spring.", "Paris", "place"),
    ("London is so expensive these days.", "London", "place"),
    ("Tokyo was amazing, we ate ramen every day.", "Tokyo", "place"),
    ("Chicago is windy this time of year.", "Chicago", "place"),
    ("Canada is beautiful in autumn.", "Canada", "place"),
    ("I went to St. Mary's Hospital yesterday.", "St. Mary's Hospital", "place"),
    ("My aunt works at the Bank of America downtown.", "Bank of America", "org"),
    ("Наташа вчера звонила.", "Наташа", "person"),
    ("Ольга пригласила нас на ужин.", "Ольга", "person"),
    ("Иван Петров стал нашим директором.", "Иван Петров", "person"),
    ("Москва сегодня очень холодная.", "Москва", "place"),
    ("Киев очень красивый город.", "Киев", "place"),
    ("Берлин мне очень понравился.", "Берлин", "place"),
]
# Names the rules found (as the generic "name"), which the model types: inside a sentence,
# or starting one with a verb after them.
TYPED = [
    ("We flew to Oslo in May.", "Oslo", "place"),
    ("I moved to Berlin last year.", "Berlin", "place"),
    ("She works for Google now.", "Google", "org"),
    ("Я теперь работаю в Газпроме.", "Газпроме", "org"),
    ("Мы летали в Казань на выходных.", "Казань", "place"),
    ("Вчера видел Машу в парке.", "Машу", "person"),
    ("Melanie painted a sunset last night.", "Melanie", "person"),
    ("Jessica called me after work.", "Jessica", "person"),
    ("Sarah and I went hiking on Saturday.", "Sarah", "person"),
    ("Daniel got a new job!", "Daniel", "person"),
    ("Barack Obama visited the school.", "Barack Obama", "person"),
    ("Microsoft announced layoffs today.", "Microsoft", "org"),
    ("Amazon delivered the package late.", "Amazon", "org"),
    ("Netflix raised its prices again.", "Netflix", "org"),
    ("Toyota recalled our car.", "Toyota", "org"),
    ("Лена работает в Газпроме.", "Лена", "person"),
    ("Петя переехал в Казань.", "Петя", "person"),
    ("Дима купил новую машину.", "Дима", "person"),
    ("Новосибирск встретил нас морозом.", "Новосибирск", "place"),
    ("Сбербанк поднял ставки.", "Сбербанк", "org"),
    ("Яндекс открыл новый офис.", "Яндекс", "org"),
    ("Аэрофлот отменил наш рейс.", "Аэрофлот", "org"),
    ("Лукойл открыл заправку рядом с домом.", "Лукойл", "org"),
]


# -- helpers ----------------------------------------------------------------------------------


def edges(memory: Memory) -> dict[tuple[str, str, str], float]:
    """(audience, key, key) -> weight of the namespace's associations."""
    rows = query(
        memory,
        "SELECT au.key, ea.key, eb.key, s.weight FROM associations s "
        "JOIN entities ea ON ea.id = s.a JOIN entities eb ON eb.id = s.b "
        "JOIN audiences au ON au.id = s.audience_id WHERE s.namespace = ?",
        memory.namespace,
    )
    return {(audience, min(a, b), max(a, b)): w for audience, a, b, w in rows}


def graph(memory: Memory) -> tuple[Any, ...]:
    """Everything the entities job may change."""
    return (
        sorted(query(memory, "SELECT key, sense FROM entities")),
        sorted(query(memory, "SELECT * FROM mentions")),
        sorted(query(memory, "SELECT * FROM entity_counts")),
        sorted(query(memory, "SELECT * FROM associations")),
        sorted(query(memory, "SELECT * FROM entity_aliases")),
    )


def linked(memory: Memory, name: str, episode: Episode) -> bool:
    entity = by_key(memory)[key(name)]
    return episode.id in memory.store.entity_episodes(memory.namespace, entity.id)


# the memory, each episode by its text, the entity kinds before the sleep, the sleep's report
Slept = tuple[Memory, dict[str, Episode], dict[str, str], SleepReport]


@pytest.fixture(scope="module")
def ner() -> ModelNER:
    model = ModelNER()
    model.names(["Warm up, Oslo.", "Привет, Маша."])
    return model


@pytest.fixture
def memory(tmp_path: Path, ner: ModelNER) -> Iterator[Memory]:
    with Memory.open(tmp_path / "n.db", namespace="t", embedder=HashEmbedder(), ner=ner) as m:
        yield m


@pytest.fixture(scope="module")
def slept(tmp_path_factory: pytest.TempPathFactory, ner: ModelNER) -> Iterator[Slept]:
    """Every case in its own conversation, one sleep: (memory, episode by text, kinds of the
    entities before the sleep, the report). Read-only for the tests that use it."""
    path = tmp_path_factory.mktemp("ner") / "cases.db"
    memory = Memory.open(path, namespace="t", embedder=HashEmbedder(), ner=ner)
    said = {
        text: memory.remember(
            text, speaker="ana", conversation=f"c{i}", time=T0 + timedelta(minutes=i)
        )
        for i, (text, _, _) in enumerate([*MISSED, *TYPED])
    }
    before = {e.key: e.kind for e in memory.entities()}
    report = memory.sleep(now=LATER)
    yield memory, said, before, report
    memory.close()


# -- names the rules miss ---------------------------------------------------------------------


@pytest.mark.parametrize(("text", "name", "kind"), MISSED, ids=[n for _, n, _ in MISSED])
def test_the_model_adds_a_name_the_rules_miss(
    slept: Slept,
    text: str,
    name: str,
    kind: str,
) -> None:
    memory, said, before, _ = slept
    assert key(name) not in {m.key for m in mentions(text)}  # the rules miss it
    assert key(name) not in before
    entity = by_key(memory)[key(name)]
    assert (entity.name, entity.kind, entity.mentions) == (name, kind, 1)
    assert linked(memory, name, said[text])


@pytest.mark.parametrize(("text", "name", "kind"), TYPED, ids=[n for _, n, _ in TYPED])
def test_the_model_types_a_name_the_rules_found(
    slept: Slept,
    text: str,
    name: str,
    kind: str,
) -> None:
    memory, said, before, _ = slept
    assert before[key(name)] == "name"
    entity = by_key(memory)[key(name)]
    assert entity.kind == kind
    assert linked(memory, name, said[text])


def test_the_report_counts_links_and_kinds(
    slept: Slept,
) -> None:
    memory, _, before, report = slept
    assert report.ner_mentions == len(MISSED)
    assert report.ner_mentions == len(memory.entities()) - len(before)
    # mentions typed: one per case, and a few more where a message names two
    assert len(MISSED) + len(TYPED) <= report.typed <= len(MISSED) + len(TYPED) + 4
    # a name the rules found in part stays as they found it ("Петров", "Bank", "America")
    assert {key("Петров"), "bank", "america", "mary hospital"} <= set(before) <= set(by_key(memory))


def test_language_is_told_by_the_script() -> None:
    assert is_russian("Лена работает в Google.")
    assert not is_russian("I met Лена in Berlin yesterday.")


# -- what the job leaves alone ----------------------------------------------------------------


def test_kinds_told_by_relations_stay(memory: Memory) -> None:
    memory.remember("My dog Paris loves the beach.", speaker="ana", time=T0)
    memory.remember("My brother Leo works at Microsoft.", speaker="ana", time=T0)
    memory.sleep(now=LATER)  # the model calls the dog a place
    kinds = {k: e.kind for k, e in by_key(memory).items()}
    assert kinds == {"paris": "pet", "leo": "person", "microsoft": "org"}


def test_the_assistants_turns_are_not_read(memory: Memory) -> None:
    memory.remember("Natalie will love Lisbon.", speaker="kuzya", participants=DM, time=T0,
                    metadata={"role": "assistant"})  # fmt: skip
    report = memory.sleep(now=LATER)
    assert (report.ner_mentions, report.typed) == (0, 0)
    assert {k: e.kind for k, e in by_key(memory).items()} == {"lisbon": "name"}
    assert memory.store.job_position(memory.namespace, JOB) > 0  # read past, not stuck


def test_without_a_model_the_job_is_skipped(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "r.db", namespace="t", embedder=HashEmbedder()) as memory:
        memory.remember("Natalie will paint a sunset.", speaker="ana", time=T0)
        report = memory.sleep(now=LATER)
        assert (report.ner_mentions, report.typed, memory.entities()) == (0, 0, [])
        assert memory.store.job_position(memory.namespace, JOB) == 0


# -- idempotence and associations -------------------------------------------------------------


def test_sleeping_twice_changes_nothing(memory: Memory) -> None:
    for i, (text, _, _) in enumerate([*MISSED, *TYPED]):
        memory.remember(text, speaker="ana", time=T0 + timedelta(minutes=i))
    first = memory.sleep(now=LATER)
    after = graph(memory)
    second = memory.sleep(now=LATER)
    assert first.ner_mentions == len(MISSED) and (second.ner_mentions, second.typed) == (0, 0)
    assert graph(memory) == after

    # and the store adds the same mentions only once, whoever asks
    episode = memory.get_all()[0]
    found = [*mentions(episode.text), *mentions("Melanie")]
    assert memory.store.add_mentions(memory.namespace, episode.id, found) == 0
    assert memory.store.set_entity_kinds(memory.namespace, episode.id, {"melanie": "org"}) == 0
    assert graph(memory) == after


def test_new_pairs_are_associated_once(memory: Memory) -> None:
    memory.remember("Jessica is moving to Oslo with Tom.", speaker="ana", participants=DM, time=T0)
    dm = json.dumps(DM)  # the audience's key in the store
    assert edges(memory) == {(dm, "oslo", "tom"): 1.0}  # the rules' pair
    memory.sleep(now=T0)
    expected = {(dm, "oslo", "tom"): 1.0, (dm, "jessica", "oslo"): 1.0,
                (dm, "jessica", "tom"): 1.0}  # fmt: skip
    assert edges(memory) == pytest.approx(expected)
    memory.sleep(now=T0)
    assert edges(memory) == pytest.approx(expected)


def test_an_association_added_in_a_dm_is_not_walked_for_a_group(memory: Memory) -> None:
    dm = memory.remember("Jessica is moving to Oslo with Tom.", speaker="ana", conversation="dm",
                         participants=DM, time=T0)  # fmt: skip
    opera = memory.remember(
        "The Oslo opera house has a marble roof you can walk on.", speaker="bob",
        conversation="group", participants=GROUP, time=T0 + timedelta(hours=1),
    )  # fmt: skip
    assert "jessica" not in by_key(memory)
    memory.sleep(now=LATER)
    assert linked(memory, "Jessica", dm)
    # the group's episode is reached from "Jessica" only through the DM's association
    assert set(walked(memory, ["jessica"], DM, LATER)) == {dm.id, opera.id}
    assert opera.id in walked(memory, ["jessica"], ["ana"], LATER)
    assert walked(memory, ["jessica"], GROUP, LATER) == {}
    assert walked(memory, ["jessica"], ["bob"], LATER) == {}
    recalled = memory.recall("Tell me about Jessica", participants=GROUP, now=LATER, limit=20)
    assert not any("Jessica" in item.text for item in recalled)


# -- errors and throughput --------------------------------------------------------------------


@pytest.mark.parametrize(("package", "text"), [("spacy", "Hi Bob"), ("natasha", "Привет, Маша")])
def test_missing_packages_name_the_extra(
    monkeypatch: pytest.MonkeyPatch, package: str, text: str
) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # import fails
    with pytest.raises(NERError, match=r"pip install 'kuzya\[ner\]'"):
        ModelNER().names([text])


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO.exists(), reason="needs the LoCoMo conversations")
def test_throughput_on_two_thousand_locomo_messages(tmp_path: Path, ner: ModelNER) -> None:
    messages = [
        m for name in ("26", "30", "41", "42")
        for m in read_locomo(LOCOMO / f"{name}.json").messages
    ]  # fmt: skip
    with Memory.open(tmp_path / "l.db", namespace="t", embedder=HashEmbedder()) as memory:
        memory.remember_many(messages)
        entities = len(memory.entities())
        started = time.monotonic()
        added, typed = recognise(memory, ner)
        rate = len(messages) / (time.monotonic() - started)
        print(f"\nNER sleep job: {len(messages)} messages, {rate:.0f} messages/s, "
              f"{added} links added, {typed} entities typed, {entities} -> "
              f"{len(memory.entities())} entities")  # fmt: skip
        assert len(messages) >= 2000 and added > 0 and typed > 0
        assert rate > 20  # a floor for a busy machine; about 260-380 messages/s when idle


def recognise(memory: Memory, ner: ModelNER) -> tuple[int, int]:
    from kuzya.entities.recognise import recognise as job

    return job(memory.store, memory.namespace, ner)


def test_words_a_dm_wrote_in_lowercase_do_not_unmake_a_groups_name(memory: Memory) -> None:
    memory.remember("my rex toy broke again", speaker="ana", conversation="dm",
                    participants=DM, time=T0)  # fmt: skip
    group = memory.remember("Rex barked all night at the mailman.", speaker="bob",
                            conversation="group", participants=GROUP,
                            time=T0 + timedelta(hours=1))  # fmt: skip
    memory.sleep(now=LATER)
    assert linked(memory, "Rex", group)
