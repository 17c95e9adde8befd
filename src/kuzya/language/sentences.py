"""The one sentence splitter: where sentences end in English and Russian text, not after
an abbreviation ("Dr. Smith", "ул. Ленина"), and always at a line break."""

from __future__ import annotations

import re

_END = re.compile(r"(?<=[.!?…])([\"'»”)]*)\s+|\s*\n+\s*")  # closing quotes stay
_ABBREVIATION = re.compile(
    r"\b(?:mr|mrs|ms|dr|st|prof|jr|sr|vs|etc|e\.g|i\.e|tel|г|ул|д|кв|стр|корп|пр|пос)\.$", re.I
)
_CLOSED = re.compile(r"[.!?…][\"'»”)]*$")


def spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` starts and ends, without the space around it."""
    found, start = [], 0
    for match in _END.finditer(text):
        if "\n" not in match.group(0) and _ABBREVIATION.search(text[start : match.start()]):
            continue  # "Dr. Smith", "St. Petersburg"
        found.append((start, match.start() + len(match.group(1) or "")))
        start = match.end()
    found.append((start, len(text)))
    stripped = []
    for begin, end in found:
        part = text[begin:end]
        if part.strip():
            begin += len(part) - len(part.lstrip())
            stripped.append((begin, begin + len(part.strip())))
    return stripped


def sentences(text: str) -> list[str]:
    """The sentences of a text."""
    return [text[begin:end] for begin, end in spans(text)]


def closed(sentence: str) -> bool:
    """Whether a sentence ends as a sentence does (".", "!", "?", "…", then quotes)."""
    return _CLOSED.search(sentence) is not None


def whole(text: str) -> str:
    """`text` up to the end of its last closed sentence (a reply cut off at a token limit
    ends there); the text itself when no sentence is closed."""
    ends = [end for begin, end in spans(text) if closed(text[begin:end])]
    return text[: ends[-1]] if ends else text
