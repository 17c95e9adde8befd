"""Unicode at the API edge: everything stored and every query is NFC, and an id may not
hold characters nobody can see."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

import pytest

from kuzya import InvalidInput, Memory
from kuzya.language.text import terms

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)
JOSE_NFC = "Jos\u00e9"
JOSE_NFD = "Jose\u0301"
KRAKOW_NFD = "Krako\u0301w"


def test_composed_and_decomposed_names_are_one_participant(memory):
    assert JOSE_NFC != JOSE_NFD
    memory.remember("My PIN is 4821", speaker=JOSE_NFD, participants=[JOSE_NFD], time=T0)
    memory.remember("I parked on level three", speaker=JOSE_NFC, time=T0)
    memory.remember("Team lunch is on Friday", speaker="bob", participants=["bob"], time=T0)

    assert memory.stats()["participants"] == 2  # José once, and Bob
    assert {e.speaker for e in memory.get_all(user_id=JOSE_NFD)} == {JOSE_NFC}
    private = memory.recall("what is my PIN?", participants=[JOSE_NFC])
    assert any("4821" in item.text for item in private)
    # the privacy filter sees one person: Bob with José sees neither of José's messages
    together = memory.recall("what is my PIN?", participants=["bob", JOSE_NFD])
    assert not any("4821" in item.text for item in together)


def test_a_decomposed_word_is_one_full_text_token(memory):
    episode = memory.remember(f"I grew up in {KRAKOW_NFD}", speaker="ana", time=T0)
    assert episode.text == unicodedata.normalize("NFC", f"I grew up in {KRAKOW_NFD}")
    query = terms("Kraków")
    assert query == ["kraków"]
    hits = memory.store.text_search(memory.store.scope(memory.namespace, ["ana"]), query, 10)
    assert [item for item, _ in hits] == [episode.id]
    recall = memory.recall("Kraków", participants=["ana"])
    assert recall.items[0].sources == (episode.id,)


def test_decomposed_captions_subjects_and_namespaces_are_stored_composed(memory):
    episode = memory.remember(
        "look at this",
        speaker=JOSE_NFD,
        conversation=f"trip-{KRAKOW_NFD}",
        attachments=[{"caption": f"the square in {KRAKOW_NFD}"}],
        time=T0,
    )
    assert episode.conversation == f"trip-{unicodedata.normalize('NFC', KRAKOW_NFD)}"
    assert "Kraków" in episode.content
    assert memory.profile(JOSE_NFD).subject == JOSE_NFC
    assert Memory(memory.store, memory.embedder, namespace=JOSE_NFD).namespace == JOSE_NFC


HIDDEN = [
    "\u200b",  # zero-width space
    "\u2060",  # word joiner
    "\ufeff",  # byte order mark
    "\u202a",  # left-to-right embedding
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u2069",  # pop directional isolate
    "\u200e",  # left-to-right mark
    "\u200f",  # right-to-left mark
    "\u061c",  # Arabic letter mark
    "\u0007",  # bell
    "\u2028",  # line separator
]


@pytest.mark.parametrize("char", HIDDEN, ids=lambda c: f"U+{ord(c):04X}")
def test_ids_with_invisible_characters_are_refused(hash_memory, char):
    spoofed = f"an{char}a"
    before = hash_memory.stats()
    for call in (
        lambda: hash_memory.remember("hello", speaker=spoofed),
        lambda: hash_memory.remember("hello", speaker="ana", participants=["ana", spoofed]),
        lambda: hash_memory.remember("hello", speaker="ana", conversation=spoofed),
        lambda: hash_memory.recall("hello", participants=[spoofed]),
        lambda: hash_memory.profile(spoofed),
    ):
        with pytest.raises(InvalidInput) as error:
            call()
        assert f"U+{ord(char):04X}" in str(error.value)
        assert repr(spoofed) in str(error.value)
    assert hash_memory.stats() == before


@pytest.mark.parametrize("char", HIDDEN, ids=lambda c: f"U+{ord(c):04X}")
def test_message_text_may_hold_invisible_characters(hash_memory, char):
    episode = hash_memory.remember(f"pasted{char}from a web page", speaker="ana")
    assert char in hash_memory.get(episode.id).text


def test_message_text_still_refuses_nul(hash_memory):
    with pytest.raises(InvalidInput, match="NUL"):
        hash_memory.remember("before\x00after", speaker="ana")
