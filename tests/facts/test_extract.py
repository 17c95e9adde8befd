"""The cold-path extraction call with a scripted model: one call per chunk, whole
conversations kept together, model inventions dropped, junk never half-written."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest

from kuzya.facts.extract import chunks, digest, parts
from kuzya.memory import Memory
from kuzya.model import Episode
from kuzya.testing import ScriptedLLM

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


def episodes(memory: Memory, sizes: list[int]) -> list[Episode]:
    stored = []
    for c, size in enumerate(sizes):
        for i in range(size):
            when = T0 + timedelta(days=c, minutes=i)
            text = f"message {i} of conversation {c}"
            stored.append(memory.remember(text, speaker="ana", conversation=f"c{c}", time=when))
    return stored


def test_chunks_keep_conversations_together(hash_memory: Memory) -> None:
    stored = episodes(hash_memory, [10, 25, 8, 50])
    sizes = [[e.conversation for e in chunk] for chunk in chunks(stored, 40)]
    assert [len(c) for c in sizes] == [35, 8, 40, 10]
    assert set(sizes[0]) == {"c0", "c1"} and set(sizes[1]) == {"c2"}
    assert set(sizes[2]) == set(sizes[3]) == {"c3"}  # too long for one chunk: split
    assert [e.id for chunk in chunks(stored, 40) for e in chunk] == [e.id for e in stored]


def test_a_long_message_goes_to_the_model_in_parts(hash_memory: Memory) -> None:
    filler = "We walked along the river and talked about nothing much for a while. " * 40
    text = f"{filler}Old maps are my weakness, I collect them. {filler}"
    long = hash_memory.remember(text, speaker="ana", conversation="c", time=T0)
    short = hash_memory.remember("Thanks!", speaker="ana", conversation="c", time=T0)
    pieces = parts(long)
    assert len(pieces) > 1 and all(len(p.text.split()) <= 300 for p in pieces)
    assert {p.id for p in pieces} == {long.id}
    assert " ".join(p.text for p in pieces).split() == text.split()  # nothing lost
    cut = chunks([long, short], words=700)
    assert all(sum(len(e.text.split()) for e in chunk) <= 700 for chunk in cut)
    assert [e.id for chunk in cut for e in chunk][-1] == short.id
    maps = next(p for p in pieces if "Old maps" in p.text)
    reply = {"facts": [{"message": 0, "subject": "I", "attribute": "likes", "value": "old maps"}]}
    found = digest([maps], ScriptedLLM([json.dumps(reply)])).found
    assert [(f.episode.id, f.claim.value) for f in found if f.origin.startswith("llm")] == [
        (long.id, "old maps")
    ]


def test_model_facts_are_checked_against_the_chunk(hash_memory: Memory) -> None:
    stored = [
        hash_memory.remember(
            "I adopted a parrot called Kiwi.", speaker="ana", conversation="c", time=T0
        ),
        hash_memory.remember("Nice!", speaker="bo", conversation="c", time=T0),
    ]
    answer = {
        "facts": [
            {"message": 0, "subject": "I", "attribute": "pet", "value": "parrot Kiwi"},
            {"message": 7, "subject": "ana", "attribute": "pet", "value": "ghost"},
            {"message": 1, "subject": "bo", "attribute": "Favourite Planet!", "value": "Mars"},
            {"message": 1, "subject": "", "attribute": "likes", "value": "x"},
        ],
        "summaries": [
            {"conversation": "c", "summary": "Ana adopted a parrot."},
            {"conversation": "nope", "summary": "invented"},
        ],
    }
    llm = ScriptedLLM([json.dumps(answer)])
    result = digest(stored, llm)
    claims = [(f.claim.subject, f.claim.attribute, f.claim.value.lower()) for f in result.found]
    assert claims.count(("ana", "pet", "parrot kiwi")) == 1  # rules and model agree: once
    assert all(f.claim.value not in {"ghost", "Mars", "x"} for f in result.found)
    assert result.summaries == {"c": "Ana adopted a parrot."}
    assert len(llm.calls) == 1 and llm.calls[0].json_schema is not None
    assert "## conversation c" in llm.calls[0].messages[1].content


def test_junk_from_the_model_leaves_only_rule_claims(hash_memory: Memory) -> None:
    stored = [hash_memory.remember("I live in Oslo.", speaker="ana", time=T0)]
    llm = ScriptedLLM(["not json at all", "Sorry, I cannot do that.", '```json\n{"facts": 3}\n```'])
    result = digest(stored, llm)
    assert len(llm.calls) == 2  # the first try and one retry
    assert all(f.origin == "rules" for f in result.found)
    assert result.summaries == {}


def test_sleep_with_a_model_makes_one_call_per_chunk(hash_memory: Memory) -> None:
    episodes(hash_memory, [12, 12, 12])  # 36 messages: one chunk
    llm = ScriptedLLM(
        [
            json.dumps(
                {
                    "facts": [],
                    "summaries": [
                        {"conversation": f"c{c}", "summary": f"Summary of c{c}."} for c in range(3)
                    ],
                }
            )
        ]
    )
    sleeping = Memory(hash_memory.store, hash_memory.embedder, namespace="test", llm=llm)
    report = sleeping.sleep(now=T0 + timedelta(days=5))
    assert report.llm["calls"] == 1 and report.episodes == 36
    texts = [e.text for e in sleeping.diary(participants=["ana"], kind="conversation")]
    assert texts == [f"0{c + 1} March 2026, c{c}: Summary of c{c}." for c in range(3)]


def test_a_forget_request_only_the_model_understood_is_carried_out(hash_memory: Memory) -> None:
    said = hash_memory.remember(
        "My locker code is 5521. I love jazz.", speaker="ana", conversation="c", time=T0
    )
    asked = hash_memory.remember(
        "That locker code thing from before, wipe it, it's changed anyway.",
        speaker="ana",
        conversation="c",
        time=T0 + timedelta(minutes=5),
    )
    answer = {
        "facts": [{"message": 0, "subject": "ana", "attribute": "likes", "value": "jazz"}],
        "summaries": [{"conversation": "c", "summary": "Ana talked about jazz."}],
        "forget": [
            {"message": 1, "what": "locker code"},
            {"message": 9, "what": "nothing"},  # no such message: ignored
            {"message": 0, "what": "..."},  # nothing to forget: ignored
        ],
    }
    sleeping = Memory(
        hash_memory.store,
        hash_memory.embedder,
        namespace="test",
        llm=ScriptedLLM([json.dumps(answer)]),
    )
    report = sleeping.sleep(now=T0 + timedelta(days=1))
    assert report.forgotten == 2  # the sentence that said it, and the request
    texts = " ".join(e.text for e in sleeping.get_all(participants=["ana"]))
    assert "5521" not in texts and "locker" not in texts.lower() and "jazz" in texts
    assert [e.id for e in sleeping.get_all(participants=["ana"])] == [said.id]
    assert asked.id not in {e.id for e in sleeping.get_all()}
    assert [f.value for f in sleeping.facts(subject="ana")] == ["jazz"]


def test_open_attributes_from_the_model_are_kept_and_bad_names_skipped_in_one_line(
    hash_memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    stored = [
        hash_memory.remember("The usual, please: tonkotsu ramen.", speaker="ana", time=T0),
        hash_memory.remember("I live in Oslo.", speaker="ana", time=T0),
    ]
    answer = {
        "facts": [
            {"message": 0, "subject": "ana", "attribute": "usual_order", "value": "tonkotsu ramen"},
            {"message": 0, "subject": "ana", "attribute": "favourite_noodle", "value": "ramen"},
            {"message": 0, "subject": "ana", "attribute": "Usual Order!", "value": "x"},
            {"message": 0, "subject": "ana", "attribute": "a" * 60, "value": "y"},
        ],
        "summaries": [{"conversation": "default", "summary": "Ana ordered ramen."}],
    }
    llm = ScriptedLLM([json.dumps(answer)])
    with caplog.at_level(logging.WARNING, logger="kuzya.facts.extract"):
        result = digest(stored, llm)
    claims = {(f.claim.attribute, f.claim.value, f.origin) for f in result.found}
    assert claims == {
        ("lives_in", "Oslo", "rules"),  # nothing lost: the rules' claims,
        ("usual_order", "tonkotsu ramen", "llm:scripted"),  # the model's good facts,
        ("favourite_noodle", "ramen", "llm:scripted"),
    }
    assert result.summaries == {"default": "Ana ordered ramen."}  # and its summary
    assert len(llm.calls) == 1  # a bad name is no reason to ask again
    (line,) = [r.getMessage() for r in caplog.records]
    assert "2 facts with unusable fields skipped" in line and "\n" not in line
    assert "Usual Order!" in line


def test_a_plan_is_dated_when_it_was_said(hash_memory: Memory) -> None:
    stored = [hash_memory.remember("I'm planning a trip to Spain in July", speaker="ana", time=T0)]
    (found,) = digest(stored, None).found
    assert found.claim.value == "travel to Spain in July (July 2026)"
