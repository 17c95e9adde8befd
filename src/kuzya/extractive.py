"""The reply without a model: a greeting for a greeting, nothing for other small talk, an
acknowledgement for a statement, and for a question what memory holds, said plainly."""

from __future__ import annotations

from kuzya.entities.ner import is_russian
from kuzya.facts import rules
from kuzya.language.text import STOP_WORDS, tokens
from kuzya.model import Recall, RecallItem

_GREETINGS = frozenset("hi hello hey hiya morning evening привет здравствуй здравствуйте".split())
_SMALL_TALK = _GREETINGS | frozenset(
    """thx ty lmao rofl hehe cool nice great awesome good fine sure yep nope yes bye goodbye
    cheers lot much welcome благодарю пока ага угу класс круто отлично супер ахаха лол
    понятно ясно доброе добрый утро вечер большое""".split()
)


def _small_talk(text: str) -> bool:
    return all(word in STOP_WORDS or word in _SMALL_TALK for word in tokens(text))


def _states(item: RecallItem) -> bool:
    """Whether a recalled item says something worth quoting: not one of the assistant's
    own replies, not small talk, not a question."""
    return not item.assistant and not _small_talk(item.text) and not rules.is_question(item.text)


# what an extractive reply says, in English and in Russian: a greeting, an
# acknowledgement, nothing recalled, the lead of what was recalled
_SAYINGS = {
    False: ("Hi!", "Noted.", "I don't remember anything about that.", "From memory: "),
    True: ("Привет!", "Запомнил.", "Я ничего об этом не помню.", "Вот что я помню: "),
}


def extractive_reply(text: str, recall: Recall, limit: int = 3) -> tuple[str, list[RecallItem]]:
    """Without a model: a greeting for a greeting and nothing for other small talk
    ("thanks", "lol", "👍"), an acknowledgement for a statement, and for a question the
    best recalled items that state something (see `_states`) said plainly; in Russian for a
    Russian message. Also the items the reply quotes."""
    hello, noted, unknown, recalled = _SAYINGS[is_russian(text)]
    if _small_talk(text):
        return (hello if not _GREETINGS.isdisjoint(tokens(text)) else ""), []
    if not rules.is_question(text):
        return noted, []
    quoted = [item for item in recall.items if _states(item)][:limit]
    if not quoted:
        return unknown, []
    return recalled + " ".join(item.line() for item in quoted), quoted
