"""What a recalled message shows. A message longer than its share of the budget is cut to
the sentences that match the question, so a fact in the middle of a long message is
recalled, not skipped; a shorter one loses the sentences that state nothing. Both are
made from the message's current text when it is recalled, so a passage is never a second
copy to keep private or to forget."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

import numpy as np

from kuzya.embed.base import Embedder
from kuzya.language.sentences import closed, sentences
from kuzya.language.text import terms
from kuzya.model import RecallItem

TERM_WEIGHT = 1.0  # a sentence holding every query term gains this much over its cosine
PASSAGE_WORDS = 80  # a message longer than this is compared with a query passage by passage
MIN_WORDS = 30  # a message cut shorter than this says too little
CONTEXT_WEIGHT = 0.3  # share of the neighbouring sentences' score a sentence inherits


def best_cosine(text: str, query_vector: np.ndarray, embedder: Embedder) -> float:
    """The cosine of the passage of `text` (a run of sentences of about `PASSAGE_WORDS`
    / 2 words) most similar to the query."""
    windows = [" ".join(w) for w in _windows(_pieces(text, PASSAGE_WORDS // 2), PASSAGE_WORDS // 2)]
    return float(np.max(embedder.embed(windows) @ query_vector))


def _windows(pieces: Sequence[str], words: int) -> list[list[str]]:
    """Consecutive pieces in runs of about `words` words."""
    runs: list[list[str]] = [[]]
    for piece in pieces:
        if runs[-1] and len(" ".join([*runs[-1], piece]).split()) > words:
            runs.append([])
        runs[-1].append(piece)
    return runs


def item_cap(budget_words: int, share: float) -> int:
    """The most words one message may take of a recall's budget: its `share`, and never
    less than a sentence or two."""
    return max(MIN_WORDS, int(budget_words * share))


def cut(
    item: RecallItem,
    query_terms: Sequence[str],
    query_vector: np.ndarray,
    embedder: Embedder | None,
    max_words: int,
) -> RecallItem:
    """`item` cut to its sentences (or clauses of a long one) that best match the query,
    in their order, within `max_words` (with "…" where some were left out); unchanged if
    it fits. Without an `embedder` the match is by the query's words alone (cheap: the
    tail of a recall)."""
    if item.words <= max_words:
        return item
    parts = _pieces(item.text, max(MIN_WORDS // 2, max_words // 2))
    if len(parts) < 2:
        return replace(item, text=" ".join(item.text.split()[:max_words]) + " …")
    scores = _scores(parts, query_terms, query_vector, embedder)
    room = max_words - len(replace(item, text="", events=()).line().split())  # the speaker
    chosen: set[int] = set()
    used = 0
    for best in np.argsort(-scores, kind="stable"):
        # a clause goes with the rest of its sentence where that fits ("then 'Piranesi',"
        # is followed by "and we finish with 'Demon Copperhead'")
        index = int(best)
        while index not in chosen and used + len(parts[index].split()) <= room:
            chosen.add(index)
            used += len(parts[index].split())
            if closed(parts[index]) or index + 1 == len(parts):
                break
            index += 1
    if not chosen:  # even the best piece is too long: its first words
        best = int(np.argmax(scores))
        return replace(item, text=" ".join(parts[best].split()[: max(room, 5)]) + " …", events=())
    passage = _passage(item, parts, chosen)
    while len(chosen) > 1 and passage.words > max_words:  # "…" and date notes took words
        chosen.remove(min(chosen, key=lambda i: scores[i]))
        passage = _passage(item, parts, chosen)
    return passage


def without_stale(
    item: RecallItem, replaced: Sequence[set[str]], current: Sequence[set[str]]
) -> RecallItem:
    """`item` without its clauses that state only what is no longer true: one holding
    every term of a replaced value and none of a current one ("Я живу в Екатеринбурге,
    работаю инженером" after a move keeps "… работаю инженером"); unchanged when no
    clause or every one would go."""
    parts = [clause for sentence in sentences(item.text) for clause in _CLAUSE.split(sentence)]
    held = [set(terms(part)) for part in parts]
    gone = {
        i
        for i, words in enumerate(held)
        if any(value <= words for value in replaced) and not any(v & words for v in current)
    }
    if not gone or len(gone) == len(parts):
        return item
    return _passage(item, parts, set(range(len(parts))) - gone)


def _passage(item: RecallItem, parts: Sequence[str], chosen: set[int]) -> RecallItem:
    text = _joined(parts, sorted(chosen))
    return replace(item, text=text, events=tuple(e for e in item.events if e.phrase in text))


_CLAUSE = re.compile(r"(?<=[,;:—])\s+")
_QUESTION = re.compile(r"\?[\"'»”)]*$")


def _pieces(text: str, longest: int) -> list[str]:
    """The sentences of `text`, a sentence longer than `longest` words in runs of its
    clauses (so a passage need not take a whole long sentence to hold the part that
    matters)."""
    pieces = []
    for sentence in sentences(text):
        if len(sentence.split()) <= longest:
            pieces.append(sentence)
            continue
        run: list[str] = []
        for clause in _CLAUSE.split(sentence):
            if run and len(" ".join([*run, clause]).split()) > longest:
                pieces.append(" ".join(run))
                run = []
            run.append(clause)
        pieces.append(" ".join(run))
    return pieces


def _scores(
    parts: Sequence[str],
    query_terms: Sequence[str],
    query_vector: np.ndarray,
    embedder: Embedder | None,
) -> np.ndarray:
    """How well each sentence answers the query: cosine plus the share of the query's terms
    it holds, each weighted by how few sentences of the message hold it (a term the whole
    message repeats says little), plus a little of its neighbours' (a fact and its context
    go together)."""
    held = [set(terms(part)) for part in parts]
    wanted = set(query_terms)
    weight = {t: math.log((len(parts) + 1) / (sum(t in h for h in held) + 0.5)) for t in wanted}
    total = sum(weight.values())
    overlap = np.array([sum(weight[t] for t in wanted & h) / total if total else 0.0 for h in held])
    own = TERM_WEIGHT * overlap
    if embedder is not None:
        own = own + embedder.embed(list(parts)) @ query_vector
    padded = np.pad(own, 1, constant_values=0.0)
    around = np.maximum(padded[:-2], padded[2:])
    return np.asarray(own + CONTEXT_WEIGHT * around, dtype=np.float64)


def _joined(parts: Sequence[str], chosen: Sequence[int]) -> str:
    pieces = []
    for position, index in enumerate(chosen):
        gap = index > 0 and (position == 0 or chosen[position - 1] != index - 1)
        pieces.append(f"… {parts[index]}" if gap else parts[index])
    tail = "" if chosen[-1] == len(parts) - 1 else " …"
    return " ".join(pieces) + tail


@lru_cache(maxsize=65_536)  # asked of every candidate of every query; texts repeat
def low_content(text: str) -> bool:
    """A turn that states nothing: fewer than two distinct terms ("Wow!", "lol", "👍"), or
    nothing but questions ("Where did you go in May?" asks, it does not tell)."""
    if len(set(terms(text))) < 2:
        return True
    return all(_QUESTION.search(sentence) for sentence in sentences(text))


_CAPTION = re.compile(r"\s+(?=\[)")  # an image caption "[...]" is a sentence of its own


def trimmed(item: RecallItem, min_terms: int) -> RecallItem:
    """The turn without its sentences that state nothing: fewer than `min_terms` distinct
    terms, or a question back. A turn with nothing else is kept whole."""
    said = [part for s in sentences(item.text) for part in _CAPTION.split(s) if part.strip()]
    if min_terms <= 0 or len(said) < 2:
        return item
    kept = [
        i
        for i, sentence in enumerate(said)
        if sentence.startswith("[")
        or (len(set(terms(sentence))) >= min_terms and not sentence.endswith("?"))
    ]
    if not kept or len(kept) == len(said):
        return item
    parts = [said[i] if i == 0 or i - 1 in kept else f"… {said[i]}" for i in kept]
    text = " ".join(parts) + ("" if kept[-1] == len(said) - 1 else " …")
    return replace(item, text=text, events=tuple(e for e in item.events if e.phrase in text))
