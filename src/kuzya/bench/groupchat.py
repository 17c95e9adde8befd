"""Synthetic group chat: topic precision and privacy under parallel topics and side chats.

One group conversation with every participant and the assistant carries three topics
(a hiking trip, a book club reading a novel, a birthday party) interleaved at random,
plus some chit-chat, over several days. Side conversations (a DM between each person and
the assistant, small groups, and one group of everyone but one person) talk about the
same topics and hold "secret" markers: codes such as ``QX481`` that only their own
participants may ever be shown.

Topic precision: each topic has 30 questions, asked by everyone present (18 in other
words than the topic's own, 12 with its words or names; which is which is computed from
the topic's keyword list); precision@10 is the share of the ten best items said about
the asked topic in the group chat. Each topic has eight "key" messages (a decision, a
booking, a reveal), each asked for twice, once in other words and once with the topic's
words; key recall is the share of those questions whose key message is in the recall
packed into 400 words.

Privacy: for random subsets of the participants (always with the assistant) several
recalls, some aimed straight at the secrets or at the working memory of a conversation
the subset is not part of, are checked item by item: every source episode's audience
(`Memory.get(id).audience`) and every source's conversation must include the whole
subset, and no marker of a conversation the subset was not fully part of may appear in
an item's text. `checks` counts the two checks of each source and the marker scan of
each item; the recalls of the topic questions (everyone present) are checked too. Every
conversation's secrets must also be found by its own participants (a positive control:
a recall that returned nothing would pass the privacy checks).

Latency covers every recall above (not the ablation without neighbour smoothing);
import throughput counts every message, side chats included.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kuzya.embed import Embedder
from kuzya.memory import Memory
from kuzya.model import Episode, Message, Recall

ASSISTANT = "assistant"
GROUP = "group-main"
NAMES = tuple(
    "ana ben chloe dmitri emeka farah gio hana ivan jules kemal lucia marta noor oskar "
    "priya".split()
)
START = datetime(2025, 5, 5, 8, tzinfo=UTC)  # a Monday morning
DAYS = 6
KEY_BUDGET = 400


@dataclass(frozen=True)
class Topic:
    """A topic's vocabulary: chat templates over its named entities, key facts with the
    question that asks for each, other questions, and secrets said about it in side chats."""

    name: str
    keywords: frozenset[str]  # its exact words and names, lower-case
    slots: Mapping[str, tuple[str, ...]]
    templates: tuple[str, ...]
    # (key message, a question asking for it in other words, one with the topic's words)
    keys: tuple[tuple[str, str, str], ...]
    questions: tuple[str, ...]
    secrets: tuple[str, ...]  # with {code}


_HIKING_SLOTS: dict[str, tuple[str, ...]] = {
    "route": (
        "the Granite Pass traverse",
        "the Eagle Ridge loop",
        "the north col path",
        "the Mirren lakeshore path",
    ),
    "peak": ("Mount Keller", "Eagle Ridge", "the Keller saddle"),
    "lake": ("Lake Mirren", "the Blue Tarn"),
    "hut": ("the Cedar Hollow hut", "the Keller bivouac"),
    "start": ("the Birchwood trailhead", "the Alderbrook car park"),
    "gear": (
        "a headlamp",
        "trekking poles",
        "a rain shell",
        "a sleeping mat",
        "the water filter",
        "spare socks",
        "a gas canister",
        "sunscreen",
        "a bivvy bag",
        "blister plasters",
    ),
    "km": ("12", "14", "18", "22"),
    "day": ("Friday", "Saturday", "Sunday"),
}

HIKING = Topic(
    name="hiking",
    keywords=frozenset(
        "hike hikes hiking hiker trail trails trek trekking trip granite keller mirren cedar "
        "birchwood eagle alderbrook".split()
    ),
    slots=_HIKING_SLOTS,
    templates=(
        "Should we do {route} or is it too much climbing for the first day?",
        "I checked the forecast for {day}, looks like rain in the afternoon near {peak}.",
        "Don't forget {gear}, the last time I went up {peak} I really needed it.",
        "{person}, can you drive? We need two cars to get everyone to {start}.",
        "The switchbacks after {lake} are brutal but the view from the top is worth it.",
        "Do we need a permit to camp at {hut}?",
        "I'll bring the water filter, someone else grab {gear}.",
        "My boots gave me blisters on the last hike, I'm breaking in new ones this week.",
        "How many kilometres is the loop around {lake}? I heard {km}.",
        "Let's start early from {start} to beat the heat.",
        "I can lend my spare {gear} to whoever needs one.",
        "Is anyone worried about the altitude on {peak}?",
        "We could camp by {lake} and go for {peak} on the second morning.",
        "I've got a paper map and the GPS track for {route}.",
        "Packing list so far: tent, stove, {gear}, trail mix.",
        "The ranger said {route} is muddy after the storms.",
        "Who's sharing a tent with me? I snore a little, fair warning.",
        "My knees hate steep descents, so I'm bringing trekking poles.",
        "{person} says {route} is about {km} km, that's fine if we keep a steady pace.",
        "Sunset from {peak} is supposed to be amazing, can we time it?",
        "Are dogs allowed on {route}? {person} wants to bring hers.",
        "I bought freeze-dried meals for the campsite, they're lighter than cans.",
        "We should check the water sources near {hut}, it's been a dry spring.",
        "Total elevation gain on {route} is a lot, let's plan plenty of breaks.",
        "Does anyone have a spare backpack rain cover?",
        "The scramble just below {peak} needs hands, nothing technical though.",
    ),
    keys=(
        (
            "Final call on the route: we're doing the Granite Pass traverse, 18 km with "
            "about 1,100 m of climbing.",
            "Which way over the mountains did we finally settle on, and how long is it?",
            "Which trail did we finally pick for the hiking trip?",
        ),
        (
            "We meet at the Birchwood trailhead car park at 6:30 on Saturday morning.",
            "Where and what time are we gathering on the first morning?",
            "What time do we meet at the Birchwood trailhead?",
        ),
        (
            "I booked the Cedar Hollow hut for Saturday night, twelve bunks, it's confirmed.",
            "Where are we sleeping on the first night, and is it reserved?",
            "Did someone book the Cedar Hollow hut for the hike?",
        ),
        (
            "Gio is carrying the first-aid kit and the satellite messenger.",
            "Who has the medical supplies and the emergency beacon?",
            "Who is carrying the first-aid kit on the hike?",
        ),
        (
            "The ranger warned that the stream crossing below Eagle Ridge floods after "
            "rain, so we take the footbridge detour.",
            "What did the park official warn us about the river?",
            "What did the ranger say about the stream crossing on the trail?",
        ),
        (
            "Carpool sorted: Emeka and Lucia drive, four seats each, leaving from Alderbrook "
            "station.",
            "Which of us are behind the wheel getting everyone out there?",
            "Who is driving to the trailhead for the hiking trip?",
        ),
        (
            "The permit for the Mount Keller summit is sorted, it cost 15 euros per person.",
            "How much was the fee to go up to the top of the peak?",
            "How much does the Mount Keller permit cost?",
        ),
        (
            "Food plan for camp: dehydrated chili for dinner, oats for breakfast, and Hana "
            "carries the stove.",
            "What are we eating in the evening outdoors and who carries the cooker?",
            "What food are we cooking at camp on the hike, and who has the stove?",
        ),
    ),
    questions=(
        "What should I pack for sleeping outdoors?",
        "Is the weather going to be a problem up high?",
        "How steep is the climb and how far do we walk?",
        "Who is worried about their knees on the way down?",
        "What snacks and water gear are people bringing?",
        "Do we need any official paperwork to camp overnight?",
        "What time do we set off in the morning?",
        "Who is sharing a tent?",
        "What boots or footwear are people using?",
        "How muddy is the path after the storms?",
        "What did we decide about the hiking trip?",
        "Which trail is everyone leaning towards?",
        "Any news on the trail conditions near Mount Keller?",
        "Is Lake Mirren a good place to camp on the hike?",
    ),
    secrets=(
        "secret: I'm planning to propose at the summit, code word {code}",
        "secret: I twisted my ankle last month and haven't told anyone, code {code}",
    ),
)

_BOOKS_SLOTS: dict[str, tuple[str, ...]] = {
    "character": ("Marguerite", "Tobias", "Old Wren", "Aunt Odile"),
    "setting": ("Port Halden", "the orchard", "the lighthouse"),
    "chapter": tuple(str(n) for n in (3, 7, 9, 12, 15, 19, 22, 27)),
    "next": ("Glass Meridian", "The Quiet Ferry", "Nine Bridges"),
    "theme": ("grief", "inheritance", "memory", "guilt"),
    "day": ("Thursday", "Wednesday", "next week"),
}

BOOKS = Topic(
    name="book club",
    keywords=frozenset(
        "book books novel novels club read reading reader salt orchard varga marguerite "
        "tobias halden".split()
    ),
    slots=_BOOKS_SLOTS,
    templates=(
        "I'm on chapter {chapter}, please no spoilers about {character}!",
        "The way Ilse Varga writes about {setting} is so dreamy.",
        "I think {character} is lying to everyone the whole time.",
        "Did anyone else cry at the flashback in chapter {chapter}?",
        "The narrator is so unreliable, I don't trust a word about {setting}.",
        "The audiobook is great, the narrator does all the voices.",
        "I got a library copy of The Salt Orchard, it's due back {day}.",
        "The salt is a symbol of {theme}, right?",
        "For the meeting, let's each bring one favourite quote.",
        "That epilogue felt rushed compared to the rest of the novel.",
        "Who do you think sent the letters to {character}?",
        "The prose is slow in the middle but the last hundred pages fly.",
        "Next month I'd vote for {next}.",
        "Can we discuss the chapters set in {setting} first?",
        "{person}, did you finish the novel yet? I need someone to talk to about {character}.",
        "The whole book is really about {theme}, the orchard is just the frame.",
        "I underlined half of chapter {chapter}, the writing there is gorgeous.",
        "{character} reminds me of my grandmother, stubborn and secretive.",
        "Is the paperback edition different from the hardback? Mine has an afterword.",
        "I don't get why {character} stays in {setting} after everything.",
        "The dialogue feels old-fashioned, but I think that's on purpose.",
        "I'm a slow reader, I'll be at chapter {chapter} by the meeting at best.",
        "Ilse Varga's interview about {theme} made the book click for me.",
        "The map of {setting} at the front of the book is so helpful.",
        "Plot twist in chapter {chapter} got me, I did not see it coming.",
    ),
    keys=(
        (
            "We're meeting at Farah's flat on Thursday at 7pm to discuss the first half of "
            "The Salt Orchard.",
            "When and where is the next discussion of the story?",
            "When is the book club meeting about The Salt Orchard?",
        ),
        (
            "Big spoiler: the letters were written by Marguerite's mother all along.",
            "Who turned out to be behind the mysterious correspondence?",
            "Who wrote the letters in the novel?",
        ),
        (
            "Ilse Varga wrote The Salt Orchard after her grandfather's fishing boat sank, "
            "it's semi-autobiographical.",
            "What real event inspired the writer?",
            "What inspired Ilse Varga to write the novel?",
        ),
        (
            "The lighthouse keeper Tobias is Marguerite's half-brother, it's revealed in "
            "chapter 19.",
            "How is the man who tends the light related to the heroine?",
            "How is Tobias related to Marguerite in the book?",
        ),
        (
            "For next month we voted for Glass Meridian, nine votes to three.",
            "What did we pick to go through after this one?",
            "Which book did the club vote to read next month?",
        ),
        (
            "Ana is bringing printed discussion questions and Kemal the wine.",
            "Who prepares the prompts for our talk, and who brings drinks?",
            "Who is bringing discussion questions to the book club?",
        ),
        (
            "The title refers to the orchard that the sea flooded, turning the soil salty.",
            "What does the name of the story mean?",
            "Why is the novel called The Salt Orchard?",
        ),
        (
            "Jules set up a spoiler-free thread for anyone still behind on the reading.",
            "Is there somewhere for people who are slow to chat without giveaways?",
            "Is there a spoiler-free thread for the book club?",
        ),
    ),
    questions=(
        "What did people think about how the story ended?",
        "Which character does everyone distrust?",
        "Is the audio version any good?",
        "What do folks think of the writing style?",
        "Who is telling the story and can we trust them?",
        "Has anyone been moved to tears by a chapter?",
        "What is the deeper symbolism people noticed?",
        "How far along is everyone? No giveaways please.",
        "Which twist surprised people the most?",
        "What favourite quotes are people bringing?",
        "What did the book club think of the novel so far?",
        "What do we think Marguerite is hiding?",
        "Should our next read be a shorter book?",
        "Where did people get their copy of The Salt Orchard?",
    ),
    secrets=(
        "secret: I never finished the novel, I only read a summary, code {code}",
        "secret: Ilse Varga is actually my aunt, code {code}",
    ),
)

_PARTY_SLOTS: dict[str, tuple[str, ...]] = {
    "venue": ("the Lantern Room", "the back room at Figgy's Kitchen"),
    "cake": ("lemon raspberry", "chocolate hazelnut", "carrot and walnut"),
    "decor": (
        "balloons",
        "fairy lights",
        "a disco ball",
        "streamers",
        "a photo wall",
        "gold confetti",
    ),
    "music": ("70s disco", "funk", "ABBA", "Motown"),
    "guests": ("30", "35", "40"),
    "euros": ("20", "25", "30"),
    "day": ("Saturday", "Friday night", "the weekend"),
}

PARTY = Topic(
    name="birthday party",
    keywords=frozenset("birthday birthdays party parties nadia lantern crumb figgy".split()),
    slots=_PARTY_SLOTS,
    templates=(
        "Nadia can't find out, keep it a surprise until {day}!",
        "I called {venue}, they can hold space for {guests} people.",
        "What flavour cake should we order from Crumb & Co? I vote {cake}.",
        "I'll make the playlist, lots of {music}.",
        "How many people have RSVPed so far? I count {guests}.",
        "We still need {decor} for the party.",
        "Everyone chip in {euros} euros for the gift?",
        "I'll handle the invitations, send me addresses.",
        "Who's giving the toast? {person} knows her best.",
        "Can Figgy's Kitchen do vegetarian options?",
        "Confetti is banned at {venue}, just so you know.",
        "I found {decor} on sale, grabbing two packs.",
        "{person}, can you pick up the cake on {day}?",
        "Nadia mentioned she loves {music}, perfect for the dance floor.",
        "Let's do a slideshow of old photos of Nadia, send me yours.",
        "Dress code idea: glitter and flares, very {music}.",
        "The candles should spell 30, I found number candles.",
        "We need someone at {venue} early to set up {decor}.",
        "Guest list is at {guests}, do we invite her coworkers too?",
        "Does anyone know if Nadia is allergic to anything? Thinking about the {cake} cake.",
        "I'll bring a card for everyone to sign.",
        "Should we hire a photographer or just use phones?",
        "Her favourite cocktail is a paloma, can {venue} make those?",
        "Party favours: little jars of sweets with her face on them?",
        "The birthday banner arrived, it's huge and very gold.",
    ),
    keys=(
        (
            "The party is at the Lantern Room on Saturday the 17th, doors open at 8pm.",
            "Where is our friend's celebration being held and when do doors open?",
            "Where is Nadia's birthday party?",
        ),
        (
            "Cake is ordered: lemon raspberry, three tiers, from Crumb & Co, pickup at 5pm.",
            "What dessert did we order and who is baking it?",
            "Which cake did we order for Nadia's birthday?",
        ),
        (
            "We're pooling 25 euros each for a vintage Polaroid camera for Nadia.",
            "What present are we giving her and how much does each of us pay?",
            "What gift are we pooling money for, for Nadia's birthday?",
        ),
        (
            "The theme is 70s disco, so flares and glitter are encouraged.",
            "What should we wear to the celebration?",
            "What is the theme of the birthday party?",
        ),
        (
            "Farah's sister is the DJ and will play from 9 until midnight.",
            "Who is in charge of the music on the night?",
            "Who is the DJ at Nadia's party?",
        ),
        (
            "Chloe keeps Nadia busy at the cinema until 8:30 so everyone can hide.",
            "How do we stop her from finding out before she arrives?",
            "Who keeps Nadia busy before the surprise party?",
        ),
        (
            "Figgy's Kitchen is catering: mezze platters with vegan options for 40 guests.",
            "Who is doing the food, and is there anything for vegans?",
            "Who is catering the birthday party?",
        ),
        (
            "Ivan is giving the toast, three minutes maximum.",
            "Who is making the speech?",
            "Who is giving the toast at Nadia's birthday party?",
        ),
    ),
    questions=(
        "How many guests are coming?",
        "What decorations do we still need?",
        "What music is going to play?",
        "How much is everyone chipping in?",
        "Who is sending out the invitations?",
        "Which flavour of cake are people voting for?",
        "Does the venue have any rules we should know about?",
        "Is everyone keeping it quiet so she doesn't find out?",
        "What time should people arrive on the night?",
        "Are there vegetarian options for the food?",
        "What's the plan for Nadia's birthday?",
        "Who is organising the party playlist?",
        "Is the Lantern Room booked for the party?",
        "What are we getting Nadia for her birthday?",
    ),
    secrets=(
        "secret: I can't afford the gift pool this month, code {code}",
        "secret: I've been dating Nadia's ex, code {code}",
    ),
)

TOPICS = (HIKING, BOOKS, PARTY)
CHITCHAT = (
    "good morning everyone",
    "haha",
    "lol same",
    "ok",
    "brb, making coffee",
    "sorry, I was in a meeting",
    "who's around tonight?",
    "thanks!",
    "did anyone see the match last night?",
    "my phone is dying, talk later",
    "can someone sum up what I missed?",
    "sounds good to me",
    "+1",
    "love this group",
)
SECRETS = (
    "secret: my code is {code}",
    "secret: the door code to my building is {code}",
    "secret: my locker combination is {code}",
)
OPENERS = ("", "", "", "Honestly, ", "Quick one: ", "Btw ", "Hey all, ", "Okay so ")
CLOSERS = ("", "", "", " Thoughts?", " lol", " (sorry for the spam)", " Just saying.")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


@dataclass(frozen=True)
class Question:
    topic: str
    text: str
    key: int | None  # index of the key message it asks for
    keywords: bool  # the text uses the topic's exact words or names


@dataclass(frozen=True)
class Line:
    """A generated message with its ground truth."""

    message: Message
    topic: str | None  # None: chit-chat
    key: int | None = None  # index into the topic's keys
    code: str | None = None  # the secret marker it carries


@dataclass
class Chat:
    participants: tuple[str, ...]
    lines: list[Line]  # every message, in time order
    members: dict[str, frozenset[str]]  # conversation -> its participants (with assistant)
    codes: dict[str, str] = field(default_factory=dict)  # marker -> conversation

    @property
    def group_messages(self) -> int:
        return sum(1 for line in self.lines if line.message.conversation == GROUP)


def questions() -> list[Question]:
    asked = []
    for topic in TOPICS:
        for index, (_, *texts) in enumerate(topic.keys):
            for text in texts:
                asked.append(Question(topic.name, text, index, bool(_words(text) & topic.keywords)))
        for text in topic.questions:
            asked.append(Question(topic.name, text, None, bool(_words(text) & topic.keywords)))
    return asked


def _chat_line(rng: random.Random, topic: Topic, speaker: str, people: Sequence[str]) -> str:
    others = [p for p in people if p != speaker] or list(people)
    values = {name: rng.choice(options) for name, options in topic.slots.items()}
    values["person"] = rng.choice(others).capitalize()
    text = rng.choice(topic.templates).format(**values)
    return f"{rng.choice(OPENERS)}{text}{rng.choice(CLOSERS)}"


def _times(rng: random.Random, count: int) -> list[datetime]:
    """Sorted moments between 8:00 and 23:00 over DAYS days."""
    return sorted(
        START + timedelta(days=rng.randrange(DAYS), seconds=rng.randrange(15 * 3600))
        for _ in range(count)
    )


def _code(rng: random.Random, taken: Mapping[str, str]) -> str:
    while True:
        code = (
            rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ")
            + rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ")
            + str(rng.randrange(100, 1000))
        )
        if code not in taken:
            return code


def generate(messages: int = 2000, participants: int = 12, seed: int = 2025) -> Chat:
    """The group chat (with its key messages at random places) and the side chats."""
    if not 2 <= participants <= len(NAMES):
        raise ValueError(f"participants must be from 2 to {len(NAMES)}")
    keys = [(topic, i) for topic in TOPICS for i in range(len(topic.keys))]
    if messages < 2 * len(keys):
        raise ValueError(f"messages must be at least {2 * len(keys)}")
    rng = random.Random(seed)
    people = NAMES[:participants]
    members: dict[str, frozenset[str]] = {}
    lines: list[Line] = []

    def say(
        conversation: str,
        speaker: str,
        text: str,
        when: datetime,
        topic: str | None,
        key: int | None = None,
        code: str | None = None,
    ) -> None:
        present = tuple(sorted(members[conversation]))
        message = Message(text, speaker, conversation, present, when)
        lines.append(Line(message, topic, key, code))

    # The group chat: topics in short runs (a reply often stays on topic), some chit-chat.
    members[GROUP] = frozenset((*people, ASSISTANT))
    key_at = dict(zip(rng.sample(range(messages), len(keys)), keys, strict=True))
    topic = rng.choice(TOPICS)
    for i, when in enumerate(_times(rng, messages)):
        speaker = rng.choice(people)
        if i in key_at:
            topic, key = key_at[i]
            say(GROUP, speaker, topic.keys[key][0], when, topic.name, key)
        elif rng.random() < 0.08:
            say(GROUP, speaker, rng.choice(CHITCHAT), when, None)
        else:
            if rng.random() < 0.5:
                topic = rng.choice(TOPICS)
            say(GROUP, speaker, _chat_line(rng, topic, speaker, people), when, topic.name)
    # Side chats: a DM per person, small groups, and everyone but one person.
    sides: list[tuple[str, tuple[str, ...]]] = [(f"dm-{p}", (p,)) for p in people]
    for i in range(max(4, participants)):
        size = 2 + i % min(5, participants - 1)
        sides.append((f"side-{i}", tuple(rng.sample(people, size))))
    if participants >= 3:
        left_out = rng.choice(people)
        sides.append(("side-all-but-one", tuple(p for p in people if p != left_out)))
    codes: dict[str, str] = {}
    for conversation, humans in sides:
        members[conversation] = frozenset((*humans, ASSISTANT))
        talk = [rng.choice(TOPICS) for _ in range(6)]
        moments = _times(rng, len(talk) + 2)
        for topic, when in zip(talk, moments, strict=False):
            speaker = rng.choice(humans)
            text = _chat_line(rng, topic, speaker, people)
            say(conversation, speaker, text, when, topic.name)
        secrets = (rng.choice(SECRETS), rng.choice(rng.choice(TOPICS).secrets))
        for template, when in zip(secrets, moments[-2:], strict=True):
            code = _code(rng, codes)
            codes[code] = conversation
            say(
                conversation, rng.choice(humans), template.format(code=code), when, None, None, code
            )
    lines.sort(key=lambda line: (line.message.time, line.message.conversation))
    return Chat(people, lines, members, codes)


def _percentiles(latencies: Sequence[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }


@dataclass
class _Privacy:
    """Checks every item of a recall against the ground truth and the store's audiences."""

    memory: Memory
    chat: Chat
    recalls: int = 0
    items: int = 0
    checks: int = 0
    violations: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    _episodes: dict[int, Episode] = field(default_factory=dict)

    def _fail(self, kind: str, present: Sequence[str], query: str, detail: Any) -> None:
        self.violations += 1
        if len(self.examples) < 10:
            self.examples.append(
                {"kind": kind, "participants": list(present), "query": query, "detail": detail}
            )

    def check(self, result: Recall, present: Sequence[str]) -> None:
        group = set(present)
        self.recalls += 1
        for item in result.items:
            self.items += 1
            for source in item.sources:
                episode = self._episodes.get(source)
                if episode is None:
                    episode = self._episodes[source] = self.memory.get(source)
                self.checks += 2
                if not group <= episode.audience:
                    self._fail(
                        "audience",
                        present,
                        result.query,
                        {"episode": source, "audience": sorted(episode.audience)},
                    )
                if not group <= self.chat.members.get(episode.conversation, frozenset()):
                    where = {"episode": source, "conversation": episode.conversation}
                    self._fail("conversation", present, result.query, where)
            self.checks += 1
            for code, conversation in self.chat.codes.items():
                if code in item.text and not group <= self.chat.members[conversation]:
                    self._fail(
                        "marker",
                        present,
                        result.query,
                        {"code": code, "from": conversation, "item": item.text},
                    )


def _subsets(chat: Chat, count: int, seed: int) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    chosen = []
    for _ in range(count):
        size = rng.randint(1, len(chat.participants))
        chosen.append((*rng.sample(chat.participants, size), ASSISTANT))
    return chosen


def _privacy_probes(
    chat: Chat, present: Sequence[str], rng: random.Random, asked: Sequence[Question]
) -> list[tuple[str, str | None, str | None]]:
    """(query, conversation, speaker) recalls for one subset, some aimed at its blind spots."""
    group = set(present)
    speaker = present[0]
    forbidden = [c for c, m in chat.members.items() if not group <= m]
    hidden = [line for line in chat.lines if line.code and line.message.conversation in forbidden]
    probes: list[tuple[str, str | None, str | None]] = [
        ("what is my secret code?", None, speaker),
        ("secret", None, None),
        (rng.choice(asked).text, GROUP, speaker),
    ]
    if hidden:
        target = rng.choice(hidden)
        assert target.code is not None
        probes += [
            (target.message.text, None, target.message.speaker),
            (target.code, None, None),
            ("and what was the code for that?", target.message.conversation, speaker),
        ]
    return probes


def run(
    embedder: Embedder,
    workdir: Path,
    *,
    messages: int = 2000,
    participants: int = 12,
    subsets: int = 100,
    seed: int = 2025,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    chat = generate(messages, participants, seed)
    embedder.embed(["warm up the model"])
    say = progress or (lambda _: None)
    latencies: list[float] = []
    with Memory.open(
        workdir / "groupchat.db",
        namespace="groupchat",
        embedder=embedder,
        durable=False,
        llm="none",
    ) as memory:
        say(f"importing {len(chat.lines)} messages in {len(chat.members)} conversations")
        started = time.perf_counter()
        stored = memory.remember_many(line.message for line in chat.lines)
        import_seconds = time.perf_counter() - started
        truth = {episode.id: line for episode, line in zip(stored, chat.lines, strict=True)}
        key_id = {
            (line.topic, line.key): episode_id
            for episode_id, line in truth.items()
            if line.key is not None
        }
        now = chat.lines[-1].message.time + timedelta(hours=1)
        everyone = (*chat.participants, ASSISTANT)
        privacy = _Privacy(memory, chat)

        def recall(query: str, present: Sequence[str], **options: Any) -> Recall:
            started = time.perf_counter()
            result = memory.recall(query, participants=present, now=now, **options)
            latencies.append(1000 * (time.perf_counter() - started))
            privacy.check(result, present)
            return result

        def topic_precision(mem: Memory, query: Question) -> float:
            started = time.perf_counter()
            top = mem.recall(
                query.text, participants=everyone, now=now, limit=10, budget_words=None
            )
            if mem is memory:
                latencies.append(1000 * (time.perf_counter() - started))
            privacy.check(top, everyone)
            return sum(1 for item in top.items if truth[item.id].topic == query.topic) / 10

        say("topic questions")
        asked = questions()
        scores: dict[str, dict[str, list[float]]] = {t.name: {} for t in TOPICS}
        plain = memory.with_settings(neighbour_weight=0.0)
        for question in asked:
            precision = topic_precision(memory, question)
            table = scores[question.topic]
            table.setdefault("all", []).append(precision)
            table.setdefault("keywords" if question.keywords else "paraphrased", []).append(
                precision
            )
            table.setdefault("no_neighbours", []).append(topic_precision(plain, question))
            if question.key is not None:
                packed = recall(question.text, everyone, limit=100, budget_words=KEY_BUDGET)
                wanted = key_id[(question.topic, question.key)]
                found = any(wanted in item.sources for item in packed.items)
                table.setdefault("key", []).append(1.0 if found else 0.0)
                kind = "key_keywords" if question.keywords else "key_paraphrased"
                table.setdefault(kind, []).append(1.0 if found else 0.0)

        say(f"privacy: {subsets} participant subsets")
        rng = random.Random(seed + 1)
        for present in _subsets(chat, subsets, seed + 2):
            for query, conversation, speaker in _privacy_probes(chat, present, rng, asked):
                recall(
                    query,
                    present,
                    conversation=conversation,
                    speaker=speaker,
                    limit=50,
                    budget_words=None,
                )
        # Positive controls: the secrets are found by those who may see them.
        controls = 0
        found_secrets = 0
        for conversation, audience in chat.members.items():
            codes = {c for c, conv in chat.codes.items() if conv == conversation}
            if not codes:
                continue
            humans = sorted(audience - {ASSISTANT})
            result = recall(
                "what is my secret code?",
                sorted(audience),
                speaker=humans[0],
                limit=50,
                budget_words=None,
            )
            controls += 1
            found_secrets += any(code in item.text for item in result.items for code in codes)

    def mean(values: Sequence[float]) -> float:
        return round(statistics.fmean(values), 4) if values else 0.0

    group_lines = [line for line in chat.lines if line.message.conversation == GROUP]
    topics = {
        name: {
            "precision_at_10": mean(table["all"]),
            "n": len(table["all"]),
            "precision_paraphrased": mean(table.get("paraphrased", [])),
            "n_paraphrased": len(table.get("paraphrased", [])),
            "precision_keywords": mean(table.get("keywords", [])),
            "n_keywords": len(table.get("keywords", [])),
            "precision_without_neighbours": mean(table["no_neighbours"]),
            "key_recall_400": mean(table["key"]),
            "n_key": len(table["key"]),
            "key_recall_400_paraphrased": mean(table.get("key_paraphrased", [])),
            "key_recall_400_keywords": mean(table.get("key_keywords", [])),
            "share_of_group_chat": round(
                sum(1 for line in group_lines if line.topic == name) / len(group_lines), 4
            ),
        }
        for name, table in scores.items()
    }
    return {
        "messages": chat.group_messages,
        "side_messages": len(chat.lines) - chat.group_messages,
        "participants": len(chat.participants),
        "conversations": len(chat.members),
        "embedder": embedder.name,
        "topics": topics,
        "mean_precision_at_10": mean([t["precision_at_10"] for t in topics.values()]),
        "mean_precision_without_neighbours": mean(
            [t["precision_without_neighbours"] for t in topics.values()]
        ),
        "mean_key_recall_400": mean([t["key_recall_400"] for t in topics.values()]),
        "privacy": {
            "subsets": subsets,
            "recalls": privacy.recalls,
            "items": privacy.items,
            "checks": privacy.checks,
            "violations": privacy.violations,
            "examples": privacy.examples,
            "secrets_found_by_their_audience": {"found": found_secrets, "total": controls},
        },
        "latency_ms": _percentiles(latencies),
        "import_msgs_per_s": round(len(chat.lines) / import_seconds, 1),
    }
