"""How common a word is in English or Russian, from wordfreq's frequency lists (shipped in
its wheel, read offline): a capitalised word that starts a sentence is taken for a name
only when it is not one of the language's everyday words.

Frequencies are on the Zipf scale (log10 of uses per billion words): 7.7 for "the", about
5 for "yesterday", 3.5 for "melanie"; 0 for a word the list does not have. A Russian word's
uses are spread over its many forms, so a Russian form counts as somewhat more common than
its own frequency: "врач" (4.7) is as everyday as "yesterday".
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from wordfreq import get_frequency_dict

_CYRILLIC = re.compile(r"[а-яё]")
_LIST = "small"  # the words down to about Zipf 1.5: enough to tell common from rare
_INFLECTED = 0.6  # what a Russian form adds to its frequency


@lru_cache(maxsize=2)
def _frequencies(language: str) -> dict[str, float]:
    return get_frequency_dict(language, wordlist=_LIST)


def zipf(word: str) -> float:
    """The Zipf frequency of a lower-case word, in the language its script says (a
    Russian form's raised by what inflection spreads)."""
    if _CYRILLIC.search(word):
        frequencies = _frequencies("ru")
        frequency = max(frequencies.get(word, 0.0), frequencies.get(word.replace("ё", "е"), 0.0))
        return math.log10(frequency) + 9 + _INFLECTED if frequency > 0 else 0.0
    frequency = _frequencies("en").get(word.replace("’", "'"), 0.0)
    return math.log10(frequency) + 9 if frequency > 0 else 0.0
