"""The public Memory API under random input, property-based: random types, sizes, Unicode
(decomposed letters, bidirectional marks, lone surrogates, huge strings), numbers (NaN,
infinity, negative, integers too long to print) and dates. Every call either succeeds or
raises a KuzyaError, never anything else, and a call that raised left the store as it was.

One store takes every example (state accumulates, as in use); the real embedder is shared.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import fields
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kuzya import KuzyaError, Memory
from kuzya.embed import Embedder
from kuzya.recall.pipeline import RecallSettings
from kuzya.validate import shown

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)
IDS = ["ana", "bob", "Jos\u00e9", "Jose\u0301", "kira"]
SETTING_VALUES = {  # well-formed values of RecallSettings' fields, by type
    "int": st.integers(0, 200),
    "float": st.floats(0, 1),
    "bool": st.booleans(),
}

good_texts = st.one_of(
    st.sampled_from(
        [
            "I live in Lisbon",
            "My brother Leo moved to Oslo",
            "what is my PIN?",
            "I grew up in Krako\u0301w",  # decomposed
            "pasted \u202efrom\u202c a page\u200b",  # bidirectional and invisible marks
            "Я живу в Москве, мой адрес Ленина 5",
            "Please forget my address",
            "word " * 6_000,  # 30,000 characters, under the limit
        ]
    ),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40),
)
ids = st.sampled_from(IDS)
people = st.lists(ids, min_size=1, max_size=3)
memory_ids = st.integers(min_value=1, max_value=40)
dates = st.one_of(
    st.none(),
    st.datetimes(
        timezones=st.one_of(
            st.none(),
            st.builds(timezone, st.timedeltas(timedelta(hours=-23), timedelta(hours=23))),
        )
    ),
    st.just("2024-06-02T10:00:00+02:00"),
)
attachments = st.lists(
    st.fixed_dictionaries(
        {"caption": good_texts}, optional={"kind": ids, "url": st.just("https://x.org/a.jpg")}
    ),
    max_size=3,
)
metadata = st.dictionaries(st.text(max_size=5), st.one_of(good_texts, st.integers()), max_size=3)
messages = st.lists(
    st.fixed_dictionaries(
        {"text": good_texts, "speaker": ids},
        optional={"participants": people, "conversation": ids, "time": dates},
    ),
    max_size=3,
)
anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 2**63, 10**5000, float("nan"), float("-inf"), datetime.max]),
    st.text(st.characters(blacklist_categories=()), max_size=40),  # lone surrogates too
    st.sampled_from(
        [
            "",
            "   ",
            "nul\x00inside",
            "lone \udcff surrogate",
            "zero\u200bwidth",
            "\u202eevil",
            "x" * 40_000,
            "yesterday",
            "9999-12-31T23:59:59-05:00",
        ]
    ),
    st.binary(max_size=8),
    st.lists(st.one_of(ids, st.integers()), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.just([{"caption": "x"}] * 17),
    st.just(["p"] * 1_001),
)

Call = Callable[[Memory], Any]


def _bound(method: str, kwargs: dict[str, Any], spoiled: tuple[str, Any] | None) -> Call:
    if spoiled is not None:
        kwargs = {**kwargs, spoiled[0]: spoiled[1]}

    def call(memory: Memory) -> Any:
        return getattr(memory, method)(**kwargs)

    call.__qualname__ = f"{method}(**{shown(kwargs)})"
    return call


def _call(
    method: str,
    required: dict[str, st.SearchStrategy[Any]],
    optional: dict[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[Call]:
    """A call of `method` with well-formed arguments, half the time one of them spoiled."""
    names = sorted({*required, *(optional or {})})
    spoiled = st.one_of(st.none(), st.tuples(st.sampled_from(names), anything))
    kwargs = st.fixed_dictionaries(required, optional=optional or {})
    return st.builds(_bound, st.just(method), kwargs, spoiled)


def _tuned(name: str, value: Any) -> Call:
    def call(memory: Memory) -> Any:
        tuned = memory.with_settings(**{name: value})
        return tuned.recall("where does Leo live?", participants=["ana"], conversation="c")

    call.__qualname__ = f"with_settings({name}={shown(value)}).recall(...)"
    return call


calls = st.one_of(
    _call(
        "remember",
        {"text": good_texts, "speaker": ids},
        {
            "conversation": ids,
            "participants": people,
            "time": dates,
            "attachments": attachments,
            "metadata": metadata,
            "derived_from": st.lists(memory_ids, max_size=2),
        },
    ),
    _call("remember_many", {"messages": messages}),
    _call(
        "recall",
        {"query": good_texts, "participants": people},
        {
            "now": dates,
            "conversation": st.sampled_from(["default", "c"]),
            "speaker": ids,
            "limit": st.integers(1, 50),
            "budget_words": st.one_of(st.none(), st.integers(1, 500)),
        },
    ),
    _call("facts", {}, {"subject": ids, "participants": people, "include_past": st.booleans()}),
    _call("profile", {"subject": ids}, {"participants": people}),
    _call("diary", {"participants": people}, {"kind": st.sampled_from(["conversation", "day"])}),
    _call(
        "forget",
        {"subject": ids, "everything": st.booleans()},
        {
            "attribute": st.sampled_from(["address", "lives_in", "usual_order"]),
            "about": good_texts,
            "participants": people,
            "actor": ids,
        },
    ),
    _call("delete", {"memory_id": memory_ids}, {"actor": ids}),
    _call("update", {"memory_id": memory_ids, "text": good_texts}, {"actor": ids}),
    _call("get", {"memory_id": memory_ids}),
    _call("history", {"memory_id": memory_ids}, {"participants": people}),
    _call(
        "get_all",
        {},
        {
            "user_id": ids,
            "conversation": ids,
            "limit": st.integers(1, 100),
            "offset": st.integers(0, 5),
        },
    ),
    _call("prune", {}, {"now": dates, "below": st.floats(0, 1)}),
    st.sampled_from(fields(RecallSettings)).flatmap(
        lambda field: st.builds(
            _tuned, st.just(field.name), st.one_of(SETTING_VALUES[field.type], anything)
        )
    ),
)


def fingerprint(path: Path) -> dict[str, int]:
    """Rows in every table of the store's file, read through a connection of its own."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}


@pytest.fixture
def fuzzed(tmp_path: Path, use_embedder: Embedder) -> Iterator[Memory]:
    with Memory.open(tmp_path / "fuzz.db", namespace="fuzz", embedder=use_embedder) as memory:
        memory.remember("My brother Leo lives in Oslo", speaker="ana", conversation="c", time=T0)
        memory.remember("I moved to Lisbon", speaker="bob", participants=IDS[:2], time=T0)
        yield memory


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(calls, min_size=1, max_size=4))
def test_every_call_succeeds_or_raises_a_kuzya_error_and_changes_nothing(fuzzed, sequence):
    path = Path(fuzzed.stats()["path"])
    for call in sequence:
        before = fingerprint(path)
        try:
            call(fuzzed)
        except KuzyaError:
            assert fingerprint(path) == before, call.__qualname__
