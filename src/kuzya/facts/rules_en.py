"""The English grammar of `kuzya.facts.rules`: patterns, lexicons and the small
functions that turn what a pattern caught into values.

Contractions are expanded first ("I'm" -> "I am", "don't" -> "do not"), so the patterns
only know the long forms.
"""

from __future__ import annotations

import re

from kuzya.facts import occupations
from kuzya.language.text import STOP_WORDS

_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_TIME = (
    r"(?:(?:last|this|next|every) (?:week|weekend|month|year|summer|winter|spring|autumn|fall"
    rf"|night|morning|evening|time|{_DAYS})|(?:a|an|one|two|three|four|five|six|\d+|a few"
    rf"|a couple of|several|many) \w+ ago|(?:in|since) (?:\d{{4}}|{_MONTHS})|for (?:a|an|one|two"
    r"|three|\d+|a few|many|several|the past|the last) \w+(?: \w+)?|yesterday|today|tomorrow"
    r"|tonight|recently|lately|now|right now|currently|these days|nowadays|at the moment|soon"
    r"|later|earlier)"
)
_ADVERBS = (
    r"(?:(?:really|also|still|now|currently|actually|just|recently|finally|totally|absolutely"
    r"|truly|honestly|definitely|kind of|sort of|do|already|even|officially|basically|mostly"
    r"|mainly|usually|always|both|all|sometimes|happily|proudly|originally|presently"
    r"|seriously|literally|genuinely|especially|very|quite|pretty|so|much|then|once|again)\s+)*"
)
_LEAD = (
    r"^(?:(?:and|but|so|also|well|actually|oh|yeah|yes|ok|okay|hi|hey|hello|btw|by the way|now"
    r"|then|plus|anyway|honestly|frankly|because|since|as|though|although|fun fact|guess what"
    rf"|fyi|finally|luckily|sadly|unfortunately|in fact|update|{_TIME})[\s,:;!.-]+)*"
)
_CAP = r"(?-i:(?!I\b)[A-Z][\w'.&-]*)"
_CAPO = r"(?-i:(?!I\b)[A-Z0-9][\w'.&+-]*)"
_NAME = r"(?-i:(?:O'|Mc|Mac)?[A-Z][a-z]+(?:-[A-Z][a-z]+)*)"  # "Jean-Luc", "O'Brien"
_WORD = r"(?!(?:in|at|for|with|on|from|since|and|but|or|as)\b)(?-i:[a-z][\w-]*)"
_ORGCAP = rf"(?:the\s+)?{_CAPO}(?:\s+(?:(?:of|and|de|for|&)\s+)?{_CAPO})*"


def _alternatives(words: str) -> str:
    return "|".join(sorted(words.split(","), key=len, reverse=True))


_OCCUPATIONS = _alternatives(occupations.ENGLISH)
_DIETS = _alternatives(
    "vegetarian,vegan,pescatarian,pescetarian,keto,paleo,gluten-free,dairy-free,kosher,halal,"
    "teetotal,teetotaler,plant-based,flexitarian,raw vegan,lacto-vegetarian"
)
_CONDITIONS = _alternatives(
    "diabetes,asthma,epilepsy,adhd,autism,arthritis,migraines,migraine,hypertension,"
    "high blood pressure,depression,anxiety,celiac disease,coeliac disease,crohn's disease,"
    "crohn's,ibs,copd,cancer,dyslexia,insomnia,psoriasis,eczema,lupus,multiple sclerosis,"
    "parkinson's,hiv,heart disease,a heart condition,long covid,sleep apnea,sleep apnoea,"
    "fibromyalgia,endometriosis,pcos,bipolar disorder,ocd,ptsd,tinnitus,scoliosis,gout,"
    "glaucoma,anemia,anaemia,hypothyroidism,a bad back,chronic pain"
)
_MODIFIERS = (
    r"(?:(?!(?:of|the|a|an|fan|bit|lot|kind|sort|type|big|huge|great|good|bad|terrible|decent"
    r"|former|ex|and|with|to|for|in|at|from|hard|careful|fast|slow|amazing|awful|excellent|avid"
    r"|passionate|keen|amateur|hobby|home|lousy|natural|born|wonderful|fantastic|horrible|poor"
    r"|better|best|worse|worst|lazy|messy|picky|nervous|confident|role|aspiring|wannabe|budding"
    r"|occasional|casual|weekend|backseat|designated|regular|total|complete|real|proper)\b)"
    r"[\w-]+\s+){0,3}?"
)
_FUTURE = (
    r"\b(?:tomorrow|tonight|soon|next \w+|this (?:weekend|week|month|year|summer|winter|spring"
    rf"|autumn|fall|evening|afternoon)|on (?:{_DAYS})|in (?:a|an|two|three|\d+|a few|a couple of)"
    rf" (?:days?|weeks?|months?|years?)|in (?:{_MONTHS}))\b"
)
_TOKENS = {
    "{L}": _LEAD,
    "{A}": _ADVERBS,
    "{I}": r"i\s+",
    "{WE}": r"(?:i|we)\s+",
    "{PLACE}": rf"(?:the\s+)?{_CAP}(?:[ -](?:{_CAP}|(?:de|da|del|do|di|la|le|upon|on|of|sur)"
    rf"(?=[ -]{_CAP})))*(?:,\s*{_CAP}(?: {_CAP})?)?",
    "{ORGCAP}": _ORGCAP,
    "{ORG}": rf"(?:(?:(?:a|an|the)\s+{_WORD}(?:\s+{_WORD}){{0,2}}?\s+(?:called|named)\s+)?"
    rf"{_ORGCAP}|(?:a|an|the)\s+{_WORD}(?:\s+{_WORD}){{0,2}}"
    rf"(?:\s+in\s+{_CAP})?)",
    "{NAMES}": rf"{_NAME}(?:\s+{_NAME})?",
    "{ANYNAME}": rf"(?:{_NAME}(?:\s+{_NAME})?|(?-i:[a-z][\w'-]*))",
    "{OCC}": rf"{_MODIFIERS}(?:{_OCCUPATIONS})",
    "{DIETS}": _DIETS,
    "{CONDITIONS}": _CONDITIONS,
}


def compile_rule(pattern: str) -> re.Pattern[str]:
    """A rule with this grammar's tokens ({L}, {A}, {I}, ...) filled in."""
    for token, part in _TOKENS.items():
        pattern = pattern.replace(token, part)
    return re.compile(pattern, re.IGNORECASE)


RULES = tuple(
    compile_rule(p)
    for p in (
        r"{L}my (?:first |full |real |given )?name(?: is|'s) (?:now |actually )?"
        r"(?P<name>{ANYNAME})",
        r"{L}{I}{A}(?:go by|am called|am named|have changed my name to|changed my name to) "
        r"(?P<name>{ANYNAME})",
        r"{L}(?:you can |please |just )*call me (?P<name>{NAMES})\s*$",
        r"{L}{I}am (?P<name_bare>{NAMES})(?=\s*$|\s+(?:and|from|here)\b)",
        r"{L}{I}{A}(?:am|turned) (?P<age>\d{1,3})(?:\s*(?:years?|yrs?)(?: old)?|\s*y/?o)?"
        r"(?=\s*$|\s+(?:and|now|today|this)\b)",
        r"{L}my age is (?P<age>\d{1,3})",
        r"{L}my (?:birthday|bday|date of birth) is (?:on )?(?P<birthday>.+)",
        r"{L}{I}was born on (?P<birthday>.+)",
        r"{L}{I}am {A}(?:originally )?from (?P<from>{PLACE})",
        r"{L}{I}{A}(?:come|hail) from (?P<from>{PLACE})",
        r"{L}{I}was {A}born(?: and (?:raised|bred))? in (?P<from>{PLACE})",
        r"{L}{I}{A}grew up in (?P<from>{PLACE})",
        r"{L}{I}{A}(?:speak|can speak|am fluent in|am conversational in|am a native speaker of) "
        r"(?P<speaks>.+)",
        r"{L}{I}am a native (?P<speaks>{NAMES}) speaker",
        r"{L}my (?:native|first|mother) (?:language|tongue) is (?P<speaks>.+)",
        r"{L}{WE}{A}(?:live|am living|are living|have been living|have lived|reside|am based"
        r"|are based|am settled|are settled) {A}in (?P<lives_in>{PLACE})",
        r"{L}{WE}{A}(?:have )?{A}(?:moved|relocated)(?: back| over| here)?"
        r"(?: from (?P<lives_in__end>{PLACE}))? to (?P<lives_in>{PLACE})",
        r"{L}{WE}{A}(?:have )?{A}(?:moved|relocated) (?:out of|away from|here from|from) "
        r"(?P<lives_in__end>{PLACE})\b(?!\s+to\b)",
        r"{L}my (?:home |current |new )?address is (?P<address>.+)",
        r"{L}{WE}{A}live at (?P<address>\d.+)",
        r"{L}{I}{A}(?:work|am working|have been working|have worked|intern|am interning"
        r"|am employed) {A}(?:at|for|by) (?P<works_at>{ORG})",
        r"{L}{I}{A}(?:have )?(?:got|landed|accepted|took|started|found) (?:a |my )?(?:new |first )?"
        r"job (?:at|with) (?P<works_at>{ORG})",
        r"{L}{I}{A}(?:have )?(?:joined|started at|started working (?:at|for)) "
        r"(?P<works_at>{ORGCAP})",
        r"{L}{I}{A}(?:work|am working|have worked) as (?:a |an )?(?P<job>.+)",
        r"{L}{I}{A}(?:work|am working) as (?:a |an )?.+? (?:at|for) (?P<works_at>{ORG})",
        r"{L}{I}{A}(?:am|have become|became) (?:a|an) (?P<job>{OCC})\b(?!-)",
        r"{L}{I}{A}am (?:a|an) {OCC} (?:at|for|with) (?P<works_at>{ORG})",
        r"{L}{I}{A}am (?:a|an) (?:former|ex-) ?(?P<job__end>{OCC})\b",
        r"{L}{I}{A}(?:have )?(?:quit|left|resigned from|retired from|stopped working (?:at|for)) "
        r"(?P<works_at__end>{ORGCAP})",
        r"{L}{I}{A}(?:was|got|have been) (?:fired|laid off|let go) (?:from|by) "
        r"(?P<works_at__end>{ORG})",
        r"{L}{I}{A}(?:have )?(?:quit|left|lost) my job (?:at|with) (?P<works_at__end>{ORG})",
        r"{L}{I}{A}(?:have )?(?:quit|left|lost) my job as (?:a |an )?(?P<job__end>.+)",
        r"{L}{I}{A}(?:study|am studying|have been studying|major in|am majoring in|am doing "
        r"(?:a |my )?(?:degree|phd|masters?|master's|bachelor's|mba|ba|bsc|msc) in) "
        r"(?P<studies>.+)",
        r"{L}{I}{A}am (?:learning|taking classes in|taking lessons in) (?P<studies>.+)",
        r"{L}{I}{A}am an? (?P<studies>[\w-]+(?: [\w-]+)?) student\b",
        r"{L}{I}{A}am a student (?P<studies>(?:at|in) {ORG})",
        r"{L}{WE}{A}(?:like|love|enjoy|adore|dig|am into|are into|am fond of|am passionate about"
        r"|am obsessed with|am crazy about|am mad about|am a (?:big |huge |great |massive )?fan of"
        r"|have a soft spot for|am keen on) (?P<likes>.+)",
        r"{L}{I}{A}play (?!(?:an? )?(?:\w+ )?(?:role|part)\b)(?P<likes_play>.+)",
        r"{L}{WE}{A}prefer (?P<likes_prefer>.+)",
        r"{L}my (?:all-time |absolute |very )?favou?rite(?: [\w-]+){0,3} (?:is|are|has to be) "
        r"(?P<likes>.+)",
        r"{L}{WE}{A}(?:hate|dislike|detest|loathe|despise|abhor) (?P<dislikes>.+)",
        r"{L}{I}{A}am {A}(?:severely |mildly |deathly |highly )?allergic to (?P<allergy>.+)",
        r"{L}{I}{A}have (?:a |an )?(?:severe |mild |bad |serious )?(?P<allergy>[\w -]+?) "
        r"allerg(?:y|ies)\b",
        r"{L}{I}{A}have (?:an? |some )?allerg(?:y|ies) to (?P<allergy>.+)",
        r"{L}{I}{A}am (?P<allergy>lactose|gluten) intolerant",
        r"{L}{I}{A}(?:am|have been|have become|became|went|have gone|turned) (?:a |an |fully "
        r"|strictly |mostly )?(?P<diet>{DIETS})\b",
        r"{L}{I}{A}(?:am on|follow|eat|keep) (?:a |an )?(?P<diet>{DIETS}) diet",
        r"{L}{I}{A}have (?P<condition>(?:(?:type [12]|severe|mild|chronic|bad|seasonal|clinical) )?"
        r"(?:{CONDITIONS}))\b",
        r"{L}{I}{A}(?:was|have been|got|am) diagnosed with (?P<condition>.+)",
        r"{L}{I}{A}suffer from (?P<condition>.+)",
        r"{L}{I}{A}am (?P<condition_adj>diabetic|asthmatic|epileptic|autistic|dyslexic|anemic"
        r"|anaemic|celiac|coeliac)\b",
        r"{L}{WE}{A}(?:have|have got|got|own|adopted|have adopted|rescued|bought|have bought"
        r"|purchased|drive|ride) (?P<have>(?:a|an|one|two|three|four|five|six|\d+|my first"
        r"|our first|my own|our own)\s.+)",
        r"{L}{WE}{A}(?:have )?(?:sold|gave away|got rid of|given away) (?:my|our) "
        r"(?P<have__end>.+)",
        r"{L}{I}{A}(?:am |got |have been |have gotten )?(?:married|engaged) to (?P<spouse>{NAMES})",
        r"{L}{I}{A}(?:have )?(?:married|wed) (?P<spouse>{NAMES})",
        r"{L}{I}{A}(?:have )?(?:divorced|separated from|split up with|broke up with) "
        r"(?P<spouse__end>{NAMES})",
        r"{L}{WE}{A}(?:am|are) {A}going to (?P<plan_go>.+)",
        r"{L}{WE}{A}(?:plan to|plan on|intend to|have decided to|decided to|am planning to"
        r"|are planning to|am planning on|are planning on|am about to|are about to) (?P<plan>.+)",
        r"{L}{WE}{A}(?:am|are) {A}(?P<plan_go>(?:flying|travelling|traveling|driving|heading"
        r"|moving|relocating|returning|going back|coming back|sailing) (?:back |home |over )?to "
        r"(?-i:(?:the )?[A-Z]).*)",
        rf"^(?=.*{_FUTURE}){{L}}{{WE}}{{A}}(?:am|are) {{A}}(?P<plan_go>(?:visiting|starting"
        r"|getting married|leaving|taking|seeing|meeting|buying|opening|launching|graduating"
        r"|retiring)\b.*)",
        rf"^(?=.*{_FUTURE}){{L}}{{WE}}{{A}}will {{A}}(?P<plan>.+)",
    )
)
INTROS = (
    compile_rule(
        r"\b(?:my|our)\s+(?P<rel>(?:(?:best|older|younger|little|big|elder|baby|twin|new|old)\s+)?"
        r"[a-z]+(?:-[a-z]+)*)(?:'s name is|\s+is called|\s+is named|\s+named|\s+called|\s+is|\s*,)?"
        r"\s+(?P<name>{NAMES})\b(?=(?P<rest>.*))"
    ),
    compile_rule(r"(?P<name>{NAMES}),\s+(?:my|our)\s+(?P<rel>[a-z-]+)\s*,(?=(?P<rest>.*))"),
)
GONE = re.compile(r"\s*(?:died|passed away|passed|is dead|ran away|was put down)\b", re.I)
_RELATIONS_EN = {
    "family": "sister brother mom mum mother dad father son daughter kid child baby grandma "
    "grandpa grandmother grandfather grandson granddaughter grandchild aunt uncle niece nephew "
    "cousin twin sibling stepmother stepfather stepson stepdaughter stepbrother stepsister "
    "friend colleague coworker co-worker boss roommate flatmate housemate neighbour neighbor "
    "mentor kids children sons daughters brothers sisters siblings grandchildren twins",
    "spouse": "wife husband partner girlfriend boyfriend fiance fiancé fiancee fiancée spouse",
    "ex": "ex ex-wife ex-husband ex-girlfriend ex-boyfriend ex-partner",
    "pet": "dog cat puppy kitten horse pony parrot hamster rabbit bunny turtle tortoise snake "
    "lizard gecko fish goldfish ferret budgie parakeet cockatiel hedgehog chinchilla bird "
    "retriever labrador lab poodle terrier husky beagle corgi spaniel dachshund pug chihuahua "
    "collie bulldog shepherd rottweiler greyhound whippet schnauzer tabby",
    "owns": "car bike bicycle motorcycle motorbike scooter moped e-bike house flat apartment "
    "condo cottage cabin boat yacht kayak canoe guitar piano violin cello ukulele drums "
    "saxophone trumpet flute laptop computer pc macbook iphone ipad tablet kindle camera "
    "telescope drone tesla van truck pickup suv jeep campervan caravan tent garden playstation "
    "ps5 xbox toyota honda bmw audi mercedes volvo volkswagen subaru prius vespa harley",
}
_KINDS = {word: kind for kind, words in _RELATIONS_EN.items() for word in words.split()}


def relation(phrase: str) -> tuple[str, str, bool] | None:
    """'older sister' -> ('family', 'older sister', False); 'ex-wife' -> spouse, ended."""
    phrase = phrase.lower()
    kind = _KINDS.get(phrase.split()[-1].removesuffix("-in-law"))
    if kind is None or kind == "owns":
        return None
    return ("spouse", phrase, True) if kind == "ex" else (kind, phrase, False)


LEAD = re.compile(_LEAD, re.I)
_SUBJECT = (  # "..., but now I live ...", not "Tom, my brother, ..."
    r"(?:(?:now|then|also|today|recently|currently|these days)\s+)?(?:(?:i|we)\b|(?:my|our)\b"
    r"(?!\s+[\w-]+\s*,))"
)
CLAUSE_BREAK = re.compile(
    rf"\s*[,;:]\s*(?:(?:and|but|so|plus|also|because|since|although|though|while|whereas|then"
    rf"|and then)\s+)?(?={_SUBJECT})|\s+(?:and|but|so|plus|because|since|although|though|while"
    rf"|whereas|and then)\s+(?={_SUBJECT})|\s+[-–—]\s+(?={_SUBJECT})",
    re.I,
)
QUESTION = re.compile(
    r"^\W*(?:do|does|did|are|is|am|can|could|would|will|should|have|has|where|what|who|whom"
    r"|whose|how|when|why|which|shall|may)\b"
    # a request to be told: "remind me what I asked to buy", "tell me where …"
    r"|^\W*(?:remind|tell|show)\s+(?:me|us)\s+(?:what|who|where|when|how|which|whose|about|of)\b",
    re.I,
)
GUARD = re.compile(
    r"\b(?:if|unless|whether|wish|wished|would|could|should|might|imagine|imagining|suppose"
    r"|supposing|pretend|pretending|dream|dreamed|dreamt|dreaming|hope|hoping|maybe|perhaps"
    r"|someday|probably|i'd|we'd|you'd|what if)\b|(?<!\bi )\b(?:said|says|say|told|tells|tell"
    r"|thinks|think|believes|believe|claims|claimed|asked|heard|according to|apparently)\b",
    re.I,
)
_SHORT = dict(
    pair.split("=")
    for pair in """i'm=I_am im=I_am i've=I_have ive=I_have i'll=I_will we're=we_are we've=we_have
    we'll=we_will can't=cannot cant=cannot won't=will_not gonna=going_to""".split()
)
_REWRITES = tuple(
    (re.compile(pattern, re.I), replacement)
    for pattern, replacement in (
        (r"\b(do|does|did|is|are|was|were|have|has|had)n'?t\b", r"\1 not"),
        (r"\b(?:cannot|can not) (?:stand|bear)\b", "hate"),
        (  # "I am currently working": "I am working"
            r"\b(am|are|is|have|has|was|were|been)\s+(?:(?:currently|really|also|still|now|just"
            r"|actually|recently|finally|already|always|totally|absolutely|seriously|literally"
            r"|genuinely|definitely|honestly|officially|mostly|basically|kind of|sort of|so|very"
            r"|pretty)\s+)+",
            r"\1 ",
        ),
    )
)
_SHARED_SUBJECT = re.compile(
    r"\s+(and|but)\s+(?=(?:also\s+)?(?:live|work|love|like|have|study|speak|play|own|hate|enjoy"
    r"|adore|moved)\b)",
    re.I,
)
_I = re.compile(r"\bI\b")
_SHORT_FORMS = re.compile(rf"\b(?:{'|'.join(map(re.escape, _SHORT))})(?![\w'])", re.I)


def normalise(sentence: str) -> str:
    """Long forms for short ones ("I'm" -> "I am", "don't" -> "do not"), and a subject for
    a verb that shares the speaker's ("I live in Lisbon and work at Google")."""
    sentence = sentence.replace("’", "'")
    sentence = _SHORT_FORMS.sub(lambda m: _SHORT[m.group(0).lower()].replace("_", " "), sentence)
    for pattern, replacement in _REWRITES:
        sentence = pattern.sub(replacement, sentence)
    return _SHARED_SUBJECT.sub(
        lambda m: f" {m.group(1)} I " if _I.search(m.string[: m.start()]) else m.group(0), sentence
    )


_NOT = compile_rule(
    r"^(?P<head>{L}(?:i|we)\s+{A})(?:(?P<aux>am|are|have|was|were)\s+)?(?:(?:do|does|did)\s+)?"
    r"(?:not|no longer|never)\s+"
)
_USED_TO = compile_rule(r"^(?P<head>{L}(?:i|we)\s+{A})used to(?P<be> be)?\s+")
_ANYMORE = re.compile(r"\s*\b(?:any ?more|any longer|no longer)\b", re.I)


def negation(clause: str) -> tuple[str, bool, bool]:
    ended = bool(_ANYMORE.search(clause))
    if match := _USED_TO.match(clause):
        verb = "am " if match.group("be") else ""
        return match.group("head") + verb + clause[match.end() :], True, True
    if not (match := _NOT.match(clause)):
        return clause, False, False
    aux = f"{match.group('aux')} " if match.group("aux") else ""
    rest = _ANYMORE.sub("", clause[match.end() :])
    return match.group("head") + aux + rest, True, ended


_SKIP = frozenset("also still now currently recently just really actually finally no".split())
_THIRD = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}


def first_person(predicate: str) -> str:
    """'lives in Oslo' (said of someone) -> 'I live in Oslo', for the same rules."""
    words = predicate.split()
    for i, word in enumerate(words[:4]):
        lowered = word.lower()
        if lowered in _SKIP or lowered == "longer":
            continue
        if lowered in _THIRD:
            words[i] = _THIRD[lowered]
        elif re.search(r"[^aeiou]ies$", lowered):
            words[i] = word[:-3] + "y"
        elif re.search(r"(?:ch|sh|ss|x|z)es$", lowered):
            words[i] = word[:-2]
        elif lowered.endswith("s") and not lowered.endswith("ss"):
            words[i] = word[:-1]
        break
    return "I " + " ".join(words)


# -- values ----------------------------------------------------------------------------------

_LANGUAGES = frozenset(
    """english russian spanish french german italian portuguese chinese mandarin cantonese
    japanese korean arabic hindi urdu bengali punjabi turkish polish ukrainian dutch swedish
    norwegian danish finnish greek hebrew persian farsi thai vietnamese indonesian malay tagalog
    swahili czech hungarian romanian bulgarian serbian croatian latin esperanto catalan""".split()
)
NOT_NAMES = _LANGUAGES | frozenset(
    f"""{_DAYS} {_MONTHS} today tomorrow yesterday american british indian canadian australian
    mexican brazilian irish scottish welsh filipino israeli iranian egyptian african asian
    european latino latina hispanic jewish muslim christian catholic buddhist hindu atheist
    agnostic protestant orthodox mormon fine good great okay sorry happy sad busy hungry tired
    ready sure back home here done bored sick married single pregnant retired new free glad
    excited vegan vegetarian god""".replace("|", " ").split()
)
SUBORDINATE = re.compile(
    r"\s*[;(]|\s+[-–—]\s|\s+(?:because|since|but|when|while|which|who|whom|whose|although"
    r"|though|unless|until|whereas|so that|and then|as long as|more than|better than|rather than"
    r"|instead of|than|cause)\b",
    re.I,
)
TRAIL = re.compile(
    rf"\s+(?:{_TIME}|too|as well|also|though|actually|really|very much|so much|a lot|a little"
    r"|a bit|of course|in general|haha|lol|anymore|any more|for (?:years|ages|a while"
    r"|a long time)|on weekends|at weekends|every day|sometimes|often|in my (?:free|spare) time)$",
    re.I,
)
LIST = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.I)
_NOT_LIKED = re.compile(
    r"^(?:it|this|that|these|those|you|your|him|her|them|us|me|myself|how|what|when|where|why"
    r"|who|which|whatever|everything|everyone|everybody|nothing|something|anything|so"
    r"|the (?:idea|fact|way|thought|feeling)|to (?:think|know|say|hear|see|believe))\b",
    re.I,
)
_EMPTY = frozenset(
    w.replace("_", " ") for w in "a_lot a_ton a_bit a_little so_much much more it".split()
)
_NOT_WORKPLACES = frozenset(["the moment", "a living", "the weekend", "the weekends"])
_QUALIFIERS = re.compile(
    r"^(?:(?:a little|a bit of|some|basic|fluent|conversational|native|decent|good|very good"
    r"|broken|bad|a few words of|little|perfect|business|intermediate)\s+)+",
    re.I,
)
_GERUNDS = dict(
    pair.split("=")
    for pair in """moving=move going=go visiting=visit flying=fly driving=drive travelling=travel
    traveling=travel heading=head coming=come relocating=relocate returning=return sailing=sail
    starting=start getting=get leaving=leave taking=take seeing=see meeting=meet buying=buy
    opening=open launching=launch graduating=graduate retiring=retire""".split()
)
_NOT_PLANS = re.compile(  # "I'm going to bed", "I'm going to be honest": not plans to keep
    r"(?:bed|sleep|work|school|class|lunch|dinner|breakfast|church|shower|say|tell|ask|try|need"
    r"|see you|talk|catch up|let you know|keep you posted"
    r"|check|be (?:honest|late|back|fine|ok|okay|there)|the (?:gym|store|shop|shops|bathroom"
    r"|toilet|office|supermarket|kitchen))\b",
    re.I,
)
_SUFFERERS = dict(
    pair.split("=")
    for pair in """diabetic=diabetes asthmatic=asthma epileptic=epilepsy autistic=autism
    dyslexic=dyslexia anemic=anemia anaemic=anaemia celiac=celiac coeliac=coeliac""".split()
)
_ARTICLES = frozenset("a an one my our first own".split())
_NOT_OWNED = frozenset("new brand brand-new used second-hand".split())
ITEMS = re.compile(r"\s*,\s*(?:and\s+)?(?=(?:a|an|one|two|three|four|five|six|\d+)\b)"
                    r"|\s+and\s+(?=(?:a|an|one|two|three|four|five|six|\d+)\b)", re.I)  # fmt: skip
_NAMED = re.compile(r"\s+(?:named|called)\s+", re.I)


def _is_name(words: str) -> bool:
    return all(w.lower() not in NOT_NAMES and w.lower() not in STOP_WORDS for w in words.split())


def _have(item: str) -> list[tuple[str, str]]:
    """What 'I have / we adopted / I bought ...' introduces: pets, relatives, things."""
    kind_said, *named = _NAMED.split(item, maxsplit=1)
    words = kind_said.split()
    counted = bool(words) and words[0].lower() not in _ARTICLES
    while words and words[0].lower() in _ARTICLES:
        words.pop(0)
    if counted and named:
        words.pop(0)  # "two cats named Luna and Leo": "cat Luna", "cat Leo"
    if not words:
        return []
    head = words[-1].lower()
    single = head[:-1] if head not in _KINDS and head.endswith("s") else head
    names = re.split(r"\s*,\s*|\s+and\s+", named[0]) if named else []
    return _possession(_KINDS.get(single, ""), words, single, names, counted)


def _possession(
    kind: str, words: list[str], single: str, names: list[str], counted: bool
) -> list[tuple[str, str]]:
    names = [n for n in names if re.fullmatch(_TOKENS["{NAMES}"], n) and _is_name(n)]
    if kind == "owns":
        return [("owns", " ".join(w for w in words if w.lower() not in _NOT_OWNED))]
    if kind == "spouse":
        return [("spouse", name) for name in names]
    if kind not in ("pet", "family"):
        return []
    if names:
        singular = " ".join([*words[:-1], single])
        return [(kind, f"{singular} {name}") for name in names]
    if counted and kind == "pet":
        return []  # "two cats": no value reads well without their names
    return [(kind, " ".join(words).lower() if not counted else " ".join(words))]


_BARE_PRONOUN = re.compile(r"^\w+ (?:it|this|that|them|these|those|one)$", re.I)


def _plan(value: str) -> list[tuple[str, str]]:
    words = value.split()
    if _NOT_PLANS.match(value) or _BARE_PRONOUN.match(value):  # "take it" says nothing alone
        return []
    if words[0].lower() in _GERUNDS:
        words[0] = _GERUNDS[words[0].lower()]
    elif words[0][0].isupper() or words[0].lower() in ("the", "a", "an", "my", "our", "his", "her"):
        words.insert(0, "go to")
    return [("plan", " ".join(words))]


def _speaks(value: str) -> list[tuple[str, str]]:
    value = _QUALIFIERS.sub("", value)
    return [("speaks", value)] if value[:1].isupper() or value.lower() in _LANGUAGES else []


def clean(kind: str, value: str) -> list[tuple[str, str]]:
    """(attribute, value) pairs from one value the group `kind` of a rule caught, trimmed."""
    handlers = {"have": _have, "plan": _plan, "plan_go": _plan, "speaks": _speaks}
    if value.lower() in _EMPTY:
        return []
    if kind in handlers:
        return handlers[kind](value)
    if kind in ("likes", "dislikes") and _NOT_LIKED.match(value):
        return []
    if kind == "likes_play":
        return [("likes", f"playing {value}")]
    if kind == "likes_prefer":
        return [("likes", re.split(r"\s+(?:to|over)\s+", value, maxsplit=1)[0])]
    if kind == "condition_adj":
        return [("condition", _SUFFERERS[value.lower()])]
    if kind == "job":
        value = re.split(r"\s+(?:at|for|with|in)\s+", value, maxsplit=1)[0]
    if kind in ("name", "name_bare"):
        return [("name", value)] if _is_name(value) else []
    if kind == "works_at":  # "a bistro called Olive & Thyme" -> "Olive & Thyme"
        value = re.sub(r"^(?:a|an|the)\s.*?\b(?:called|named)\s+", "", value, flags=re.I)
        return [] if value.lower() in _NOT_WORKPLACES else [(kind, value)]
    return [(kind, value)]
