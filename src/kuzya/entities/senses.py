"""One name, two entities: the evidence that a name's mentions belong to two bearers.

Each message that names the entity is read again, and three things are taken from it:

- its context: the message with the name taken out, embedded. Without the name, "my
  friend Paris" is not pulled towards Paris the city by the word they share.
- its descriptors: what the text says the bearer is. A relation to the speaker ("my
  nephew Sam", "мой пёс Марс"), an affiliation ("Sam from accounting", "Вика из
  бухгалтерии") or a place ("in Paris", "на Амуре").
- its neighbours: the other names in the message.

The messages are cut in two by their contexts (a spectral bipartition). The cut is a
split when the groups' contexts are apart by a margin that the evidence moves, a step
at a time. Descriptors that cannot fit one bearer (a place and a person, a pet and a
person, two different relations of one speaker to a relative) lower it to its base:
context and text agree. Without evidence either way it is one step higher, for one
person's life has topics far apart too (work and a hobby). A descriptor or a neighbour
found on both sides raises it by a step each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kuzya.embed import Embedder
from kuzya.entities.mentions import key as key_of
from kuzya.entities.mentions import mentions
from kuzya.model import PETS

STEP = 0.25  # how far one piece of evidence moves the margin

_KIN = {
    "sister", "brother", "mom", "dad", "wife", "husband", "son", "daughter", "cousin",
    "aunt", "uncle", "niece", "nephew", "grandma", "grandpa",
}  # fmt: skip
_SAME_RELATION = {"mum": "mom", "mother": "mom", "father": "dad",
                  "grandmother": "grandma", "grandfather": "grandpa"}  # fmt: skip
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_PLACE_BEFORE = re.compile(  # "in Paris", "на Амуре", "the river Amazon", "по реке Лена"
    r"(?:(?<!\w)(?i:in|into|near|around|across|through|along|в|во|на|по|около|возле|вдоль)"
    r"\s+(?i:the\s+)?|(?<!\w)(?i:river|lake|city|town|village|island|planet|mount)"
    r"(?:\s+of)?\s+|(?<!\w)(?i:рек|озер|город|деревн|остров|планет|улиц)[а-яё]{0,3}\s+)$"
)
_AFFILIATION_AFTER = re.compile(r"^\s+(?i:from|из)\s+(?i:the\s+)?([^\W\d_]+)")
# "the plumber Jack", but not a fronted "in the meeting Bella".
_ROLE_BEFORE = re.compile(
    r"(?:^|[^\w\s]\s*|(?<!\w)(?!(?i:in|on|at|to|for|from|with|of|by|after|during)\s)\w+\s+)"
    r"(?i:the)\s+([a-z]+)\s+$"
)


@dataclass(frozen=True)
class Descriptor:
    """What a text says the bearer of a name is: a relation of the speaker's ("kin",
    "social" or "pet"), an outsider's role ("role": "the plumber", "from accounting")
    or a place."""

    kind: str
    what: str = ""
    speaker: str = ""  # whose relation it is

    def fits(self, other: Descriptor) -> bool:
        """Whether one bearer can be described both ways. A place or a pet is only
        ever that; a speaker calls a relative by the kin word and by no other relation
        word (their nephew is not their son, nor their colleague) and a relative is not
        known by an outsider's role."""
        kinds = {self.kind, other.kind}
        if kinds & {"place", "pet"}:
            return len(kinds) == 1
        if "kin" not in kinds:
            return True
        if kinds == {"kin", "role"}:
            return False
        return self.speaker != other.speaker or self.what == other.what


@dataclass(frozen=True)
class Reading:
    """One message that names the entity, read for the evidence it gives."""

    context: str  # the message without the name
    descriptors: frozenset[Descriptor]
    neighbours: frozenset[str]  # keys of the other names in it


def _spans(text: str, names: frozenset[str]) -> list[tuple[int, int]]:
    """Where the entity's names (keys of one to three words) stand in the text."""
    words = list(_WORD.finditer(text))
    found = []
    for size in sorted({len(n.split()) for n in names}):
        for i in range(len(words) - size + 1):
            if key_of(" ".join(w.group(0) for w in words[i : i + size])) in names:
                found.append((words[i].start(), words[i + size - 1].end()))
    return found


def _relation(word: str, speaker: str) -> Descriptor:
    relation = _SAME_RELATION.get(word, word)
    kind = "pet" if relation in PETS else "kin" if relation in _KIN else "social"
    return Descriptor(kind, relation, speaker)


def read(text: str, speaker: str, key: str, names: frozenset[str]) -> Reading:
    """The context, descriptors and neighbours of the entity `key` in one message."""
    descriptors: set[Descriptor] = set()
    neighbours: set[str] = set()
    for mention in mentions(text):
        if mention.key in names and mention.relation:
            descriptors.add(_relation(mention.relation, speaker))
        elif mention.key not in names:
            neighbours.add(mention.key)
    spans = _spans(text, names)
    for start, end in spans:
        possessive = re.search(r"['’]s$", text[start:end])
        if _PLACE_BEFORE.search(text[:start]) and not possessive:
            descriptors.add(Descriptor("place"))
        if affiliation := _AFFILIATION_AFTER.match(text[end:]):
            descriptors.add(Descriptor("role", key_of(affiliation.group(1))))
        if role := _ROLE_BEFORE.search(text[:start]):
            descriptors.add(Descriptor("role", role.group(1)))
    context = text
    for start, end in sorted(spans, reverse=True):
        context = context[:start] + context[end:]
    return Reading(" ".join(context.split()), frozenset(descriptors), frozenset(neighbours))


def bipartition(vectors: npt.NDArray[np.floating]) -> npt.NDArray[np.int_]:
    """Two groups of unit vectors: the signs of the Fiedler vector of their similarity
    graph (normalised cut), which follows the graph's weakest seam."""
    affinity = np.clip(vectors @ vectors.T, 0.0, None)
    np.fill_diagonal(affinity, 0.0)
    scale = 1.0 / np.sqrt(np.maximum(affinity.sum(axis=1), 1e-9))
    laplacian = np.eye(len(vectors)) - scale[:, None] * affinity * scale[None, :]
    _, eigenvectors = np.linalg.eigh(laplacian)
    fiedler = scale * eigenvectors[:, 1]
    labels: npt.NDArray[np.int_] = (fiedler > 0).astype(np.int_)
    return labels


def separation(vectors: npt.NDArray[np.floating], labels: npt.NDArray[np.int_]) -> float:
    """How much closer the messages are to their own group's centre than the two
    centres are to each other."""
    centres = np.stack([vectors[labels == side].mean(axis=0) for side in (0, 1)])
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    cohesion = float(np.mean(np.sum(vectors * centres[labels], axis=1)))
    return cohesion - float(centres[0] @ centres[1])


def _conflict(first: set[Descriptor], second: set[Descriptor]) -> bool:
    """Whether both groups are described and no description of one fits the other."""
    return bool(first and second) and not any(a.fits(b) for a in first for b in second)


def evidence(readings: Sequence[Reading], labels: npt.NDArray[np.int_]) -> tuple[int, str]:
    """+1 when the groups' descriptors cannot fit one bearer, -1 for a descriptor and
    -1 for a neighbour both groups share; with what it rests on."""
    groups = [[r for r, label in zip(readings, labels, strict=True) if label == side]
              for side in (0, 1)]  # fmt: skip
    described = [{d for r in group for d in r.descriptors} for group in groups]
    near = [{n for r in group for n in r.neighbours} for group in groups]
    shared = sorted(near[0] & near[1])
    found = [
        (+1, "descriptors that cannot fit one bearer", _conflict(described[0], described[1])),
        (-1, "a descriptor on both sides", bool(described[0] & described[1])),
        (-1, f"named with {shared[:1]} on both sides", bool(shared)),
    ]
    why = [reason for _, reason, holds in found if holds]
    return sum(step for step, _, holds in found if holds), "; ".join(why) or "context alone"


def contexts(embedder: Embedder, readings: Sequence[Reading]) -> npt.NDArray[np.floating]:
    return np.asarray(embedder.embed([r.context or "-" for r in readings]), dtype=np.float64)
