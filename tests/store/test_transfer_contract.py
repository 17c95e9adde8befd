"""Contract of the transfer side of the store port, run on every adapter: a namespace read
in backend-neutral rows and written into another store comes back the same, times and
places kept; writing the same rows twice writes them once. (The fake embedder: control
flow only; `tests/test_transfer.py` checks recall with the real one.)"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from kuzya.model import Mention, Message
from kuzya.remember import analysed, indexed
from kuzya.store.base import Store
from kuzya.store.portable import RestoredEpisode
from kuzya.testing import HashEmbedder

NS = "ns-transfer"
T0 = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)


def message(text: str, key: str, speaker: str = "ana", *others: str) -> Message:
    return Message(text, speaker, "c1", (speaker, *others), T0, key=key)


def test_restored_episodes_keep_their_times_places_and_keys(
    store: Store, store_embedder: HashEmbedder
) -> None:
    said = message("I moved to Lisbon", "k1")
    restored = RestoredEpisode(
        indexed(said, store_embedder.embed([said.content])[0]),
        stored_at=datetime(2024, 3, 2, tzinfo=UTC),
        updated_at=datetime(2024, 3, 3, tzinfo=UTC),
        position=7,
    )
    first = store.restore_episodes(NS, [restored])
    assert store.restore_episodes(NS, [restored]) == first  # a key stored keeps its episode
    (kept,) = store.kept_episodes(NS, 0, 10)
    assert (kept.key, kept.episode.position, kept.episode.text) == ("k1", 7, said.text)
    assert kept.episode.stored_at == restored.stored_at
    assert kept.episode.updated_at == restored.updated_at


def test_the_entity_graph_moves_by_key_and_sense(
    store: Store, store_embedder: HashEmbedder
) -> None:
    said = [
        message("My brother Leo lives in Oslo", "k1", "ana", "bo"),
        message("Leo and Mia went to Oslo", "k2", "bo", "ana"),
    ]
    vectors = store_embedder.embed([m.content for m in said])
    store.add_episodes(
        NS,
        [
            analysed(said[0], vectors[0], {}),
            replace(analysed(said[1], vectors[1], {}), mentions=(Mention("Mia", "mia"),)),
        ],
    )
    graph = store.entity_graph(NS)
    assert ("leo", 0) in graph.entities and graph.associations and graph.aliases
    other = "ns-copy"
    ids = store.restore_episodes(
        other, [RestoredEpisode(indexed(m, v), T0, None, i) for i, (m, v) in
                enumerate(zip(said, vectors, strict=True))]
    )  # fmt: skip
    by_id = dict(zip([k.episode.id for k in store.kept_episodes(NS, 0, 10)], ids, strict=True))
    moved = replace(
        graph,
        mentions=tuple(replace(m, episode_id=by_id[m.episode_id]) for m in graph.mentions),
        aliases=tuple(replace(a, episode_id=by_id[a.episode_id or 0]) for a in graph.aliases),
    )
    store.put_entity_graph(other, moved)
    store.put_entity_graph(other, moved)  # twice: once
    assert store.entity_graph(other) == moved
    assert store.entities(other, ["ana", "bo"]) != []
    assert [(e.key, e.mentions) for e in store.entities(other)] == [
        (e.key, e.mentions) for e in store.entities(NS)
    ]
