"""A synthetic multi-session corpus to train the recurrent encoder on: sessions of personal
facts and chit-chat in English and Russian, and questions about one fact each. Values and
phrasings are split into a training part and a held-out part, so the held-out figure says
how the encoder does on sessions it never saw."""

from __future__ import annotations

import random
from dataclasses import dataclass

# kind: (statements, questions, values), each list in English then Russian
FACTS: dict[str, tuple[tuple[list[str], list[str]], tuple[list[str], list[str]], list[str]]] = {
    "name": (
        (["My name is {v}.", "Call me {v}, that's my name.", "I'm {v}, by the way."],
         ["Меня зовут {v}.", "Моё имя {v}.", "Зовите меня {v}."]),
        (["What is my name?", "Do you remember what I'm called?", "Who am I?"],
         ["Как меня зовут?", "Ты помнишь моё имя?", "Кто я?"]),
        ["Alice", "Boris", "Chen", "Dasha", "Emil", "Farida", "Gleb", "Hanna", "Igor", "Jana"],
    ),
    "work": (
        (["I work at {v}.", "My job is at {v}.", "I've been working for {v} for two years."],
         ["Я работаю в {v}.", "Моя работа в {v}.", "Уже два года работаю в {v}."]),
        (["Where do I work?", "Which company do I work for?", "Who is my employer?"],
         ["Где я работаю?", "В какой компании я работаю?", "Кто мой работодатель?"]),
        ["Google", "Yandex", "Siemens", "a bakery", "the city hospital", "Ozon", "IKEA", "Sber"],
    ),
    "food": (
        (["I like {v}.", "My favourite food is {v}.", "I could eat {v} every day."],
         ["Я люблю {v}.", "Моя любимая еда {v}.", "Могу есть {v} каждый день."]),
        (["What is my favorite food?", "What do I like to eat?", "Which dish do I love?"],
         ["Какая моя любимая еда?", "Что я люблю есть?", "Какое блюдо я обожаю?"]),
        ["pizza", "sushi", "borscht", "ramen", "pelmeni", "tacos", "pancakes", "curry"],
    ),
    "city": (
        (["I live in {v}.", "Home for me is {v}.", "I moved to {v} last year."],
         ["Я живу в {v}.", "Мой дом в {v}.", "В прошлом году я переехал в {v}."]),
        (["Where do I live?", "Which city is my home?", "Where did I move to?"],
         ["Где я живу?", "В каком городе мой дом?", "Куда я переехал?"]),
        ["Lisbon", "Kazan", "Oslo", "Tomsk", "Berlin", "Riga", "Porto", "Samara"],
    ),
    "pet": (
        (["I have a dog called {v}.", "My cat's name is {v}.", "Our puppy {v} chewed my shoes."],
         ["У меня есть собака по кличке {v}.", "Мою кошку зовут {v}.",
          "Наш щенок {v} сгрыз тапки."]),
        (["What is my pet's name?", "What did I call my dog?", "Who chewed my shoes?"],
         ["Как зовут моего питомца?", "Как я назвал собаку?", "Кто сгрыз мои тапки?"]),
        ["Rex", "Murka", "Bruno", "Sharik", "Luna", "Barsik", "Max", "Tuzik"],
    ),
    "sibling": (
        (["My sister {v} is a nurse.", "My brother {v} lives abroad.", "{v} is my older sister."],
         ["Моя сестра {v} работает медсестрой.", "Мой брат {v} живёт за границей.",
          "{v} моя старшая сестра."]),
        (["Who is my sister?", "What is my brother's name?", "Do I have siblings?"],
         ["Кто моя сестра?", "Как зовут моего брата?", "Есть ли у меня братья или сёстры?"]),
        ["Olga", "Tom", "Masha", "Leo", "Vera", "Sam", "Katya", "Pavel"],
    ),
    "hobby": (
        (["I play {v} on weekends.", "My hobby is {v}.", "Every Sunday I do {v}."],
         ["По выходным я играю в {v}.", "Моё хобби {v}.", "Каждое воскресенье у меня {v}."]),
        (["What do I do on weekends?", "What is my hobby?", "How do I spend Sundays?"],
         ["Чем я занимаюсь по выходным?", "Какое у меня хобби?", "Что я делаю по воскресеньям?"]),
        ["chess", "tennis", "football", "the cello", "climbing", "volleyball", "go", "darts"],
    ),
    "allergy": (
        (["I'm allergic to {v}.", "{v} gives me a rash, I'm allergic.", "No {v} for me, allergy."],
         ["У меня аллергия на {v}.", "От {v} у меня сыпь, аллергия.", "Мне нельзя {v}, аллергия."]),
        (["What am I allergic to?", "Is there anything I can't eat?", "What gives me a rash?"],
         ["На что у меня аллергия?", "Что мне нельзя есть?", "От чего у меня сыпь?"]),
        ["peanuts", "shellfish", "cats", "pollen", "milk", "honey", "strawberries", "eggs"],
    ),
    "car": (
        (["I drive a {v}.", "My car is a {v}.", "I just bought a used {v}."],
         ["Я езжу на {v}.", "Моя машина {v}.", "Я купил подержанную {v}."]),
        (["What car do I drive?", "What is my car?", "Which car did I buy?"],
         ["На какой машине я езжу?", "Какая у меня машина?", "Какую машину я купил?"]),
        ["Toyota", "Lada", "Volvo", "Skoda", "Tesla", "Kia", "Honda", "Renault"],
    ),
    "language": (
        (["I'm learning {v}.", "I take {v} lessons twice a week.", "I want to speak {v} fluently."],
         ["Я учу {v}.", "Дважды в неделю у меня уроки {v}.", "Хочу свободно говорить на {v}."]),
        (["Which language am I learning?", "What lessons do I take?", "What do I want to speak?"],
         ["Какой язык я учу?", "Какие у меня уроки?", "На каком языке я хочу говорить?"]),
        ["Spanish", "Japanese", "German", "Turkish", "Italian", "Korean", "French", "Greek"],
    ),
}  # fmt: skip
CHAT = (
    ["Hi there!", "How are you today?", "The weather is lovely.", "Thanks, that helps.",
     "Haha, that's funny.", "I'm a bit tired today.", "Let's talk later.", "Good morning!"],
    ["Привет!", "Как дела?", "Сегодня дождь.", "Спасибо, помогло.", "Ха, смешно.",
     "Я сегодня устал.", "Поговорим позже.", "Доброе утро!"],
)  # fmt: skip


@dataclass(frozen=True)
class Example:
    """A memory of sessions (each a list of sentences) and a question answered by one."""

    sessions: tuple[tuple[str, ...], ...]
    question: str
    answer: int  # which session


def _part(items: list[str], held_out: bool) -> list[str]:
    """The last item of each list is held out; training sees the others."""
    return items[-1:] if held_out else items[:-1]


def examples(
    count: int, *, sessions: int = 6, held_out: bool = False, seed: int = 0
) -> list[Example]:
    """`count` memories of `sessions` sessions each: one states the fact asked about, the
    others state facts of other kinds; every session has some chit-chat."""
    rng = random.Random(seed * 2 + held_out)
    kinds = list(FACTS)
    found = []
    for _ in range(count):
        russian = rng.random() < 0.5
        chosen = rng.sample(kinds, min(len(kinds), sessions + 2))
        asked, others = chosen[0], chosen[1:]
        built: list[tuple[str, ...]] = []
        for n in range(sessions):
            kinds_here = [asked] if n == 0 else [others[n - 1]]
            if rng.random() < 0.4:  # a second fact of another kind
                kinds_here.append(others[(n + sessions - 1) % len(others)])
            lines = [_statement(kind, russian, held_out, rng) for kind in kinds_here]
            lines += rng.sample(CHAT[russian], rng.randint(0, 3))
            rng.shuffle(lines)
            built.append(tuple(lines))
        order = list(range(sessions))
        rng.shuffle(order)
        questions = FACTS[asked][1][russian]
        found.append(
            Example(tuple(built[i] for i in order), rng.choice(_part(questions, held_out)),
                    order.index(0))
        )  # fmt: skip
    return found


def _statement(kind: str, russian: bool, held_out: bool, rng: random.Random) -> str:
    statements, _, values = FACTS[kind]
    template = rng.choice(_part(statements[russian], held_out))
    return template.format(v=rng.choice(_part(values, held_out)))
