"""The group chat benchmark's script: three topics (a hiking trip, a book club, a birthday
party) with their message templates, key messages, questions and keywords, and the
chit-chat, secrets and phrasing around them (see `kuzya.bench.groupchat`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


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
