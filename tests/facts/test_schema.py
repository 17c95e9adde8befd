"""Open attributes: a short snake_case name beyond the catalogue gets a category and a
priority from its words; anything else is no attribute."""

from __future__ import annotations

import pytest

from kuzya.facts.schema import ATTRIBUTES, CATEGORY_PRIORITY, Claim, attribute, known


def test_catalogue_attributes_are_their_own() -> None:
    assert attribute("allergy") is ATTRIBUTES["allergy"]
    assert attribute("usual_order").category == "habits"
    assert attribute("avoids").category == "health"


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("shellfish_allergy", "health"),
        ("dietary_restriction", "health"),
        ("job_title", "work"),
        ("favourite_band", "preferences"),
        ("usual_coffee", "habits"),
        ("upcoming_trip", "plans"),
        ("daughter_school", "family"),
        ("shoe_size", "other"),
    ],
)
def test_an_open_name_gets_a_category_from_its_words(name: str, category: str) -> None:
    open_ = attribute(name)
    assert open_.category == category and not open_.single
    assert open_.priority < CATEGORY_PRIORITY[category]  # below the catalogue's own


def test_profile_order_stays_sensible() -> None:
    assert attribute("shellfish_allergy").priority > attribute("job_title").priority
    assert attribute("job_title").priority > attribute("favourite_band").priority
    assert (
        attribute("diet").priority > attribute("usual_order").priority > attribute("likes").priority
    )


def test_an_open_claim_reads_as_a_statement() -> None:
    claim = Claim("ana", "favourite_band", "Radiohead")
    assert claim.statement() == "ana's favourite band: Radiohead"
    assert claim.said_by_subject() == "My favourite band: Radiohead"


@pytest.mark.parametrize(
    "name",
    [
        "Favourite Band",
        "favourite-band",
        "1st_pet",
        "_x",
        "x__y",
        "a" * 41,
        "",
        "ключ",
        "a_b_c_d_e_f_g",
    ],
)
def test_other_names_are_no_attributes(name: str) -> None:
    assert not known(name)
    with pytest.raises(KeyError):
        attribute(name)
