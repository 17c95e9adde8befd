"""Job titles, trips and relatives by rules, English and Russian: `kuzya.facts.rules_roles`
with the grammars' own job and family rules.

A case is (text, expected claims): (attribute, value, negated) about the speaker, or
(subject, attribute, value, negated) about someone they name; exactly these are found.
"""

from __future__ import annotations

import pytest
from tests.facts.claim_cases import Expected, cases, found, quads

ROLES = [
    (
        "senior-title",
        "I'm a senior data engineer at Spotify",
        [("job", "senior data engineer", False), ("works_at", "Spotify", False)],
    ),
    (
        "head-of",
        "I'm the head of marketing at Acme",
        [("job", "head of marketing", False), ("works_at", "Acme", False)],
    ),
    (
        "product-owner",
        "I am a product owner at Zalando",
        [("job", "product owner", False), ("works_at", "Zalando", False)],
    ),
    ("title-is", "My job title is staff engineer", [("job", "staff engineer", False)]),
    ("promoted", "I was promoted to engineering manager", [("job", "engineering manager", False)]),
    ("ru-prorab", "Работаю прорабом", [("job", "прораб", False)]),
    ("ru-naznachili", "Меня назначили главным инженером", [("job", "главный инженер", False)]),
    (
        "ru-dolzhnost",
        "Я работаю в должности ведущего аналитика в Сбере",
        [("job", "ведущий аналитик", False)],
    ),
    ("ru-works-at", "Работаю в Яндексе", [("works_at", "Яндекс", False)]),
    (
        "line-cook-called",
        "I'm a line cook at a bistro called Olive & Thyme",
        [("job", "line cook", False), ("works_at", "Olive & Thyme", False)],
    ),
    ("cafe-named", "I work at a cafe named Blue Door", [("works_at", "Blue Door", False)]),
    ("real-estate", "I'm a real estate agent", [("job", "real estate agent", False)]),
    (
        "flight-attendant",
        "I'm a flight attendant for Delta",
        [("job", "flight attendant", False), ("works_at", "Delta", False)],
    ),
    (
        "ru-prorab-mid-sentence",
        "Меня зовут Сергей, я прораб на стройке в Химках",
        [("name", "Сергей", False), ("job", "прораб", False), ("works_at", "стройка", False)],
    ),
    (
        "ru-chef-quoted",
        "Я шеф-повар в ресторане «Белуга»",
        [("job", "шеф-повар", False), ("works_at", "Белуга", False)],
    ),
    ("ru-works-quoted", "Работаю в ресторане «Белуга»", [("works_at", "Белуга", False)]),
    ("ru-stewardess", "Я бортпроводница", [("job", "бортпроводница", False)]),
    ("ru-senior-engineer", "Я старший инженер", [("job", "старший инженер", False)]),
]
TRIPS = [
    (
        "trip-spain",
        "I'm planning a trip to Spain in July",
        [("plan", "travel to Spain in July", False)],
    ),
    (
        "booked-holiday",
        "We booked a holiday in Crete for May",
        [("plan", "travel in Crete for May", False)],
    ),
    ("ru-sobirayus", "Собираюсь в Казань в мае", [("plan", "поехать в Казань в мае", False)]),
    (
        "ru-poezdka",
        "Планирую поездку в Испанию в июле",
        [("plan", "поехать в Испанию в июле", False)],
    ),
]
RELATIVES = [
    (
        "ru-wife-u-menya",
        "Жена у меня, Марина, пилот в «Победе», летает в основном в Сочи",
        [
            ("spouse", "Марина", False),
            ("Марина", "job", "пилот", False),
            ("Марина", "works_at", "Победа", False),
        ],
    ),
    (
        "ru-husband-u-menya-dash",
        "Муж у меня — Олег, работает врачом",
        [("spouse", "Олег", False), ("Олег", "job", "врач", False)],
    ),
    (
        "ru-brother-u-menya",
        "Брат у меня Лёша, живёт в Казани",
        [("family", "брат Лёша", False), ("Лёша", "lives_in", "Казань", False)],
    ),
    (
        "wife-comma-pilot",
        "My wife, Sofia, is a pilot",
        [("spouse", "Sofia", False), ("Sofia", "job", "pilot", False)],
    ),
    (
        "wife-apposition",
        "My wife Sofia, a pilot at Delta, loves jazz",
        [
            ("spouse", "Sofia", False),
            ("Sofia", "job", "pilot", False),
            ("Sofia", "works_at", "Delta", False),
        ],
    ),
    (
        "wife-pilot",
        "My wife Sofia is a pilot",
        [("spouse", "Sofia", False), ("Sofia", "job", "pilot", False)],
    ),
    (
        "brother-works-at",
        "My brother Leo works at Google as an engineer",
        [("family", "brother Leo", False), ("Leo", "works_at", "Google", False)],
    ),
    (
        "ru-wife-pilot",
        "Моя жена Соня — пилот",
        [("spouse", "Соня", False), ("Соня", "job", "пилот", False)],
    ),
    (
        "ru-husband-doctor",
        "Мой муж Олег работает врачом в Москве",
        [
            ("spouse", "Олег", False),
            ("Олег", "job", "врач", False),
            ("Олег", "works_at", "Москва", False),
        ],
    ),
]
NOTHING = [
    "I'm a regular at Joe's",
    "I'm a mess at work",
    "I'm an amazing cook",
    "I'm a home cook",
    "I'm a terrible driver",
    "I'm a role model",
    "Я отличный повар",
    "Я ужасный водитель",
    "Are you the head of marketing at Acme?",
    "My title is a secret",
    "I'm planning to sleep",
    "Is she planning a trip to Spain?",
    "Меня назначили ответственным за уборку?",
    "Дела у меня, Марина, хорошие",
]


@pytest.mark.parametrize(("text", "expected"), cases(ROLES + TRIPS + RELATIVES))
def test_roles_trips_and_relatives(text: str, expected: list[Expected]) -> None:
    assert found(text) == quads(expected)


@pytest.mark.parametrize("text", NOTHING)
def test_not_roles_or_trips(text: str) -> None:
    assert found(text) == set()
