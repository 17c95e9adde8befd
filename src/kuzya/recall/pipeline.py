"""Hybrid recall: dense, full-text and recency candidates, fused, deduplicated, packed.

The store applies the privacy rule to every candidate source; this module only ranks
what the store let through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from kuzya import validate
from kuzya.embed.base import Embedder
from kuzya.entities import mentions
from kuzya.facts.view import FactView
from kuzya.language.text import terms as index_terms
from kuzya.model import Episode, Fact, Recall, RecallItem, is_assistant
from kuzya.recall import passages
from kuzya.recall.passages import item_cap
from kuzya.recall.query import Query, analyse
from kuzya.store.base import DiaryStore, EntityStore, EpisodeStore, Hit, Scope, SearchStore


class RecallStore(SearchStore, EpisodeStore, EntityStore, DiaryStore, Protocol):
    """What recall reads: the searches, the working turns, the entity graph, the diary."""


@dataclass(frozen=True)
class RecallSettings:
    """Weights and sizes of the recall pipeline (defaults tuned on LoCoMo's dev half)."""

    dense_k: int = 100
    text_k: int = 100
    recent_k: int = 10
    dense_weight: float = 1.0
    text_weight: float = 1.5
    recent_weight: float = 0.1
    neighbour_weight: float = 0.6  # share of a neighbouring turn's score a turn inherits
    neighbour_span: int = 2  # turns on each side that pass relevance on (halving per step)
    neighbour_gate: float = 0.35  # in group chats, neighbours this similar pass on all
    context_of: int = 10  # best candidates whose neighbouring turns become candidates too
    speaker_boost: float = 0.45  # the query names the speaker of the turn
    window_k: int = 50  # candidates from the time window a query names ("last week")
    window_weight: float = 0.5
    window_boost: float = 0.3  # any candidate inside the window the query names
    outside_window_weight: float = 0.5  # those outside it, when the period is all it asks
    # "last", "latest", "most recent": of the best `latest_k` candidates, those scoring at
    # least `latest_share` of the best are ordered newest first
    latest_k: int = 3
    latest_share: float = 0.35
    when_boost: float = 0.25  # "when did ...?": candidates that mention a date or time
    assistant_weight: float = 0.5  # the assistant's own replies rank below what people said
    # Turns that state next to nothing ("Wow!", "lol", "👍", "How about you?") rank below
    # content when the query asks about something.
    low_content_weight: float = 0.5
    graph_k: int = 50  # candidates from spreading activation over the entity graph
    graph_weight: float = 0.4
    graph_seeds: int = 3  # best candidates whose entities seed the activation
    duplicate_cosine: float = 0.97
    # Those present are left out of the query's vector and full-text terms: in their own
    # conversation their names match every turn; the speaker boost says who spoke.
    unnamed_query: bool = True
    # Packed turns drop sentences with fewer than this many distinct terms and questions
    # back ("Wow!", "Thanks, Jun!", "How about you?"), so more turns fit the budget; 0 keeps all.
    sentence_terms: int = 2
    # A message longer than this share of the budget is cut to its passage that matches;
    # past the first `full_items` messages, to `tail_share` (more evidence fits: one hop of
    # a multi-hop question is rarely among the best few).
    item_share: float = 0.4
    full_items: int = 3
    tail_share: float = 0.075
    working_turns: int = 6  # working-memory window of the conversation
    fact_k: int = 5  # facts put before the episodes, at most
    fact_cosine: float = 0.35  # a fact this similar to the query is relevant
    linked_fact_k: int = 2  # facts about people the best memories name, at most
    diary_k: int = 2  # diary entries for overview questions ("what did we talk about?")

    def __post_init__(self) -> None:
        validate.recall_settings(self)


DIALOGUE = 3  # audiences this small (two people and an assistant) converse turn by turn


def _normalised(hits: Sequence[Hit]) -> dict[int, float]:
    """Scores mapped to [0, 1] within one candidate list (best = 1)."""
    if not hits:
        return {}
    scores = np.array([score for _, score in hits], dtype=np.float64)
    low, high = float(scores.min()), float(scores.max())
    span = high - low
    if span <= 1e-12:
        return {item: 1.0 for item, _ in hits}
    return {item: (score - low) / span for item, score in hits}


def fuse(sources: Sequence[tuple[Sequence[Hit], float]]) -> dict[int, float]:
    """Weighted sum of each source's normalised scores."""
    fused: dict[int, float] = {}
    for hits, weight in sources:
        for item, score in _normalised(hits).items():
            fused[item] = fused.get(item, 0.0) + weight * score
    return fused


def _with_neighbours(
    scores: dict[int, float],
    episodes: dict[int, Episode],
    vectors: dict[int, np.ndarray],
    settings: RecallSettings,
) -> dict[int, float]:
    """A turn inherits part of its neighbours' relevance (question and answer go together),
    less so when the two are about different things (interleaved topics in a group)."""
    weight, span, gate = settings.neighbour_weight, settings.neighbour_span, settings.neighbour_gate
    at = {(e.conversation, e.position): e.id for e in episodes.values()}

    def related(a: int, b: int) -> float:
        if gate <= 0 or len(episodes[a].audience) <= DIALOGUE or a not in vectors:
            return 1.0  # in a dialogue, adjacent turns are one exchange
        if b not in vectors:
            return 1.0
        return min(1.0, max(0.0, float(vectors[a] @ vectors[b])) / gate)

    smoothed = {}
    for item, score in scores.items():
        episode = episodes[item]
        around = [
            scores[at[key]] * 0.5 ** (distance - 1) * related(item, at[key])
            for distance in range(1, span + 1)
            for key in (
                (episode.conversation, episode.position - distance),
                (episode.conversation, episode.position + distance),
            )
            if key in at
        ]
        smoothed[item] = score + weight * max(around, default=0.0)
    return smoothed


def run(
    store: RecallStore,
    embedder: Embedder,
    scope: Scope,
    query_text: str,
    *,
    now: datetime,
    conversation: str | None,
    speaker: str | None,
    limit: int,
    budget_words: int | None,
    settings: RecallSettings,
    facts: FactView,
) -> Recall:
    namespace, participants = scope.namespace, sorted(scope.participants)
    working = (
        store.recent_turns(scope, conversation, settings.working_turns) if conversation else []
    )
    known = store.gazetteer(scope, speaker or "")
    present = participants if settings.unnamed_query else ()
    query = analyse(query_text, embedder, working, now, known, present)
    sources = [
        (store.dense_search(scope, query.vector, settings.dense_k), settings.dense_weight),
        (store.text_search(scope, query.terms, settings.text_k), settings.text_weight),
        (store.recent_search(scope, settings.recent_k), settings.recent_weight),
    ]
    if query.window is not None:
        window = query.window
        hits = store.window_search(scope, window.start, window.end, settings.window_k)
        sources.append((hits, settings.window_weight))
    candidates = {item for hits, _ in sources for item, _ in hits}
    episodes = {e.id: e for e in store.fetch(scope, sorted(candidates))}
    sources[0] = (_by_passage(sources[0][0], episodes, query, embedder), settings.dense_weight)
    scores = {item: s for item, s in fuse(sources).items() if item in episodes}
    _add_graph(store, scope, query, scores, episodes, now, settings)
    best = sorted(scores, key=lambda i: -scores[i])[: settings.context_of]
    for turn in store.neighbours(scope, [episodes[i] for i in best], settings.neighbour_span):
        episodes.setdefault(turn.id, turn)
        scores.setdefault(turn.id, 0.0)
    vectors = store.vector_of(namespace, list(episodes)) if settings.neighbour_gate > 0 else {}
    scores = _with_neighbours(scores, episodes, vectors, settings)
    _rank_by_time_and_content(scores, episodes, query, settings)
    # how things were: asked in words ("before"), for a period that is over, or by naming
    # what a newer statement replaced ("my Denver apartment")
    about_past = query.about_past or (query.window is not None and query.window.end <= now)
    hidden = {turn.id for turn in working}
    if not about_past:  # what a newer statement replaced is left out, unless named
        named_values = {
            source
            for fact in facts.facts
            if not fact.current and _names(query, fact.value)
            for source in fact.sources
        }
        hidden |= facts.superseded - named_values
    replaced = {} if about_past else _replaced(facts, query)
    ranked = sorted((item for item in scores if item not in hidden), key=lambda i: (-scores[i], i))
    asker = speaker or (participants[0] if len(participants) == 1 else None)
    named = {m.key for i in ranked[: settings.graph_seeds]
             for m in mentions.mentions(episodes[i].content, known)}  # fmt: skip
    first = _facts(facts, embedder, query, asker, about_past, named, settings, now)
    if query.overview:
        first += _diary(store, namespace, query, participants, settings)

    def shortened(item: RecallItem, rank: int, room: int | None) -> RecallItem:
        """A long message cut to the passage that matches, within its share of the budget
        and the `room` left; others without small talk."""
        if item.id in replaced:  # "Я живу в Екатеринбурге, работаю инженером": the job stays
            item = passages.without_stale(item, *replaced[item.id])
        share = settings.item_share if rank < settings.full_items else settings.tail_share
        cap = None if budget_words is None else item_cap(budget_words, share)
        if cap is not None and room is not None and room >= passages.MIN_WORDS:
            cap = min(cap, room)
        if cap is not None and item.words > cap:  # the best by meaning, the tail by words
            reader = embedder if rank < settings.full_items else None
            return passages.cut(item, query.terms, query.vector, reader, cap)
        return passages.trimmed(item, settings.sentence_terms)

    chosen = _pack(first, ranked, episodes, scores, store, namespace, limit, budget_words,
                   settings, shortened)  # fmt: skip
    return Recall(query=query_text, items=tuple(chosen), now=now)


def _names(query: Query, value: str) -> bool:
    """Whether the query names a value: all its words ("my Denver apartment" names
    "Denver"), or all but one of a longer one; one word in common is not enough ("how do
    I take my coffee these days?" does not name "coffee black")."""
    held = set(index_terms(value))
    named = len(held & set(query.terms))
    return named > 0 and named >= (len(held) - 1 if len(held) > 2 else len(held))


def _replaced(facts: FactView, query: Query) -> dict[int, tuple[list[set[str]], list[set[str]]]]:
    """For each message that stated a fact no longer true and one still true: the terms
    of the replaced values and of the current ones (a replaced value the query names is
    kept: "my Denver apartment")."""
    values: dict[int, tuple[list[set[str]], list[set[str]]]] = {}
    for fact in facts.facts:
        held = set(index_terms(fact.value))
        if not held or (not fact.current and _names(query, fact.value)):
            continue
        for source in fact.sources:
            values.setdefault(source, ([], []))[0 if not fact.current else 1].append(held)
    return {source: pair for source, pair in values.items() if pair[0] and pair[1]}


def _by_passage(
    dense: Sequence[Hit], episodes: dict[int, Episode], query: Query, embedder: Embedder
) -> list[Hit]:
    """Dense hits where a long message counts as its best passage: one vector for a long
    message blurs the fact in its middle (a candidate from any source is scored so)."""
    cosine = dict(dense)
    for item, episode in episodes.items():
        if len(episode.content.split()) > passages.PASSAGE_WORDS:
            best = passages.best_cosine(episode.content, query.vector, embedder)
            cosine[item] = max(cosine.get(item, -1.0), best)
    return sorted(cosine.items(), key=lambda hit: -hit[1])


def _facts(
    facts: FactView,
    embedder: Embedder,
    query: Query,
    asker: str | None,
    about_past: bool,
    named: set[str],
    settings: RecallSettings,
    now: datetime,
) -> list[RecallItem]:
    """Facts similar to the query (those that hold at `now`, or every one for a question
    about the past), then the most similar facts about the others whom the best memories name (one
    hop: "which city am I flying to?" → "visiting my brother" → "Leo lives in Oslo").
    Facts are about someone, so they are compared with the query as asked, names and all
    (embedded only when there are facts to compare)."""
    if not facts.select(current_only=not about_past, now=now):
        return []
    vector = embedder.embed([query.text])[0] if query.named else query.vector
    ranked = facts.search(
        vector, len(facts.facts), current_only=not about_past, asker=asker, now=now
    )
    similar = [
        (f, score) for f, score in ranked[: settings.fact_k] if score >= settings.fact_cosine
    ]
    taken = {f.id for f, _ in similar}
    linked = [
        (f, score)
        for f, score in ranked
        if f.id not in taken and f.subject != asker and mentions.key(f.subject) in named
    ][: settings.linked_fact_k]
    timeline = _timeline(facts, query) if about_past else []
    in_timeline = {f.id for f in timeline}
    chosen = [(f, score) for f, score in similar + linked if f.id not in in_timeline]
    cosine = {f.id: score for f, score in ranked}
    chosen += [(f, cosine.get(f.id, 0.0)) for f in timeline]
    return [RecallItem.of_fact(fact, score) for fact, score in chosen]


def _timeline(facts: FactView, query: Query) -> list[Fact]:
    """For a question about the past that names a value ("where did I live before
    Seattle?", "где я жил до Томска?"): every value that attribute of that subject had,
    newest first, as a CV reads back from now (what came just before is first)."""
    named = {(f.subject, f.attribute) for f in facts.facts if _names(query, f.value)}
    chosen = (f for f in facts.facts if (f.subject, f.attribute) in named)
    return sorted(chosen, key=lambda f: f.valid_from, reverse=True)


def _diary(
    store: RecallStore,
    namespace: str,
    query: Query,
    participants: Sequence[str],
    settings: RecallSettings,
) -> list[RecallItem]:
    """Diary entries for an overview question: those in the window it names, else the
    most similar ones."""
    entries = [e for e in store.diary(namespace, participants=participants, uncompressed=True)
               if e.kind != "conversation"]  # fmt: skip
    window = query.window
    if window is not None:
        entries = [e for e in entries if e.start < window.end and window.start <= e.end]
    if not entries:
        return []
    scores = store.diary_vectors(namespace, [e.id for e in entries]) @ query.vector
    best = np.argsort(-scores)[: settings.diary_k]
    return [RecallItem.of_diary(entries[i], float(scores[i])) for i in sorted(best)]


def _add_graph(
    store: RecallStore,
    scope: Scope,
    query: Query,
    scores: dict[int, float],
    episodes: dict[int, Episode],
    now: datetime,
    settings: RecallSettings,
) -> None:
    """Spreading activation from the query's entities and the best candidates' entities:
    episodes about associated entities join the candidates (multi-hop)."""
    best = sorted(scores, key=lambda i: -scores[i])[: settings.graph_seeds]
    top = max((scores[i] for i in best), default=0.0) or 1.0
    seeds = {i: scores[i] / top for i in best}
    hits = store.graph_search(scope, query.entity_keys, seeds, now, settings.graph_k)
    new = [item for item, _ in hits if item not in episodes]
    episodes.update((e.id, e) for e in store.fetch(scope, new))
    strongest = max((score for _, score in hits), default=0.0) or 1.0
    for item, score in hits:  # relative to the strongest: a weak link still counts a little
        if item in episodes and item not in best:  # a seed is not its own evidence
            scores[item] = scores.get(item, 0.0) + settings.graph_weight * score / strongest


def _rank_by_time_and_content(
    scores: dict[int, float], episodes: dict[int, Episode], query: Query, settings: RecallSettings
) -> None:
    """Signals beyond similarity: who speaks, whether it happened in the period the query
    names, whether it names a time, how new it is when the newest is asked for, and
    whether it says anything at all (small talk and the assistant's own replies rank
    below what people said)."""
    asks_about = bool(index_terms(query.text))
    window = query.window
    for item, episode in episodes.items():
        score = scores[item]
        if episode.speaker.lower() in query.names:
            score += settings.speaker_boost
        if query.asks_when and episode.events:
            score += settings.when_boost
        if window is not None:
            inside = window.start <= episode.said_at < window.end or any(
                e.start < window.end and window.start < e.end for e in episode.events
            )
            score = (
                score + settings.window_boost if inside else score * settings.outside_window_weight
            )
        if is_assistant(episode):
            score *= settings.assistant_weight
        if asks_about and passages.low_content(episode.content):
            score *= settings.low_content_weight
        scores[item] = score
    if query.latest:
        _newest_first(scores, episodes, settings.latest_k, settings.latest_share)


def _newest_first(
    scores: dict[int, float], episodes: dict[int, Episode], k: int, share: float
) -> None:
    """What "the latest" asks: the best `k` candidates that score at least `share` of the
    best keep their scores among them, the newest taking the highest, so the last gym
    visit outranks an earlier one that matches the words better, and nothing unrelated
    gains for being new."""
    ranked = sorted(episodes, key=lambda i: -scores[i])[:k]
    best = [i for i in ranked if scores[i] >= share * scores[ranked[0]]] if ranked else []
    newest = sorted(best, key=lambda i: (episodes[i].said_at, i), reverse=True)
    for item, score in zip(newest, [scores[i] for i in best], strict=True):
        scores[item] = score


def _pack(
    first: list[RecallItem],
    ranked: list[int],
    episodes: dict[int, Episode],
    scores: dict[int, float],
    store: RecallStore,
    namespace: str,
    limit: int,
    budget_words: int | None,
    settings: RecallSettings,
    shortened: Callable[[RecallItem, int, int | None], RecallItem],
) -> list[RecallItem]:
    """`first` (facts, diary) then the episodes best first, each `shortened` by its rank among
    the episodes taken, near-duplicates collapsed, until the limit or the budget is reached."""
    chosen: list[RecallItem] = []
    used = 0
    for candidate in first:
        words = candidate.words
        if len(chosen) < limit and (budget_words is None or used + words <= budget_words):
            chosen.append(candidate)
            used += words
    facts_taken = len(chosen)
    window = ranked[: max(limit * 3, 60)]
    vectors = store.vector_of(namespace, window)
    kept: np.ndarray | None = None  # vectors of the chosen items, one per row
    seen_text: set[str] = set()
    for item in window:
        if len(chosen) >= limit or (budget_words is not None and budget_words - used < 5):
            break  # full: nothing useful fits in fewer than five words
        room = None if budget_words is None else budget_words - used
        candidate = shortened(
            RecallItem.of_episode(episodes[item], scores[item]), len(chosen) - facts_taken, room
        )
        line = candidate.line()
        key = re.sub(r"\W+", " ", line.lower()).strip()
        if key in seen_text:
            continue
        vector = vectors.get(item)
        if (
            vector is not None
            and kept is not None
            and float(np.max(kept @ vector)) >= settings.duplicate_cosine
        ):
            continue
        words = len(line.split())
        if budget_words is not None and used + words > budget_words:
            continue
        chosen.append(candidate)
        seen_text.add(key)
        if vector is not None:
            kept = vector[None, :] if kept is None else np.vstack([kept, vector])
        used += words
    return chosen
