"""Russian values in the nominative: `kuzya.language.normal_form` (pymorphy3)."""

from __future__ import annotations

import pytest

from kuzya.language.normal_form import nominative, place, speaker_past


@pytest.mark.parametrize(
    ("said", "normal"),
    [
        ("Москве", "Москва"),
        ("Москвы", "Москва"),
        ("Казани", "Казань"),
        ("Яндексе", "Яндекс"),
        ("Тинькоффе", "Тинькофф"),
        ("Санкт-Петербурге", "Санкт-Петербург"),
        ("Ростове-на-Дону", "Ростов-на-Дону"),
        ("Нижнем Новгороде", "Нижний Новгород"),
        ("Великом Новгороде", "Великий Новгород"),
        ("Московском государственном университете", "Московский государственный университет"),
        ("Соединённых Штатах", "Соединённые Штаты"),
        ("городской больнице", "городская больница"),
        ("улице Ленина", "улица Ленина"),
        ("прорабом", "прораб"),
        ("старшим инженером", "старший инженер"),
        ("пиццу с грибами", "пицца с грибами"),
        ("острую пиццу", "острая пицца"),
        ("Петром", "Пётр"),
        ("«Ромашке»", "«Ромашка»"),
        ("Марину", "Марина"),  # a name, not "Марин"
        ("Диму", "Дима"),  # a name, not "дим"
        ("Олей", "Оля"),
    ],
)
def test_noun_phrases_go_to_the_nominative(said: str, normal: str) -> None:
    assert nominative(said) == normal


@pytest.mark.parametrize(
    "said",
    [
        "Тбилиси",  # indeclinable
        "МГУ",  # an abbreviation
        "Google",  # not Russian
        "играть в шахматы",  # a verb phrase
        "латте",  # not in the dictionary: not guessed
        "капучино",  # likelier another word's form than a noun: kept
        "острый рамен",  # no reading of "рамен" agrees with "острый"
        "",
    ],
)
def test_what_cannot_be_read_stays_as_said(said: str) -> None:
    assert nominative(said) == said


@pytest.mark.parametrize(
    ("word", "past"),
    [
        ("переехал", True),
        ("устроилась", True),
        ("ушла", True),
        ("переехали", False),  # plural: "мы" or "они"
        ("было", False),
        ("дела", False),
        ("футбол", False),
    ],
)
def test_a_verb_the_speaker_says_of_themselves(word: str, past: bool) -> None:
    assert speaker_past(word) is past


@pytest.mark.parametrize(
    ("word", "is_place"), [("Томске", True), ("Химках", True), ("Яндексе", False), ("Сбере", False)]
)
def test_places_the_analyser_knows(word: str, is_place: bool) -> None:
    assert place(word) is is_place
