"""Leads, left-out subjects and changes said another way: `kuzya.facts.rules_leads`, read
through `kuzya.facts.rules.claims`.

A case is (text, expected claims): (attribute, value, negated) about the speaker; exactly
these are found.
"""

from __future__ import annotations

import pytest
from tests.facts.claim_cases import cases, found, quads

from kuzya.facts.rules_leads import prepare

LEADS = [
    (
        "ru-news-colon",
        "Новости: переехал в Новосибирск, устроился в лабораторию",
        [("lives_in", "новосибирск", False), ("works_at", "лаборатория", False)],
    ),
    ("ru-news-have", "У меня новости: переехала в Казань!", [("lives_in", "казань", False)]),
    ("ru-omg-koroche", "Омг, короче: переехала в Казань", [("lives_in", "казань", False)]),
    ("ru-esli-chestno", "Если честно, я люблю суши", [("likes", "суши", False)]),
    ("ru-predstavlyaesh", "Представляешь, я переехал в Москву", [("lives_in", "москва", False)]),
    ("ru-blin", "Блин, уволилась из Яндекса", [("works_at", "яндекс", True)]),
    ("ru-kstati-zamuzh", "Кстати, вышла замуж за Тома", [("spouse", "том", False)]),
    ("ru-nakonets-to", "Наконец-то переехала в Питер", [("lives_in", "питер", False)]),
    (
        "ru-dropped-then-other",
        "Переехала в Казань, а Маша осталась в Москве",
        [("lives_in", "казань", False)],
    ),
    (
        "ru-and-past",
        "Я переехал в Казань и устроился в школу",
        [("lives_in", "казань", False), ("works_at", "школа", False)],
    ),
    ("en-update-we", "Update: we moved to Austin", [("lives_in", "austin", False)]),
    (
        "en-update-dropped",
        "Update: moved to Austin, got a job at Dell",
        [("lives_in", "austin", False), ("works_at", "dell", False)],
    ),
    ("en-plot-twist", "Plot twist lol, I now live in Seattle", [("lives_in", "seattle", False)]),
    ("en-honestly-dropped", "Honestly, moved to Austin and I love it",
     [("lives_in", "austin", False)]),
    ("en-lol", "lol I moved to Austin", [("lives_in", "austin", False)]),
    ("en-ok-so-basically", "Ok so basically I'm a barista at Blue Bottle now",
     [("job", "barista", False), ("works_at", "blue bottle", False)]),
    ("en-so-yeah-lol", "So yeah, lol, moved to Denver", [("lives_in", "denver", False)]),
    ("en-haha-yeah", "Haha yeah I love sushi", [("likes", "sushi", False)]),
    ("en-big-news-dash", "Big news — I got a job at Spotify", [("works_at", "spotify", False)]),
    ("en-turns-out", "Turns out I'm allergic to cats", [("allergy", "cats", False)]),
    ("en-ugh-quit", "Ugh. Quit my job at the bank", [("works_at", "the bank", True)]),
    ("en-heading-email", "My email: ana@example.com", [("email", "ana@example.com", False)]),
    ("ru-heading-address", "Мой адрес: улица Ленина, 5", [("address", "улица ленина, 5", False)]),
    ("ru-ne-a", "И работаю уже не в банке, а в издательстве «Эксмо», редактором!",
     [("works_at", "банк", True), ("works_at", "эксмо", False), ("job", "редактор", False)]),
    ("ru-ne-a-zhivu", "Живу теперь не в Москве, а в Казани",
     [("lives_in", "москва", True), ("lives_in", "казань", False)]),
]  # fmt: skip
NOTHING = [
    "Моя сестра: переехала в Казань",  # a heading that names someone else
    "Маша переехала в Казань, устроилась в школу",  # Маша's, not the speaker's
    "Всё, что я люблю, — это суши",
    "Got it, thanks",
    "Испекла!! Получилось почти как у бабушки 😭",  # a verb, not a name
    "Ну что, где я живу?",
    "Lol, do you remember where I live?",
    "Sadly, my sister moved to Austin",
    "Update: the meeting got moved to Friday",
    "Новости: в городе открыли новый парк",
    "Оказывается, Маша переехала в Казань",
    "Была в кино вчера, понравилось",
    "Left my keys at home",
    "Короче, брат переехал в Москву",
    "Мы едем не в Москву, а в Питер",
    "Работаю не в банке, а дома",
]


@pytest.mark.parametrize(("text", "expected"), cases(LEADS))
def test_leads_do_not_block_the_rules(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize("text", NOTHING)
def test_what_is_not_the_speakers_stays_unread(text: str) -> None:
    assert found(text) == set()


@pytest.mark.parametrize(
    ("said", "russian", "ready"),
    [
        ("Update: moved to Austin", False, "I moved to Austin"),
        ("Big news: moved to Austin", False, "I moved to Austin"),
        ("Ok so basically I'm a barista", False, "Ok so I'm a barista"),
        ("Jake and I broke up last year", False, "I broke up with Jake last year"),
        ("My boyfriend and I split up", False, "I broke up with my boyfriend"),
        ("we're not together anymore", False, "we broke up"),
        ("I'm now in Seattle", False, "now I'm in Seattle"),
        ("Блин, мы с Олей больше не вместе", True, "мы с Олей расстались"),
        ("Вчера, короче, переехала в Казань", True, "Вчера, короче, я переехала в Казань"),
        ("Новости — переехала в Томск", True, "я переехала в Томск"),
        ("Tom and I live in Oslo", False, "Tom and I live in Oslo"),
        ("My name: Ana", False, "My name: Ana"),
        (
            "Работаю не в банке, а в «Эксмо», редактором",
            True,
            "я больше не работаю в банке, я работаю в «Эксмо» редактором",
        ),
    ],
)
def test_sentences_made_ready(said: str, russian: bool, ready: str) -> None:
    assert prepare(said, russian) == ready
