"""The LoCoMo benchmark's conversation files (Maharana et al., 2024) as messages, with
their questions and evidence turn ids."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kuzya import validate
from kuzya.errors import InvalidInput
from kuzya.model import Attachment, Message

_LOCOMO_DATE = "%I:%M %p on %d %B, %Y"
TURN_SPACING = timedelta(seconds=30)  # LoCoMo dates sessions, not turns: keep turns ordered


@dataclass(frozen=True)
class Question:
    """A LoCoMo question with its normalised evidence turn ids and its gold answer ("" for
    the adversarial category, whose answer is absent from the conversation)."""

    text: str
    category: int
    evidence: tuple[str, ...]
    answer: str = ""


@dataclass
class LocomoConversation:
    """The turns of one LoCoMo file as messages, plus its questions (for benchmarks only)."""

    name: str
    speakers: tuple[str, str]
    messages: list[Message]
    turn_ids: list[str]  # dia_id of each message
    questions: list[Question]
    last_session: datetime
    evidence_issues: dict[str, int] = field(default_factory=dict)


def parse_locomo_date(value: str) -> datetime:
    try:
        parsed = datetime.strptime(value.strip(), _LOCOMO_DATE)
    except ValueError as exc:
        raise InvalidInput(f"unrecognised LoCoMo session date {value!r}") from exc
    return validate.moment(parsed, "LoCoMo session date")


def _normalise_turn_id(raw: str) -> str | None:
    match = re.fullmatch(r"D:?(\d+):0*(\d+)", raw.strip())
    return None if match is None else f"D{int(match.group(1))}:{int(match.group(2))}"


def _evidence(raw: list[Any], known: set[str], issues: dict[str, int]) -> tuple[str, ...]:
    found: list[str] = []
    for entry in raw:
        for part in re.split(r"[;,\s]+", str(entry)):
            if not part:
                continue
            turn = _normalise_turn_id(part)
            if turn is None:
                issues["malformed"] = issues.get("malformed", 0) + 1
            elif turn not in known:
                issues["missing_turn"] = issues.get("missing_turn", 0) + 1
            else:
                if part != turn:
                    issues["normalised"] = issues.get("normalised", 0) + 1
                found.append(turn)
    return tuple(dict.fromkeys(found))


def _locomo_message(
    turn: dict[str, Any],
    name: str,
    session: int,
    speakers: tuple[str, str],
    start: datetime,
    index: int,
) -> Message:
    caption = turn.get("blip_caption")
    url = turn.get("img_url")
    if isinstance(url, list):
        url = url[0] if url else None
    return Message(
        text=str(turn["text"]).strip() or "(image)",
        speaker=str(turn["speaker"]),
        conversation=f"{name}:session_{session}",
        participants=speakers,
        time=start + index * TURN_SPACING,
        attachments=(Attachment("image", str(caption), url),) if caption else (),
        metadata={"turn": str(turn["dia_id"])},
        key=f"{name}#{turn['dia_id']}",
    )


def read_locomo(path: str | Path) -> LocomoConversation:
    """Only the turns become messages (text, speaker, session time, image caption)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        conv = data.get("conversation", data)
        speakers = (str(conv["speaker_a"]), str(conv["speaker_b"]))
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        raise InvalidInput(f"{path} is not a LoCoMo conversation file: {exc}") from exc
    sessions = sorted(
        (int(key.split("_")[1]), value)
        for key, value in conv.items()
        if re.fullmatch(r"session_\d+", key) and isinstance(value, list)
    )
    messages: list[Message] = []
    turn_ids: list[str] = []
    last = None
    for number, turns in sessions:
        try:
            start = parse_locomo_date(conv[f"session_{number}_date_time"])
            for index, turn in enumerate(turns):
                messages.append(_locomo_message(turn, path.stem, number, speakers, start, index))
                turn_ids.append(str(turn["dia_id"]))
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidInput(f"{path}: session {number} is malformed (missing {exc})") from exc
        except OverflowError as exc:
            raise InvalidInput(f"{path}: session {number}'s turns run past 9999") from exc
        last = start if last is None else max(last, start)
    if last is None:
        raise InvalidInput(f"{path} has no sessions")
    known = set(turn_ids)
    issues: dict[str, int] = {}
    questions = []
    for qa in data.get("qa", conv.get("qa", [])):
        evidence = _evidence(list(qa.get("evidence", [])), known, issues)
        answer = str(qa.get("answer", "")).strip()
        questions.append(Question(str(qa["question"]), int(qa["category"]), evidence, answer))
    return LocomoConversation(path.stem, speakers, messages, turn_ids, questions, last, issues)
