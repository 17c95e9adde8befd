"""The shop's two agents over one Kuzya memory: a waiter who greets regulars and proposes
"the usual", and a chef who cooks what he hears ordered.

Who hears what is the memory's audience rule, not a filter of ours: table talk happens at
the counter, within the chef's earshot, so its participants are the party, the waiter and
the chef; a confidence is said to the waiter alone. Every decision an agent makes is read
from what the memory returns for the people present — the profile (facts), recall, the
conversations index, the visit's own turns (working memory) — and the menu, which is the
shop's own knowledge. The script's hidden truth reaches this module only as the customers'
words; the scorer alone reads the rest.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from kuzya.errors import LLMError
from kuzya.facts import rules
from kuzya.llm.base import LLM, ChatMessage
from kuzya.memory import Memory
from kuzya.model import Episode, Fact, is_assistant
from kuzya.sim import customers as lines
from kuzya.sim.customers import START, Customer, Plan, Visit, day_start
from kuzya.sim.menu import ASPECTS, DIETS, DISHES, Order, ingredients_named, option_named, suits
from kuzya.sim.metrics import CHEF, WAITER, Scorer

WORKING_TURNS = 10  # the last turns of a visit an agent keeps in mind
NOTE_WORDS = 120  # the word budget of the recall made when a party sits down
PROFILE_LINES = 12
SYSTEM = (
    "You are the waiter of a small noodle shop. Use only your memory notes, never invent "
    "a memory, never repeat in front of others what someone told you in confidence, and "
    "answer in one short sentence."
)


@dataclass(frozen=True)
class Known:
    """What the memory tells an agent about one customer, as the people present see it."""

    usual: Order | None
    allergies: frozenset[str]
    diet: str | None

    def avoided(self) -> frozenset[str]:
        return self.allergies | DIETS.get(self.diet or "", frozenset())


class Shop:
    """Plays visits: the customers' scripted words in, the agents' words out, all of it
    remembered, with what each agent said and was shown handed to the scorer."""

    def __init__(
        self, memory: Memory, scorer: Scorer, llm: LLM | None = None, seed: int = 0
    ) -> None:
        """`seed` draws the customers' wording (the script says what they mean)."""
        self.memory = memory
        self.scorer = scorer
        self.llm = llm
        self.seed = seed
        self.words_so_far = 0  # every word remembered: the naive keep-everything prompt
        self.llm_fallbacks = 0  # lines the model failed to write (the rule line was said)
        self.clock = START
        self.day = 0
        self.notes = ""

    # -- a visit ----------------------------------------------------------------------------

    def serve(self, visit: Visit) -> None:
        self.day = visit.day
        self.clock = day_start(visit.day) + timedelta(minutes=visit.minute)
        counter = (*sorted(visit.party), WAITER, CHEF)
        names = ", ".join(self._customer(c).name for c in visit.party)
        self.notes = self.memory.recall(
            f"{names}: usual order, spice, noodles, extras, allergies, diet",
            participants=counter, now=self.clock, budget_words=NOTE_WORDS,
        ).as_prompt()  # fmt: skip
        ordered = {plan.customer: self._order(visit, plan, counter) for plan in visit.plans}
        for plan in visit.plans:
            self._questions(visit, plan, counter, ordered[plan.customer])
            if plan.confides:
                aside = (plan.customer, WAITER)
                self._say(plan.customer, visit, aside, plan.confides.text)
                name = self._customer(plan.customer).name
                self._waiter(visit, aside, f"Of course, {name}, that stays between us.", "aside")
        self.scorer.visited(visit.day, visit.plans)

    def _order(self, visit: Visit, plan: Plan, counter: Sequence[str]) -> Order:
        customer = self._customer(plan.customer)
        rng = random.Random(f"{self.seed}:{visit.number}:{customer.id}")
        if plan.first:
            self._say(customer.id, visit, counter, _introduction(rng, customer, plan))
            proposed = None
        else:
            proposed = self.known(customer.id, counter).usual
            offer = f"The usual: {proposed.said()}?" if proposed else "What can I get you?"
            again = " back" if self._last_visit(visit, counter) else ""  # seen here before
            keep = [customer.name, *(proposed.said().split(", ") if proposed else ())]
            self._waiter(visit, counter, f"Welcome{again}, {customer.name}! {offer}", "propose",
                         keep)  # fmt: skip
            self.scorer.proposal(self.day, plan, proposed)
            self._say(customer.id, visit, counter, _reply(rng, plan, proposed))
        order = self._heard_order(customer.id, visit, counter, proposed)
        ticket = f"One {order.said()} for {customer.name}."
        self._remember(WAITER, visit, counter, ticket, "order")  # for the kitchen, as it is
        self._cook(customer, visit)
        return order

    def _questions(self, visit: Visit, plan: Plan, counter: Sequence[str], ordered: Order) -> None:
        customer = self._customer(plan.customer)
        if plan.asks_last_visit:
            self._say(customer.id, visit, counter, "When was I last here?")
            when = self._last_visit(visit, counter)
            date = f"{when.day} {when:%B}" if when else ""
            said = f"You were last here on {when:%A}, {date}." if when else "I don't recall."
            self._waiter(visit, counter, said, "answer", [date] if date else [])
            self.scorer.last_visit(self.day, customer.id, when)
        if plan.asks_recommendation:
            self._say(customer.id, visit, counter, "What did you recommend last time?")
            dish = self._recommended(customer, visit, counter)
            said = f"Last time I recommended the {dish}." if dish else "I don't recall."
            self._waiter(visit, counter, said, "answer", [dish] if dish else [])
            self.scorer.recalled_recommendation(self.day, customer.id, dish)
        if plan.wants_recommendation:
            self._say(customer.id, visit, counter, "Anything you'd recommend today?")
            dish = self._special(customer.id, visit, counter, ordered)
            self._waiter(visit, counter, f"{customer.name}, today I recommend the {dish}.",
                         "recommend", [customer.name, dish])  # fmt: skip
            self.scorer.recommended(self.day, customer.id, dish)

    # -- what the memory says ---------------------------------------------------------------

    def known(self, customer: str, present: Sequence[str]) -> Known:
        """The customer's usual order, allergies and diet from their profile as the people
        present see it: for each aspect of the order, the value stated most recently."""
        facts = self.memory.profile(customer, participants=present, now=self.clock).facts
        orders = [f for f in facts if f.attribute == "usual_order"]
        chosen: dict[str, str] = {}
        for aspect in ASPECTS:
            named = [(self._stated(f), o) for f in orders if (o := option_named(aspect, f.value))]
            if named:
                chosen[aspect] = max(named)[1]
        allergies = frozenset(
            i for f in facts if f.attribute in ("allergy", "avoids")
            for i in ingredients_named(f.value)
        )  # fmt: skip
        diet = next((f.value.lower() for f in facts if f.attribute == "diet"), None)
        diet = diet if diet in DIETS else None
        usual = Order(**chosen) if len(chosen) == len(ASPECTS) else None
        if usual and not suits(usual.ingredients(), allergies, diet):
            usual = None  # what memory says cannot be right for them: ask instead
        return Known(usual, allergies, diet)

    def _stated(self, fact: Fact) -> datetime:
        """When a fact was last said (its newest source message)."""
        return max(self.memory.get(source).said_at for source in fact.sources)

    def _turns(self, visit: Visit, present: Sequence[str]) -> list[Episode]:
        """Working memory: the last turns of this visit the people present may see."""
        turns = self.memory.get_all(
            participants=present, conversation=visit.conversation, limit=1000
        )
        return turns[-WORKING_TURNS:]

    def _heard_order(
        self, customer: str, visit: Visit, counter: Sequence[str], proposed: Order | None
    ) -> Order:
        """The order as the waiter heard it: the proposal, changed by what the customer
        said this visit (read by Kuzya's fact rules from the working memory)."""
        chosen = {a: proposed.aspect(a) for a in ASPECTS} if proposed else {}
        for turn in self._turns(visit, counter):
            if turn.speaker != customer or is_assistant(turn):
                continue
            for claim in rules.claims(turn.text, customer):
                for aspect in ASPECTS:
                    if claim.attribute == "usual_order" and (
                        option := option_named(aspect, claim.value)
                    ):
                        chosen[aspect] = option
        return Order(**{a: chosen.get(a, ASPECTS[a][0]) for a in ASPECTS})

    def _said_today(self, customer: str, visit: Visit, present: Sequence[str]) -> Known:
        """Allergies and diet the customer stated in this visit's working memory."""
        allergies: set[str] = set()
        diet = None
        for turn in self._turns(visit, present):
            if turn.speaker == customer and not is_assistant(turn):
                for claim in rules.claims(turn.text, customer):
                    if claim.attribute in ("allergy", "avoids") and not claim.negated:
                        allergies |= ingredients_named(claim.value)
                    if claim.attribute == "diet" and claim.value.lower() in DIETS:
                        diet = claim.value.lower()
        return Known(None, frozenset(allergies), diet)

    def _cook(self, customer: Customer, visit: Visit) -> None:
        """The chef reads the ticket from what he heard at the counter and leaves out what
        the customer must not eat, as his own view of the memory tells it."""
        ticket = next(
            (
                t
                for t in reversed(self._turns(visit, [CHEF]))
                if t.speaker == WAITER and t.metadata.get("act") == "order"
                and t.text.endswith(f" for {customer.name}.")
            ),
            None,
        )  # fmt: skip
        if ticket is None:
            return
        order = Order(**{a: option_named(a, ticket.text) or ASPECTS[a][0] for a in ASPECTS})
        known, today = self.known(customer.id, [CHEF]), self._said_today(customer.id, visit, [CHEF])
        diet = today.diet or known.diet
        avoided = known.allergies | today.allergies | DIETS.get(diet or "", frozenset())
        left_out = order.ingredients() & avoided
        served = order.ingredients() - left_out
        self.scorer.offered(self.day, customer.id, served)
        without = f", made without {', '.join(sorted(left_out))}" if left_out else ""
        prompt = self.memory.profile(customer.id, participants=[CHEF], now=self.clock).as_prompt()
        self.scorer.seen(self.day, [CHEF], prompt)
        said = f"Order up: {order.dish} for {customer.name}{without}."
        self._remember(CHEF, visit, (*sorted(visit.party), WAITER, CHEF), said, "serve")

    def _last_visit(self, visit: Visit, present: Sequence[str]) -> datetime | None:
        """The end of the latest earlier visit of everyone present (the conversations
        index, newest first)."""
        earlier = (c for c in self.memory.conversations(participants=present)
                   if c.id != visit.conversation)  # fmt: skip
        latest = next(earlier, None)
        return None if latest is None else latest.last_at

    def _recommended(self, customer: Customer, visit: Visit, present: Sequence[str]) -> str | None:
        """The dish the waiter last recommended to the customer, through the entity index:
        the messages naming them that the people present may see, newest first, until
        one of the waiter's recommendations."""
        named = [e.id for e in self.memory.entities(participants=present)
                 if e.name.lower() == customer.name.lower()]  # fmt: skip
        ids = sorted(
            {i for entity in named
             for i in self.memory.store.entity_episodes(self.memory.namespace, entity, present)},
            reverse=True,
        )  # fmt: skip
        for number in ids:
            said = self.memory.get(number)
            if (
                said.conversation != visit.conversation
                and said.speaker == WAITER
                and said.metadata.get("act") == "recommend"
            ):
                return option_named("dish", said.text)
        return None

    def _special(self, customer: str, visit: Visit, present: Sequence[str], ordered: Order) -> str:
        """Today's dish for this customer: the day's rotation, the first that is not what
        they ordered and is safe for what they avoid, as their profile and this visit's
        working memory tell it."""
        avoided = (
            self.known(customer, present).avoided()
            | self._said_today(customer, visit, present).avoided()
        )
        dishes = list(DISHES)
        rotation = dishes[self.day % len(dishes) :] + dishes[: self.day % len(dishes)]
        return next(
            (d for d in rotation if d != ordered.dish and not DISHES[d] & avoided),
            ordered.dish,
        )

    # -- speaking ---------------------------------------------------------------------------

    def _customer(self, cid: str) -> Customer:
        return self.scorer.script.customers[cid]

    def _waiter(
        self,
        visit: Visit,
        present: Sequence[str],
        decided: str,
        act: str,
        keep: Sequence[str] = (),
    ) -> None:
        """A waiter's line: the prompt it is made from (profiles, notes, working memory),
        measured and checked; the model's wording of the decision when it keeps every
        word of `keep` (names, dishes, dates), else the decision as it stands."""
        profiles = "\n".join(
            self.memory.profile(c, participants=present, now=self.clock).as_prompt(PROFILE_LINES)
            for c in present
            if c not in (WAITER, CHEF)
        )
        turns = "\n".join(f"{t.speaker}: {t.text}" for t in self._turns(visit, present))
        notes = self.notes if CHEF in present else ""  # made for the counter
        context = f"{profiles}\nNotes:\n{notes}\nThis visit:\n{turns}\nSay: {decided}"
        self.scorer.seen(self.day, present, context)
        words = len(f"{SYSTEM}\n{context}".split())
        self.scorer.prompt(self.day, words, self.words_so_far + len(f"{SYSTEM} {decided}".split()))
        said = decided if self.llm is None else self._worded(context, decided, keep)
        self._remember(WAITER, visit, present, said, act)

    def _worded(self, context: str, decided: str, keep: Sequence[str]) -> str:
        assert self.llm is not None
        ask = [
            ChatMessage("system", SYSTEM),
            ChatMessage("user", f"{context}\nSay it to the customer in your own words, "
                        f"in one short sentence, keeping every name and dish: {decided}"),
        ]  # fmt: skip
        try:
            text = self.llm.chat(ask, max_tokens=60).text.strip().splitlines()
        except LLMError:
            text = []
        line = text[0].strip() if text else ""
        if not line or not all(k.lower() in line.lower() for k in keep):
            self.llm_fallbacks += 1  # a model line that lost what it had to say
            return decided
        return line

    def _say(self, customer: str, visit: Visit, present: Sequence[str], text: str) -> None:
        self._remember(customer, visit, present, text, None)

    def _remember(
        self, speaker: str, visit: Visit, present: Sequence[str], text: str, act: str | None
    ) -> None:
        if act is not None:
            self.scorer.seen(self.day, present, text)
        metadata = {"role": "assistant", "act": act} if act else None
        self.memory.remember(
            text, speaker=speaker, conversation=visit.conversation, participants=list(present),
            time=self.clock, metadata=metadata,
        )  # fmt: skip
        self.words_so_far += len(text.split()) + 1
        self.clock += timedelta(seconds=20)


def _introduction(rng: random.Random, customer: Customer, plan: Plan) -> str:
    said = [f"Hi, I'm {customer.name}.", lines.order_lines(rng, plan.order, ASPECTS, ())]
    if customer.allergies:
        said.append(lines.allergy_line(customer.allergies))
    if plan.diet:
        said.append(f"I'm {plan.diet}.")
    return " ".join(said)


def _reply(rng: random.Random, plan: Plan, proposed: Order | None) -> str:
    """Yes to the right usual; otherwise what is different, a change told as one."""
    said = [f"I've gone {plan.diet}."] if plan.new_diet and plan.diet else []
    wrong = [a for a in ASPECTS if proposed is None or proposed.aspect(a) != plan.order.aspect(a)]
    if not wrong:
        return " ".join(["Yes, the usual, thanks!", *said])
    opening = "Not today, I've changed my order." if plan.changed else "Not quite."
    return " ".join([opening, *said, lines.order_lines(rng, plan.order, wrong, plan.changed)])
