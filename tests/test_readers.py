"""Readers for LoCoMo JSON and JSONL chat files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kuzya import Attachment, InvalidInput, Memory
from kuzya.bench.locomo_data import TURN_SPACING, parse_locomo_date, read_locomo
from kuzya.transfer.jsonl import read_jsonl

REAL_LOCOMO = Path("/work/shared/locomo/26.json")


def locomo_document() -> dict:
    return {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! How have you been?"},
            {"speaker": "Melanie", "dia_id": "D1:2", "text": "Swamped with the kids & work."},
            {
                "speaker": "Caroline",
                "dia_id": "D1:3",
                "text": "Look at this mural!",
                "img_url": ["https://example.invalid/mural.jpg"],
                "blip_caption": "a photo of a painted wall with a rainbow flag",
                "query": "pride mural",
            },
            {"speaker": "Melanie", "dia_id": "D1:4", "text": "Wow, love that painting!"},
            {
                "speaker": "Caroline",
                "dia_id": "D1:5",
                "text": "",
                "blip_caption": "a dog on a beach",
                "img_url": [],
            },
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            {"speaker": "Melanie", "dia_id": "D2:1", "text": "We went camping last weekend."},
            {"speaker": "Caroline", "dia_id": "D2:2", "text": "  Sounds lovely.  "},
        ],
        "session_3_date_time": "8:00 pm on 1 July, 2023",  # a date without a session
        "events_session_1": ["annotation, not memory input"],
        "qa": [
            {
                "question": "What did Caroline share?",
                "answer": "a mural",
                "category": 4,
                "evidence": ["D1:3"],
            },
            {
                "question": "Normalised ids",
                "answer": "x",
                "category": 1,
                "evidence": ["D:1:2", "D1:04", "D1:3; D1:4", "D2:1 D2:2"],
            },
            {
                "question": "Broken ids",
                "answer": "x",
                "category": 2,
                "evidence": ["D9:9", "turn 3", "D1:3"],
            },
            {"question": "No evidence", "answer": "x", "category": 3, "evidence": []},
            {
                "question": "Adversarial",
                "adversarial_answer": "x",
                "category": 5,
                "evidence": ["D2:1"],
            },
        ],
    }


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "conv-7.json"
    path.write_text(json.dumps(locomo_document(), ensure_ascii=False), encoding="utf-8")
    return path


def test_locomo_turns_become_messages(locomo_file):
    conv = read_locomo(locomo_file)
    assert conv.name == "conv-7"
    assert conv.speakers == ("Caroline", "Melanie")
    assert len(conv.messages) == 7
    assert conv.turn_ids == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D2:1", "D2:2"]
    session_1 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    first = conv.messages[0]
    assert first.text == "Hey Mel! How have you been?"
    assert first.speaker == "Caroline"
    assert first.participants == ("Caroline", "Melanie")
    assert first.conversation == "conv-7:session_1"
    assert first.time == session_1
    assert first.metadata == {"turn": "D1:1"}
    # turns of a session keep their order in time
    assert [m.time for m in conv.messages[:5]] == [session_1 + i * TURN_SPACING for i in range(5)]
    assert conv.messages[5].time == datetime(2023, 6, 27, 10, 37, tzinfo=UTC)
    assert conv.messages[5].conversation == "conv-7:session_2"
    assert conv.messages[6].text == "Sounds lovely."
    assert conv.last_session == datetime(2023, 6, 27, 10, 37, tzinfo=UTC)
    # only turns are read: no annotation text leaks into messages
    assert all("annotation" not in m.text for m in conv.messages)


def test_locomo_image_turns_keep_their_caption(locomo_file):
    conv = read_locomo(locomo_file)
    mural = conv.messages[2]
    assert mural.attachments == (
        Attachment(
            "image",
            "a photo of a painted wall with a rainbow flag",
            "https://example.invalid/mural.jpg",
        ),
    )
    assert "[shared image: a photo of a painted wall with a rainbow flag]" in mural.content
    assert "pride mural" not in mural.content  # the 'query' field is not memory input
    image_only = conv.messages[4]
    assert image_only.text == "(image)"
    assert image_only.attachments == (Attachment("image", "a dog on a beach", None),)
    assert all(not m.attachments for i, m in enumerate(conv.messages) if i not in (2, 4))


def test_locomo_evidence_ids_are_normalised_and_flaws_counted(locomo_file):
    conv = read_locomo(locomo_file)
    by_text = {q.text: q for q in conv.questions}
    assert len(conv.questions) == 5
    assert by_text["What did Caroline share?"].evidence == ("D1:3",)
    assert by_text["What did Caroline share?"].category == 4
    assert by_text["Normalised ids"].evidence == ("D1:2", "D1:4", "D1:3", "D2:1", "D2:2")
    assert by_text["Broken ids"].evidence == ("D1:3",)
    assert by_text["No evidence"].evidence == ()
    assert by_text["Adversarial"].category == 5
    assert conv.evidence_issues == {"normalised": 2, "missing_turn": 1, "malformed": 2}


def test_locomo_file_wrapped_in_a_conversation_key(tmp_path):
    document = locomo_document()
    qa = document.pop("qa")
    path = tmp_path / "wrapped.json"
    path.write_text(json.dumps({"conversation": document, "qa": qa}), encoding="utf-8")
    conv = read_locomo(path)
    assert len(conv.messages) == 7 and len(conv.questions) == 5


@pytest.mark.parametrize(
    "content",
    ["not json at all", "[1, 2, 3]", json.dumps({"speaker_a": "A"}), ""],
)
def test_locomo_reader_refuses_non_locomo_files(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"bad\.json"):
        read_locomo(path)


def test_locomo_reader_refuses_a_file_without_sessions(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"speaker_a": "A", "speaker_b": "B"}), encoding="utf-8")
    with pytest.raises(InvalidInput, match="no sessions"):
        read_locomo(path)


def test_locomo_reader_reports_a_turn_without_an_id(tmp_path):
    """A malformed turn is a malformed file: InvalidInput naming the file, not KeyError."""
    document = locomo_document()
    del document["session_2"][0]["dia_id"]
    path = tmp_path / "no-id.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"no-id\.json"):
        read_locomo(path)


def test_locomo_reader_reports_a_session_without_a_date(tmp_path):
    document = locomo_document()
    del document["session_2_date_time"]
    path = tmp_path / "no-date.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"no-date\.json"):
        read_locomo(path)


def test_locomo_dates():
    assert parse_locomo_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_locomo_date(" 12:05 am on 1 January, 2024 ") == datetime(
        2024, 1, 1, 0, 5, tzinfo=UTC
    )
    with pytest.raises(InvalidInput):
        parse_locomo_date("8 May 2023")


@pytest.mark.parametrize(
    ("date", "refusal"),
    [
        ("1:00 am on 1 January, 0001", "outside the supported range"),
        ("11:59 pm on 31 December, 9999", r"session 1's turns run past 9999"),
    ],
)
def test_locomo_dates_outside_the_calendar_are_refused(tmp_path, date, refusal):
    document = locomo_document()
    document["session_1_date_time"] = date
    path = tmp_path / "edge.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InvalidInput, match=refusal):
        read_locomo(path)


def test_jsonl_at_the_calendars_end_is_remembered_or_refused_whole(tmp_path, hash_memory):
    path = tmp_path / "edge.jsonl"
    lines = [
        {"text": "see you next week", "speaker": "ana", "time": "9999-12-31T12:00:00"},
        {"text": "yesterday was fun", "speaker": "ana", "time": "0002-01-01T00:00:00"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    stored = hash_memory.remember_many(read_jsonl(path))
    assert stored[0].events == ()  # "next week" falls after 9999: not a date
    assert [span.label() for span in stored[1].events] == ["31 December 1"]
    lines.append({"text": "and then", "speaker": "ana", "time": "0001-12-31T23:00:00"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"edge\.jsonl:3: time 0001-12-31T23:00:00 is outside"):
        read_jsonl(path)
    assert hash_memory.stats()["episodes"] == 2


def test_locomo_messages_can_be_remembered(locomo_file, hash_memory):
    conv = read_locomo(locomo_file)
    stored = hash_memory.remember_many(conv.messages)
    assert len(stored) == 7
    assert [e.metadata["turn"] for e in stored] == conv.turn_ids
    assert all(e.audience == frozenset(conv.speakers) for e in stored)
    top = hash_memory.recall("painted wall rainbow flag", participants=["Melanie"]).items[0]
    assert top.id == stored[2].id


def test_real_locomo_conversation_26():
    assert REAL_LOCOMO.exists(), "the shared LoCoMo development half is expected here"
    conv = read_locomo(REAL_LOCOMO)
    assert conv.speakers == ("Caroline", "Melanie")
    assert len(conv.messages) > 100
    assert len(conv.turn_ids) == len(conv.messages)
    assert all(m.metadata.get("turn") for m in conv.messages)
    assert all(m.metadata["turn"] == t for m, t in zip(conv.messages, conv.turn_ids, strict=True))
    assert len(set(conv.turn_ids)) == len(conv.turn_ids)
    assert all(m.text.strip() for m in conv.messages)
    assert any(m.attachments for m in conv.messages)
    assert conv.questions and all(q.category in (1, 2, 3, 4, 5) for q in conv.questions)
    known = set(conv.turn_ids)
    assert all(set(q.evidence) <= known for q in conv.questions)
    times = [m.time for m in conv.messages]
    assert times == sorted(times) and conv.last_session >= times[0] - timedelta(days=1)


# -- JSONL ----------------------------------------------------------------------------------------


def test_jsonl_reader_reads_messages(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"text": "Привет! Как дела?", "speaker": "ana"}, ensure_ascii=False),
                "",
                json.dumps(
                    {
                        "text": "Fine, thanks",
                        "speaker": "bo",
                        "conversation": "other",
                        "participants": ["ana", "bo"],
                        "time": "2024-05-01T10:00:00+02:00",
                    }
                ),
                "   ",
                json.dumps(
                    {
                        "text": "look",
                        "speaker": "ana",
                        "attachments": [{"kind": "image", "caption": "a cat"}],
                    }
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    records = read_jsonl(path)
    assert [r.text for r in records] == ["Привет! Как дела?", "Fine, thanks", "look"]
    assert [r.conversation for r in records] == ["chat", "other", "chat"]
    assert [r.conversation for r in read_jsonl(path, default_conversation="x")] == [
        "x",
        "other",
        "x",
    ]
    assert len({r.key for r in records}) == 3  # stable keys, the same on every reading
    assert [r.key for r in read_jsonl(path)] == [r.key for r in records]


def test_jsonl_records_can_be_remembered(tmp_path, hash_memory):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        json.dumps(
            {"text": "I moved to Porto", "speaker": "ana", "time": "2024-05-01T10:00:00+02:00"}
        )
        + "\n"
        + json.dumps(
            {
                "text": "look",
                "speaker": "ana",
                "attachments": [{"kind": "image", "caption": "a cat on a sofa"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    stored = hash_memory.remember_many(read_jsonl(path))
    assert [e.text for e in stored] == ["I moved to Porto", "look"]
    assert stored[0].said_at == datetime(2024, 5, 1, 8, tzinfo=UTC)
    assert stored[0].conversation == "chat"
    assert stored[1].attachments == (Attachment("image", "a cat on a sofa", None),)


def test_jsonl_invalid_json_reports_the_line_number(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text(
        '{"text": "ok", "speaker": "ana"}\n\n{"text": "oops", "speaker": }\n{"text": "x"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InvalidInput, match=r"broken\.jsonl:3: not valid JSON"):
        read_jsonl(path)


def test_jsonl_non_object_line_reports_the_line_number(tmp_path):
    path = tmp_path / "list.jsonl"
    path.write_text('{"text": "ok", "speaker": "ana"}\n["not", "an", "object"]\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"list\.jsonl:2: expected a JSON object"):
        list(read_jsonl(path))


def test_jsonl_invalid_utf8_reports_the_line_number(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"text": "ok", "speaker": "ana"}\n{"text": "caf\xe9", "speaker": "bo"}\n')
    with pytest.raises(InvalidInput, match=r"latin1\.jsonl:2"):
        list(read_jsonl(path))


def test_jsonl_lone_surrogate_is_refused_with_its_line(tmp_path):
    path = tmp_path / "surrogate.jsonl"
    path.write_text(
        '{"text": "fine", "speaker": "ana"}\n{"text": "bad \\udcff", "speaker": "ana"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InvalidInput, match=r"surrogate\.jsonl:2: text is not valid Unicode"):
        read_jsonl(path)


def test_jsonl_reader_memory_import_is_the_same_as_remember(tmp_path, hash_memory: Memory):
    path = tmp_path / "two.jsonl"
    path.write_text(
        '{"text": "one", "speaker": "ana"}\n{"text": "two", "speaker": "ana"}\n', encoding="utf-8"
    )
    stored = hash_memory.remember_many(read_jsonl(path))
    assert [(e.position, e.conversation) for e in stored] == [(0, "two"), (1, "two")]
