"""Hot-path entity mentions, English and Russian: `kuzya.entities.mentions.mentions` and `key`.

Each case is (text, known names, expected mentions). Known names are given as the names
the store has seen; the gazetteer maps their keys to themselves (plus any alias given).
Expected mentions are (name as written, key, relation) triples, compared as sets: the
extractor promises one mention per key, not an order.

Behaviour the extractor does not have yet is not asserted here (see the gap list in the
report that accompanied this suite), so a failure here is a regression.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from kuzya.entities.mentions import key, mentions
from kuzya.model import Mention

Triple = tuple[str, str, str | None]


def gazetteer(*names: str, aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """What the store would hand the extractor after seeing these names."""
    known = {key(n): key(n) for n in names}
    known.update(aliases or {})
    return known


def found(text: str, known: Mapping[str, str] | None = None) -> set[Triple]:
    return {(m.name, m.key, m.relation) for m in mentions(text, known)}


# -- relations that introduce a name --------------------------------------------------------

RELATIONS_EN: list[tuple[str, set[Triple]]] = [
    ("My brother Leo lives in Oslo.", {("Leo", "leo", "brother"), ("Oslo", "oslo", None)}),
    ("my sister Anna is a nurse", {("Anna", "anna", "sister")}),
    ("My dog's name is Rex.", {("Rex", "rex", "dog")}),
    ("My cat is called Tom.", {("Tom", "tom", "cat")}),
    ("My dog named Bim loves snow.", {("Bim", "bim", "dog")}),
    ("We adopted a puppy named Biscuit.", {("Biscuit", "biscuit", "puppy")}),
    ("I have a parrot called Kesha.", {("Kesha", "kesha", "parrot")}),
    ("Our cat named Luna sleeps all day.", {("Luna", "luna", "cat")}),
    ("My friend, Sam, called.", {("Sam", "sam", "friend")}),
    ("My brother's name is Leo.", {("Leo", "leo", "brother")}),
    ("my neighbour Olga gave me apples", {("Olga", "olga", "neighbour")}),
    ("My mum, Linda, says hi.", {("Linda", "linda", "mum")}),
    ("This is my friend Bob.", {("Bob", "bob", "friend")}),
    ("My cousin Jean-Luc arrived from Lyon.", {("Jean-Luc", "jean luc", "cousin"),
                                               ("Lyon", "lyon", None)}),
    ("I called my friend O'Brien.", {("O'Brien", "o brien", "friend")}),
    ("My sister Anna Karenina arrived.", {("Anna Karenina", "anna karenina", "sister")}),
    ("My dog Rex and my cat Tom fight.", {("Rex", "rex", "dog"), ("Tom", "tom", "cat")}),
]  # fmt: skip

RELATIONS_RU: list[tuple[str, set[Triple]]] = [
    ("Моя сестра Маша живёт в Казани.", {("Маша", "маш", "sister"), ("Казани", "казан", None)}),
    ("Мой брат Петя работает врачом.", {("Петя", "пет", "brother")}),
    ("У меня собака по кличке Шарик.", {("Шарик", "шарик", "dog")}),
    ("У меня кот Барсик.", {("Барсик", "барсик", "cat")}),
    ("Мой пёс Бим спит у двери.", {("Бим", "бим", "dog")}),
    ("Моя мама Ольга приедет в среду.", {("Ольга", "ольг", "mom")}),
    ("Вчера приходила моя подруга Лена.", {("Лена", "лен", "friend")}),
    ("Знакомьтесь, это мой друг Ваня.", {("Ваня", "ван", "friend")}),
    ("Мой друг по имени Ваня позвонил.", {("Ваня", "ван", "friend")}),
    ("Моя дочь по имени Аня пошла в школу.", {("Аня", "ан", "daughter")}),
    ("Моя собака по кличке Жучка лает.", {("Жучка", "жучк", "dog")}),
    ("мой кот по кличке Барсик заболел", {("Барсик", "барсик", "cat")}),
    ("У меня сестра Оля, она врач.", {("Оля", "ол", "sister")}),
    ("Мой дядя Игорь живёт в Самаре.", {("Игорь", "игор", "uncle"), ("Самаре", "самар", None)}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), RELATIONS_EN + RELATIONS_RU)
def test_relation_introduces_a_name(text: str, expected: set[Triple]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [("My brother Leo called.", "person"), ("My dog named Bim barks.", "pet"),
     ("У меня кот Барсик.", "pet"), ("Моя сестра Маша пришла.", "person"),
     ("We flew to Oslo.", "name"), ("I have a hamster called Pip.", "pet")],
)  # fmt: skip
def test_relation_decides_the_kind(text: str, kind: str) -> None:
    assert mentions(text)[0].kind == kind  # relations come first


# -- known names: inflections, case, possessives --------------------------------------------

KNOWN: list[tuple[str, dict[str, str], set[Triple]]] = [
    ("Я позвонила Маше вечером.", gazetteer("Маша"), {("Маше", "маш", None)}),
    ("Маши не было дома.", gazetteer("Маша"), {("Маши", "маш", None)}),  # starts the sentence
    ("Вчера гуляли с Машей в парке.", gazetteer("Маша"), {("Машей", "маш", None)}),
    ("вчера видел машу у метро", gazetteer("Маша"), {("машу", "маш", None)}),  # lower case
    ("Петей все гордятся.", gazetteer("Петя"), {("Петей", "пет", None)}),
    ("Мы были в Казани и в Москве.", gazetteer("Казань"),
     {("Казани", "казан", None), ("Москве", "москв", None)}),
    ("Caroline's guitar is red.", gazetteer("Caroline"), {("Caroline's", "caroline", None)}),
    ("LEO said no.", gazetteer("Leo"), {("LEO", "leo", None)}),
    ("we walked down rua augusta", gazetteer("Rua Augusta"),
     {("rua augusta", "rua augusta", None)}),
    ("i love new york in may", gazetteer("New York"), {("new york", "new york", None)}),
    ("Leo and Oslo again.", gazetteer("Leo", "Oslo"),
     {("Leo", "leo", None), ("Oslo", "oslo", None)}),
    # the speaker's own relational alias resolves to the entity it names
    ("I talked to my brother today.", gazetteer("Leo", aliases={"my brother": "leo"}),
     {("my brother", "leo", None)}),
    ("my brother's car broke", gazetteer("Leo", aliases={"my brother": "leo"}),
     {("my brother's", "leo", None)}),
    # a known short form is recorded under the entity it was merged into
    ("I saw Mel at the gym.", {"mel": "melanie", "melanie": "melanie"},
     {("Mel", "melanie", None)}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "known", "expected"), KNOWN)
def test_known_names_are_found_in_any_form(
    text: str, known: dict[str, str], expected: set[Triple]
) -> None:
    assert found(text, known) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("В субботу еду к Маше.", {("Маше", "маш", None)}),
     ("Вчера я видел Машу.", {("Машу", "маш", None)}),
     ("I borrowed Caroline's guitar.", {("Caroline", "caroline", None)}),
     ("I borrowed Caroline’s guitar.", {("Caroline", "caroline", None)}),
     ("Then we met Anna and Bob.", {("Anna", "anna", None), ("Bob", "bob", None)})],
)  # fmt: skip
def test_unknown_names_inside_a_sentence(text: str, expected: set[Triple]) -> None:
    assert found(text) == expected


# -- names that start a sentence ---------------------------------------------------------------

# A capitalised word that starts a sentence is a name when it is no everyday word and the
# word after it reads as what follows a name: people, companies and places, EN and RU.
SENTENCE_START: list[tuple[str, set[Triple]]] = [
    ("Melanie started pottery last week.", {("Melanie", "melanie", None)}),
    ("Sarah and I went hiking on Saturday.", {("Sarah", "sarah", None)}),
    ("Leo lives in Oslo.", {("Leo", "leo", None), ("Oslo", "oslo", None)}),
    ("Google offered me a job.", {("Google", "google", None)}),
    ("Amazon rejected my application.", {("Amazon", "amazon", None)}),
    ("Spotify hired my sister.", {("Spotify", "spotify", None)}),
    ("Barcelona sounds amazing.", {("Barcelona", "barcelona", None)}),
    ("Lisbon looked lovely in May.", {("Lisbon", "lisbon", None)}),
    ("Оля переехала в Казань.", {("Оля", "ол", None), ("Казань", "казан", None)}),
    ("Аня и я ходили в кино.", {("Аня", "ан", None)}),
    ("Кирилл, мой сосед, продаёт машину.", {("Кирилл", "кирилл", None)}),
    ("Яндекс позвал меня на собеседование.", {("Яндекс", "яндекс", None)}),
    ("Сбербанк поднял ставки.", {("Сбербанк", "сбербанк", None)}),
    ("Новосибирск встретил нас морозом.", {("Новосибирск", "новосибирск", None)}),
    ("Yesterday Melanie called.", {("Melanie", "melanie", None)}),
]  # fmt: skip

# Everyday words, verbs, adverbs and nouns that start a sentence are no names, whatever
# follows them.
NOT_SENTENCE_START = [
    "Yesterday I went home.",
    "The dentist moved my appointment.",
    "Thanks for the tip.",
    "Booked the flights! Visiting my brother.",
    "Dinner was great.",
    "Nature is amazing.",
    "Pets are great.",
    "Pottery is fun, I love pottery.",
    "Сегодня был отличный день.",
    "Спасибо за помощь!",
    "Вчера ходили в кино.",
    "Собеседование прошло хорошо!",
    "Записался на курсы гончарного мастерства.",
    "Стоматолог опять перенёс мой приём.",
    "Мама переехала к нам.",
    "Соседская собака лаяла всю ночь.",
]


@pytest.mark.parametrize(("text", "expected"), SENTENCE_START)
def test_names_that_start_a_sentence(text: str, expected: set[Triple]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize("text", NOT_SENTENCE_START)
def test_everyday_words_that_start_a_sentence_are_no_names(text: str) -> None:
    assert found(text) == set()


@pytest.mark.parametrize(
    ("text", "known"),
    [("Leo is tired.", gazetteer("Leo")),  # nothing after "Leo" says it is a name
     ("Caroline!", gazetteer("Caroline")),
     ("Москва сегодня холодная.", gazetteer("Москва")),
     ("Paris was lovely.", gazetteer("Paris"))],
)  # fmt: skip
def test_a_known_name_is_found_at_the_start_of_any_sentence(
    text: str, known: dict[str, str]
) -> None:
    assert found(text) == set()
    assert {m.key for m in mentions(text, known)} == set(known)


# -- multi-word names -------------------------------------------------------------------------

MULTI_WORD: list[tuple[str, set[Triple]]] = [
    ("We went to New York last summer.", {("New York", "new york", None)}),
    ("I live on Rua Augusta now.", {("Rua Augusta", "rua augusta", None)}),
    ("We love Los Angeles.", {("Los Angeles", "los angeles", None)}),
    ("We visited the Eiffel Tower at night.", {("Eiffel Tower", "eiffel tower", None)}),
    ("I met Jean van Damme there.", {("Jean van Damme", "jean van damme", None)}),
    ("I went to São Paulo for work.", {("São Paulo", "são paulo", None)}),
    ("Мы были в Нижнем Новгороде.", {("Нижнем Новгороде", "нижн новгород", None)}),
    ("Я ездил в Санкт-Петербург.", {("Санкт-Петербург", "санкт петербург", None)}),
]


@pytest.mark.parametrize(("text", "expected"), MULTI_WORD)
def test_multi_word_names(text: str, expected: set[Triple]) -> None:
    assert found(text) == expected


# -- no false names ---------------------------------------------------------------------------

NOTHING = [
    "Hello! Thanks for the tip.",
    "On Monday I went to the gym.",
    "See you on Monday, OK?",
    "We met in March and again in May.",
    "I think I like it.",
    "Then I'm going home, I'll call later.",
    "So I told him.",
    "Yesterday was fun. Tomorrow too.",
    "Books are great. Coffee is better.",
    "LOL that was fun",
    "Привет! В понедельник я ходил в зал.",
    "Спасибо! Сегодня было здорово.",
    "Ну да, в пятницу увидимся.",
]


@pytest.mark.parametrize("text", NOTHING)
def test_no_false_names(text: str) -> None:
    assert found(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Hi Leo! How are you?", {("Leo", "leo", None)}),
     ("Hello, Anna.", {("Anna", "anna", None)}),
     ("Thanks Anna!", {("Anna", "anna", None)}),
     ("Wow, Leo won.", {("Leo", "leo", None)}),
     ("OK, so Anna said hi.", {("Anna", "anna", None)}),
     ("«Привет», сказала Маша.", {("Маша", "маш", None)}),
     ("Спасибо, Маша!", {("Маша", "маш", None)}),
     ("Ну, Маша пришла.", {("Маша", "маш", None)})],
)  # fmt: skip
def test_greetings_and_interjections_are_not_names_but_what_follows_is(
    text: str, expected: set[Triple]
) -> None:
    assert found(text) == expected


def test_one_mention_per_key_relation_wins() -> None:
    result = mentions("My brother Leo said Leo is tired.", gazetteer("Leo"))
    assert result == [Mention("Leo", "leo", "brother")]


# -- key --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expected"),
    [(("Маша", "Маше", "Машей", "Машу", "Маши"), "маш"),
     (("Петя", "Пети", "Пете", "Петей", "Петю"), "пет"),
     (("Казань", "Казани"), "казан"),
     (("Москва", "Москве", "Москвой"), "москв"),
     (("Ёжик", "Ежик", "ёжик"), "ежик"),
     (("Caroline", "Caroline's", "Caroline’s", "CAROLINE"), "caroline"),
     (("New York", "new york", "New  York"), "new york"),
     (("Jean-Luc",), "jean luc"),
     (("Leo", "LEO", "Leo's"), "leo")],
)  # fmt: skip
def test_key_is_shared_by_the_forms_of_a_name(names: tuple[str, ...], expected: str) -> None:
    assert {key(n) for n in names} == {expected}


def test_key_of_english_words_is_not_stemmed() -> None:
    # "Rex" and "Rexes" are different keys: English names are kept whole
    assert key("Rex") == "rex" and key("Lisbon") == "lisbon" and key("Rexes") == "rexes"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My son is named Max", [("Max", "son")]),
        ("my wife is Anna", [("Anna", "wife")]),
        ("Our dog is called Rex", [("Rex", "dog")]),
        ("Leo, my brother, lives in Oslo.", [("Leo", "brother"), ("Oslo", None)]),
        ("Мою подругу зовут Катя.", [("Катя", "friend")]),
        ("Моего брата зовут Петя.", [("Петя", "brother")]),
        ("У меня есть собака Шарик.", [("Шарик", "dog")]),
        ("Я гулял с моей сестрой Машей", [("Машей", "sister")]),
        ("Мы с братом Петей ходили", [("Петей", "brother")]),
        ("Я говорил с которым Петей", [("Петей", None)]),
        ("The dentist moved my appointment.", []),
        ("on Mondays I swim", []),
        ("I called Mr. Smith yesterday", [("Smith", None)]),
        ("We met Ludwig van Beethoven fans", [("Ludwig van Beethoven", None)]),
    ],
)
def test_relation_forms_and_name_edges(text: str, expected: list[tuple[str, str | None]]) -> None:
    assert [(m.name, m.relation) for m in mentions(text, {})] == expected
