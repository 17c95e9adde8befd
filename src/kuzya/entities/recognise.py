"""The sleep job "entities": a NER model reads what was said since its cursor, links
each message to the names the hot-path rules missed ("Oslo is cold", "Наташа вчера
звонила", "St. Mary's Hospital") and tells people, places and organisations apart.

The job has its own cursor and adding a link twice is a no-op, so it is idempotent.
The assistant's own turns are skipped. A name that is part of one the rules found
("Obama" in a message where they found "Barack Obama") adds nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Protocol

from kuzya.entities.mentions import is_name, key, mentions
from kuzya.entities.ner import NER, Name
from kuzya.model import Episode, Mention, is_assistant
from kuzya.store.base import EntityStore, JobStore


class RecognitionStore(EntityStore, JobStore, Protocol):
    """What the recognition job uses: the entity graph and its cursor."""


JOB = "entities"  # the job cursor: the last episode id the model has read
BATCH = 256
# Chat words a small model takes for names when they start a message ("Glad you came!").
_CHAT_WORDS = frozenset(
    """glad nah awesome bye sounds wow yeah yep yup nope congrats congratulations cool sure
    great nice haha lol omg aww ugh oops fyi btw thanks welcome sorry love last next mon tue
    tues wed thu thur thurs fri sat sun yay woohoo woah whoa lemme gonna wanna gotta looky
    startin""".split()
)
_ADVERB = re.compile(r"\w{3,}(?:fully|ally|ually|tely|ously|ckily|stly|ntly)")  # Honestly
_DRAWN_OUT = re.compile(r".*(\w)\1\1.*")  # "Awww", "Sooo"
_LOWERCASE = re.compile(r"(?<![\w'’-])[a-zа-яё][\w'’-]*")


def recognise(
    store: RecognitionStore, namespace: str, ner: NER, batch: int = BATCH
) -> tuple[int, int]:
    """Run the job over the episodes after its cursor; returns (new links, mentions
    typed). Each message's names are typed by what the model read in that message."""
    added = typed = 0
    # words written in lowercase, per audience: a one-word "name" among those a message's
    # audience may see is not one
    lowercase: dict[frozenset[str], set[str]] = defaultdict(set)
    while episodes := store.episodes_after(namespace, store.job_position(namespace, JOB), batch):
        spoken = [e for e in episodes if not is_assistant(e)]
        for e in episodes:
            lowercase[e.audience].update(_LOWERCASE.findall(e.text))
        gazetteers: dict[tuple[str, frozenset[str]], dict[str, str]] = {}
        for episode, names in zip(spoken, ner.names([e.text for e in spoken]), strict=True):
            if not names:
                continue
            seen_by = (episode.speaker, episode.audience)
            if seen_by not in gazetteers:
                scope = store.scope(namespace, sorted(episode.audience))
                gazetteers[seen_by] = store.gazetteer(scope, episode.speaker)
            common = set().union(*(w for a, w in lowercase.items() if a >= episode.audience))
            found = _named(episode, names, gazetteers[seen_by], common)
            added += store.add_mentions(namespace, episode.id, [m for m, _ in found])
            kinds = {mention.key: kind for mention, kind in found}
            typed += store.set_entity_kinds(namespace, episode.id, kinds)
        store.set_job_position(namespace, JOB, episodes[-1].id)
    return added, typed


def _named(
    episode: Episode, names: Sequence[Name], gazetteer: Mapping[str, str], common: set[str]
) -> list[tuple[Mention, str]]:
    """The model's names as mentions (known aliases resolved), with their kinds; those
    that are part of a longer name the rules found, and words that are no names, are
    left out."""
    ruled = [set(m.key.split()) for m in mentions(episode.text, gazetteer)]
    found: dict[str, tuple[Mention, str]] = {}
    for found_name, kind in names:
        name = _trimmed(found_name, common)
        if name is None:
            continue
        stems = key(name)
        canonical = gazetteer.get(stems, stems)
        words = set(canonical.split())
        if words and not any(words < rule for rule in ruled):
            found.setdefault(canonical, (Mention(name, canonical), kind))
    return list(found.values())


def _trimmed(name: str, common: set[str]) -> str | None:
    """The name without leading words that are no names ("Bye Caroline"); None when
    nothing is left, or when one word is left that is written in lowercase elsewhere or
    looks like an adverb ("Pottery", "Thankfully")."""
    words = name.split()
    while words and (not is_name(words[0]) or words[0].lower() in _CHAT_WORDS):
        words = words[1:]
    single = words[0].lower() if len(words) == 1 else ""
    if single and (single in common or _ADVERB.fullmatch(single) or _DRAWN_OUT.fullmatch(single)):
        return None
    return " ".join(words) or None
