"""Spoken requests to forget, English and Russian: `kuzya.facts.rules.forget_request`.

A request is (id, text, expected), expected being the `Forget` fields (attribute, about,
previous): an attribute ("my address"), a thing spoken of ("Tom"), both for one stated
fact, neither for everything about the speaker, or `previous` when the object is only a
pronoun ("forget that"). A non-request must give None: a false one destroys user data.
`said` is the message as it may be kept, with what is to be forgotten replaced by "…".
"""

from __future__ import annotations

from typing import Any

import pytest

from kuzya.facts.rules import claims, forget_request
from kuzya.facts.schema import Forget
from kuzya.language.text import stem, tokens

SPEAKER = "ana"
EVERYTHING = (None, None, False)
PREVIOUS = (None, None, True)

Expected = tuple[str | None, str | None, bool]

ENGLISH: list[tuple[str, str, Expected]] = [
    (
        "address-delete-it",
        "Please forget my address, delete it from your memory",
        ("address", None, False),
    ),
    ("erase-about-tom", "Could you please erase what I said about Tom?", (None, "Tom", False)),
    ("dont-keep-that", "Don't keep that.", PREVIOUS),
    ("debt", "Please forget about my debt to Sam.", ("debt", None, False)),
    ("what-i-owe", "Forget what I owe Leo.", ("debt", None, False)),
    ("dont-remember-phone", "Don't remember my phone number.", ("phone", None, False)),
    ("rather-work", "I'd rather you didn't remember where I work.", ("works_at", None, False)),
    ("scratch-memory", "Scratch that from memory.", PREVIOUS),
    (
        "after-sentence",
        "I moved last week. Please forget my old address.",
        ("address", None, False),
    ),
    ("forget-that", "Forget that.", PREVIOUS),
    ("delete-this", "Please delete this.", PREVIOUS),
    ("address", "Forget my address.", ("address", None, False)),
    ("address-no-need", "Please forget my address, no need to keep it.", ("address", None, False)),
    ("address-value", "Forget my address, 17 Zanzibar Lane, please", ("address", None, False)),
    ("email-value", "Please forget my email: ana@example.org", ("email", None, False)),
    ("ru-address-value", "Забудь мой адрес ул. Квакерова 17", ("address", None, False)),
    (
        "ru-phone-aside",
        "слушай, забудь мой номер телефона, не надо его хранить.",
        ("phone", None, False),
    ),
    ("can-phone", "Can you forget my phone number?", ("phone", None, False)),
    ("everything-you-know", "Forget everything you know about me.", EVERYTHING),
    ("that-lisbon", "Please forget that I live in Lisbon.", ("lives_in", "Lisbon", False)),
    ("told-sister", "Delete everything I've told you about my sister.", (None, "sister", False)),
    ("want-email", "I want you to forget my email address.", ("email", None, False)),
    (
        "kindly-memory",
        "Would you kindly delete my phone number from your memory?",
        ("phone", None, False),
    ),
    ("wipe-birthday", "Wipe my birthday from your memory, please.", ("birthday", None, False)),
    ("erase-where-live", "Erase where I live.", ("lives_in", None, False)),
    ("about-tom", "Forget about Tom.", (None, "Tom", False)),
    ("hey-name", "Hey Kuzya, forget my name.", ("name", None, False)),
    ("dont-want-age", "I don't want you to remember my age.", ("age", None, False)),
    ("dont-store-email", "Please don't store my email.", ("email", None, False)),
    ("pronoun-then-named", "Forget that, and also forget my phone number.", ("phone", None, False)),
    ("stop-remembering", "Stop remembering where I work.", ("works_at", None, False)),
    ("no-need", "No need to remember that.", PREVIOUS),
    ("just-said", "Forget what I just said.", PREVIOUS),
    ("allergies", "Remove my allergies from your memory.", ("allergy", None, False)),
    ("mention-priya", "Please erase any mention of Priya.", (None, "Priya", False)),
    ("rid-of", "Get rid of my phone number from your memory.", ("phone", None, False)),
    ("my-sister", "Forget my sister.", (None, "sister", False)),
    (
        "oh-and-vegetarian",
        "Oh and please forget that I'm vegetarian.",
        ("diet", "vegetarian", False),
    ),
    ("like-job", "I'd like you to forget what I told you about my job.", ("job", None, False)),
    ("last-message", "Delete my last message.", PREVIOUS),
    ("everything-please", "Forget everything about me, please.", EVERYTHING),
    ("appreciate", "I'd appreciate it if you would forget my email.", ("email", None, False)),
    ("dont-need", "You don't need to remember my birthday.", ("birthday", None, False)),
    ("then-statement", "Forget where I work, I quit last month.", ("works_at", None, False)),
    ("from-memory-it", "Forget it from your memory.", PREVIOUS),
    ("if-you-dont-mind", "If you don't mind, forget my address.", ("address", None, False)),
    (
        "now-porto",
        "I live in Lisbon now. Forget that I live in Porto.",
        ("lives_in", "Porto", False),
    ),
    ("where-from", "Please forget where I'm from.", ("from", None, False)),
    ("brother-leo", "Forget my brother Leo.", ("family", "brother Leo", False)),
    ("storing-data", "Stop storing my data.", EVERYTHING),
    ("i-said-that", "Forget I said that.", PREVIOUS),
    ("dont-save-email", "Don't save my email address.", ("email", None, False)),
    ("rather-forgot", "I'd rather you forgot my address.", ("address", None, False)),
]

RUSSIAN: list[tuple[str, str, Expected]] = [
    ("ru-please-address", "Забудь, пожалуйста, мой адрес.", ("address", None, False)),
    ("ru-memory-work", "Удали из памяти, где я работаю.", ("works_at", None, False)),
    ("ru-dont-phone", "Не запоминай мой номер.", ("phone", None, False)),
    ("ru-debt", "Забудь, пожалуйста, про мой долг Саше.", ("debt", None, False)),
    ("ru-how-much-owe", "Забудь, сколько я должен Оле.", ("debt", None, False)),
    ("ru-said-masha", "Сотри всё, что я говорил про Машу.", (None, "Машу", False)),
    ("ru-about-this", "Забудь об этом.", PREVIOUS),
    ("ru-dont-this", "Не запоминай это.", PREVIOUS),
    ("ru-all-masha", "Забудь всё про Машу.", (None, "Машу", False)),
    ("ru-address", "Забудь мой адрес.", ("address", None, False)),
    ("ru-phone-number", "Удали мой номер телефона.", ("phone", None, False)),
    ("ru-where-live", "Пожалуйста, забудь, где я живу.", ("lives_in", None, False)),
    ("ru-about-me", "Сотри всё обо мне.", EVERYTHING),
    ("ru-you-know", "Забудь всё, что ты обо мне знаешь.", EVERYTHING),
    ("ru-can-address", "Можешь удалить мой адрес?", ("address", None, False)),
    ("ru-could-phone", "Не мог бы ты забыть мой номер телефона?", ("phone", None, False)),
    ("ru-after-sentence", "Я переехал. Забудь мой старый адрес.", ("address", None, False)),
    ("ru-that-kazan", "Забудь, что я живу в Казани.", ("lives_in", "Казань", False)),
    ("ru-name", "Забудь, как меня зовут.", ("name", None, False)),
    ("ru-delete-this", "Удали это, пожалуйста.", PREVIOUS),
    ("ru-dont-keep-mail", "Не храни мою почту.", ("email", None, False)),
    ("ru-dont-want", "Я не хочу, чтобы ты помнил, где я работаю.", ("works_at", None, False)),
    ("ru-about-my-work", "Забудь о моей работе.", ("job", None, False)),
    ("ru-told-sister", "Удали всё, что я рассказывал о сестре.", (None, "сестре", False)),
    ("ru-my-sister", "Забудь мою сестру.", (None, "сестру", False)),
    ("ru-about-tom", "Забудь про Тома.", (None, "Тома", False)),
    ("ru-birthday", "Сотри мой день рождения.", ("birthday", None, False)),
    (
        "ru-named-wins",
        "Забудь, пожалуйста, мой адрес, удали его из памяти.",
        ("address", None, False),
    ),
    ("ru-no-need", "Не надо запоминать мой возраст.", ("age", None, False)),
    ("ru-out-of-head", "Выкинь из головы мой адрес.", ("address", None, False)),
    ("ru-kuzya-email", "Кузя, удали мою электронную почту.", ("email", None, False)),
    ("ru-just-said", "Забудь то, что я сейчас сказал.", PREVIOUS),
    ("ru-ask", "Прошу, сотри мой номер.", ("phone", None, False)),
    ("ru-no-more", "Больше не запоминай, где я живу.", ("lives_in", None, False)),
    ("ru-memory-petya", "Удали из памяти всё про Петю.", (None, "Петю", False)),
    ("ru-allergy", "Забудь, что у меня аллергия на орехи.", ("allergy", "орехи", False)),
    ("ru-would-not-want", "Я бы не хотела, чтобы ты помнила мой возраст.", ("age", None, False)),
    ("ru-last-message", "Сотри последнее сообщение.", PREVIOUS),
    ("ru-then-statement", "Забудь мой адрес, я переехал.", ("address", None, False)),
    ("ru-sister-masha", "Забудь про мою сестру Машу.", (None, "Машу", False)),
    ("ru-this-from-memory", "Сотри это из памяти.", PREVIOUS),
    ("ru-dont-that-kazan", "Не запоминай, что я живу в Казани.", ("lives_in", "Казань", False)),
    ("ru-about-plans", "Забудь о моих планах.", ("plan", None, False)),
    ("ru-address-from-memory", "Пожалуйста, удали мой адрес из памяти.", ("address", None, False)),
    ("ru-my-data", "Удали мои данные.", EVERYTHING),
    ("ru-may-not", "Можешь не запоминать мой адрес.", ("address", None, False)),
    ("ru-dont-write", "Не записывай это.", PREVIOUS),
]

# Requests the rules miss, each with its cause.
GAPS: list[tuple[str, str, Expected, str]] = [
    ("please-forget-it", "Please forget it.", PREVIOUS, "'forget it' is read as 'never mind'"),
    ("write-that-down", "Don't write that down.", PREVIOUS, "the object splits 'write down'"),
    ("ru-about-mom", "Забудь о маме.", (None, "маме", False), "bare 'о X' needs a name or 'моей'"),
    (
        "ru-dog-name",
        "Забудь, как зовут мою собаку.",
        ("pet", None, False),
        "only the speaker's own name is an attribute phrase",
    ),
]

NOT_REQUESTS = [
    "I forgot my keys.",
    "Don't forget my birthday!",
    "I'll never forget that trip.",
    "I can't forget her.",
    "Please delete the old photos from my phone.",
    "Remember to erase the whiteboard.",
    "Did you forget?",
    "She asked me to forget it.",
    "Forget it.",
    "Forget it, I'll do it myself.",
    "Oh, forget about it!",
    "Never mind, forget it.",
    "Don't forget to call mom.",
    "I always forget my password.",
    "Did you delete my address?",
    "Why did you forget my name?",
    "Can you forget things?",
    "Do you ever forget what I tell you?",
    "How do I delete my account?",
    "I deleted the app yesterday.",
    "I need to clear my head.",
    "Drop it.",
    "Scratch that, I meant Tuesday.",
    "Forget about the meeting, it's cancelled.",
    "My friend told me, forget about Tom.",
    "If you see Tom, forget my address.",
    "I don't remember my phone number.",
    "I don't remember where I parked.",
    "Please remember that I live in Lisbon.",
    "I'd like you to remember my birthday.",
    "Clear the table, please.",
    "Remove the stains from the carpet.",
    "Delete the file.",
    "Forget him.",
    "Drop my sister at school.",
    "Don't keep me waiting.",
    "I hope you don't forget me.",
    "Just forget about the past and move on.",
    "Don't delete my address.",
    "Don't erase that.",
    "I'd rather you didn't tell anyone.",
    "Did you keep my address?",
    "Forget Tom, I never liked him.",
    "Forget my address? No way.",
    "Would you forget me?",
    "Stop tracking my location.",
    "It's easy to get lost and forget that.",
    "He is easy to forget.",
    "They want you to forget my address.",
    "I want to forget my ex.",
    "Delete this photo.",
    "Forget Paris, we're going to Rome.",
    "Forget work, let's go to the beach.",
    "Forget it, Kuzya.",
    "I said forget it!",
    "Forget your worries.",
    "Don't you remember my birthday?",
    "Please don't save my seat.",
    "Забыл ключи дома.",
    "Не забудь купить молоко.",
    "Удали старые фото с телефона.",
    "Я никогда не забуду эту поездку.",
    "Ты забыл, где я живу?",
    "Ты помнишь мой адрес?",
    "Она попросила меня забыть об этом.",
    "Забудь!",
    "Забудь его, он тебя не стоит.",
    "Не забудь мой день рождения.",
    "Я не помню свой номер.",
    "Запомни мой адрес.",
    "Убери посуду.",
    "Убери это со стола.",
    "Сотри пыль с полки.",
    "Я удалил приложение.",
    "Забыла пароль от почты.",
    "Как удалить аккаунт?",
    "Почему ты забыл моё имя?",
    "Если увидишь Машу, забудь мой адрес.",
    "Он сказал, забудь про Машу.",
    "Не храни старые вещи.",
    "Выбрось мусор.",
    "Забудь о работе.",
    "Не забывай писать.",
    "Удали спам из почты.",
    "Забудь про свои проблемы.",
    "Я хочу, чтобы ты знал, где я живу.",
    "Ты не забудешь мой адрес?",
    "Не удаляй мой адрес.",
    "Не стирай это.",
    "Забудь Машу, я с ней больше не общаюсь.",
    "Удалить мой адрес?",
    "Забудь меня.",
    "Удали это фото.",
    "Мне легко забыть про это.",
    "Удали меня из чата.",
    "Удали мой номер из чата.",
    "Забудь.",
    "Не храни это в себе.",
    "Сотри улыбку с лица.",
    "Забудь о своих проблемах.",
    "Забудь про работу, поехали на море.",
    "Хочешь, чтобы ты забыл мой адрес?",
]

SAID = [
    ("that-fact", "Please forget that I live in Lisbon", "Please forget that …"),
    (
        "address-value",
        "Forget my address, 17 Zanzibar Lane, please",
        "Forget my address, …, please",
    ),
    ("ru-address-value", "Забудь мой адрес ул. Квакерова 17", "Забудь мой адрес …"),
    ("ru-all-about", "Забудь всё про Машу", "Забудь всё про …"),
    ("ru-that-fact", "Забудь, что я живу в Казани", "Забудь, что …"),
    (
        "elsewhere",
        "Tom is rude. Forget what I said about Tom.",
        "… is rude. Forget what I said about ….",
    ),
    (
        "ru-elsewhere",
        "Маша уехала. Сотри всё, что я говорил про Машу.",
        "… уехала. Сотри всё, что я говорил про ….",
    ),
    ("relation", "Forget my sister.", "Forget my …."),
    ("name", "Forget about Tom", "Forget about …"),
    (
        "attribute-stays",
        "I moved last week. Please forget my old address.",
        "I moved last week. Please forget my old address.",
    ),
    ("ru-attribute-stays", "Удали из памяти, где я работаю.", "Удали из памяти, где я работаю."),
    ("previous-stays", "Forget that.", "Forget that."),
]


def _cases(table: list[tuple[str, str, Expected]]) -> list[Any]:
    return [pytest.param(text, expected, id=name) for name, text, expected in table]


@pytest.mark.parametrize(("text", "expected"), _cases(ENGLISH))
def test_english_request(text: str, expected: Expected) -> None:
    assert forget_request(text, SPEAKER) == Forget(SPEAKER, *expected)


@pytest.mark.parametrize(("text", "expected"), _cases(RUSSIAN))
def test_russian_request(text: str, expected: Expected) -> None:
    assert forget_request(text, SPEAKER) == Forget(SPEAKER, *expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(text, expected, id=name, marks=pytest.mark.xfail(strict=True, reason=why))
        for name, text, expected, why in GAPS
    ],
)
def test_known_gap(text: str, expected: Expected) -> None:
    assert forget_request(text, SPEAKER) == Forget(SPEAKER, *expected)


@pytest.mark.parametrize("text", NOT_REQUESTS)
def test_not_a_request(text: str) -> None:
    assert forget_request(text, SPEAKER) is None


@pytest.mark.parametrize(("text", "said"), [pytest.param(t, s, id=n) for n, t, s in SAID])
def test_said(text: str, said: str) -> None:
    request = forget_request(text, SPEAKER)
    assert request is not None and request.said == said


@pytest.mark.parametrize(("text", "expected"), _cases(ENGLISH + RUSSIAN))
def test_said_keeps_nothing_forgotten(text: str, expected: Expected) -> None:
    request = forget_request(text, SPEAKER)
    assert request is not None
    forgotten = {stem(word) for word in tokens(request.about or "")}
    assert not forgotten & {stem(word) for word in tokens(request.said)}


def test_a_request_states_no_fact() -> None:
    assert claims("Please forget that I live in Lisbon.", SPEAKER) == []
    assert claims("Забудь, что я живу в Казани.", SPEAKER) == []


def test_long_messages_are_read_quickly() -> None:
    """Patterns that backtracked over a run of spaces or a chain of clauses would take
    hours here; the request rules read these in well under a second."""
    assert forget_request("Forget my address" + " " * 2000 + "x", SPEAKER) is None
    assert forget_request("forget and " * 2000, SPEAKER) is None
