"""Text analysis shared by indexing and querying: tokens, stems, stop words, word counts.

English and Russian are stemmed with Snowball; a token is stemmed by the script it is
written in, so mixed-language messages work.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]")

_EN_STOP = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each few for from further had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too under until up very was wasn't we we'd we'll
    we're we've were weren't what what's when when's where where's which while who who's
    whom why why's will with won't would wouldn't you you'd you'll you're you've your yours
        yourself yourselves also just really yeah oh hey hi hello ok okay so get got gonna
    wanna lol wow haha hahaha omg yay thanks thank""".split()
)

_RU_STOP = frozenset(
    """и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
    ее её мне было вот от меня еще ещё нет о из ему теперь когда даже ну вдруг ли если уже
    или ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они
    тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под
    будет ж тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем
    чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после
    над больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо
    свою этой перед иногда лучше чуть том нельзя такой им более всегда конечно всю между это
    мои мою спасибо ладно окей ок ого ух ха хаха""".split()
)

STOP_WORDS = _EN_STOP | _RU_STOP

# Words that point back to something said before ("he", "it", "её"), as `tokens` spells them.
ANAPHORA = frozenset(
    """it its this that these those he him his she her they them their there then он она оно
    они его ее их это этот эта эти том той там тогда""".split()
)


@lru_cache(maxsize=1)
def _stemmers() -> tuple[Stemmer.Stemmer, Stemmer.Stemmer]:
    return Stemmer.Stemmer("english"), Stemmer.Stemmer("russian")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (apostrophes kept inside words, ё folded to е)."""
    return [t.replace("’", "'").replace("ё", "е") for t in _TOKEN.findall(text.lower())]


def stem(token: str) -> str:
    english, russian = _stemmers()
    if _CYRILLIC.search(token):
        return russian.stemWord(token)  # type: ignore[no-any-return]
    return english.stemWord(token.split("'")[0])  # type: ignore[no-any-return]


def terms(text: str) -> list[str]:
    """Index terms: stems of the non-stop-word tokens, in order (repeats kept)."""
    return [stem(t) for t in tokens(text) if t not in STOP_WORDS]
