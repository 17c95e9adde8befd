"""Forgetting: a deleted or redacted memory takes with it everything made from it.

- deleting an episode deletes its claims (so the facts it alone stated, and its part of
  the others), rewrites the diary entries that summarised it, and deletes the assistant
  replies made from it (`Message.derived_from`);
- redacting an episode (a sentence cut on request) keeps only the claims its new text
  still states, rewrites the diary the same way and deletes the replies made from it;
- a request to forget ("forget my address", "forget what I said about Tom", "forget
  everything about me") forgets the requester's facts it names, as the participants it
  was made before see them: their claims are deleted and the sentences that stated them
  are cut from the requester's own messages (a message left empty is deleted), and the
  assistant's sentences that repeated them are cut too. A request said in a conversation
  reaches only what was said before it.

The history keeps that something was forgotten, never what.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from kuzya.embed.base import Embedder
from kuzya.errors import NotFound
from kuzya.facts import rules
from kuzya.facts.claims import DIGEST, value_key
from kuzya.facts.schema import Forget
from kuzya.facts.view import fold
from kuzya.language.sentences import sentences
from kuzya.language.text import terms
from kuzya.model import Episode, is_assistant
from kuzya.remember import analysed_one
from kuzya.sleep import diary
from kuzya.store.base import Store, StoredClaim

_LIST = re.compile(r",|;|\b(?:and|or)\b|(?<!\w)(?:и|или)(?!\w)", re.I)
BATCH = 500


@dataclass(frozen=True)
class Forgotten:
    facts: int
    redacted: int  # messages with sentences cut out
    deleted: int  # messages that had nothing else to say, and replies made from them


@dataclass
class Cut:
    """What cutting sentences out of messages did."""

    redacted: int = 0  # messages with sentences cut out
    deleted: int = 0  # messages that had nothing else to say, and replies made from them
    stale: list[int] = field(default_factory=list)  # claims the redacted ones no longer state


def _before(said_at: datetime, episode_id: int, request: Episode | None) -> bool:
    """Said before the request (all is, without one)."""
    return request is None or (said_at, episode_id) < (request.said_at, request.id)


class Eraser:
    """Deletes and redacts episodes of one namespace with everything made from them."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        namespace: str,
    ) -> None:
        self.store, self.embedder, self.namespace = store, embedder, namespace

    def delete(self, ids: Sequence[int], actor: str | None) -> int:
        """Delete the episodes (each must exist) and what was made from them; returns how
        many episodes went, replies included. The diary is rewritten without them first,
        and replies go before what they were made from: if this is interrupted, no entry
        or reply is left pointing at a deleted message, and deleting again finishes it."""
        for episode_id in ids:
            self.store.get_episode(self.namespace, episode_id)  # NotFound before any change
        going: list[int] = []  # the episodes, then the replies made from each, recursively
        queue = list(ids)
        while queue:
            episode_id = queue.pop(0)
            if episode_id not in going:
                going.append(episode_id)
                queue.extend(self.store.derived_from(self.namespace, [episode_id]))
        diary.rebuild(self.store, self.namespace, self.embedder, going, leaving=set(going))
        gone = 0
        for episode_id in reversed(going):
            try:
                self.store.delete_episode(self.namespace, episode_id, actor)
            except NotFound:
                continue  # a reply deleted meanwhile by another process
            gone += 1
        return gone

    def redact(self, episode: Episode, text: str, actor: str | None) -> int:
        """Replace the episode's text with `text` (what is left of it); returns how many
        replies made from it were deleted. Its claims are the caller's to forget
        (`unstated`), once every message is cut."""
        new = analysed_one(self.store, self.embedder, self.namespace, episode.retold(text))
        self.store.redact_episode(self.namespace, episode.id, new, actor)
        replies = self.store.derived_from(self.namespace, [episode.id])
        deleted = self.delete(replies, actor) if replies else 0
        diary.rebuild(self.store, self.namespace, self.embedder, [episode.id])
        return deleted

    def unstated(self, episode: Episode, text: str) -> list[int]:
        """The episode's claims that `text`, what is left of it, no longer states."""
        left = set(terms(text))
        return [
            c.id
            for c in self.store.claims(self.namespace, participants=None, episodes=[episode.id])
            if not set(value_key(c.value).split()) <= left
        ]

    def mend(self) -> int:
        """Rewrite the diary entries that still cite deleted or changed messages (a delete,
        redaction or update interrupted before its diary was rewritten); returns how many."""
        stale = self.store.stale_diary_sources(self.namespace)
        return diary.rebuild(self.store, self.namespace, self.embedder, stale) if stale else 0

    # -- requests ------------------------------------------------------------------------

    def forget(
        self,
        request: Forget,
        scope: Sequence[str],
        actor: str | None,
        said_in: Episode | None = None,
    ) -> Forgotten:
        """Carry out a request to forget, over what the participants of `scope` may see
        (and, for a request said in a message, what was said before it)."""
        if request.previous:
            return self._forget_previous(request, scope, actor, said_in)
        seen = self.store.claims(self.namespace, participants=scope)
        pending = self._pending(request.subject, scope, said_in)
        claims = [c for c in (*seen, *pending) if _before(c.said_at, c.episode_id, said_in)]
        facts, _ = fold(claims)
        # "my therapist and the panic attacks": each thing named is forgotten wherever said
        topics = [set(terms(part)) for part in _LIST.split(request.about or "")]
        topics = [topic for topic in topics if topic]
        about = set().union(*topics)
        targets = [
            f
            for f in facts
            if f.subject == request.subject
            and (request.attribute is None or f.attribute == request.attribute)
            and (not about or about & set(terms(f"{f.value} {f.statement}")))
        ]
        keys = {(f.subject, f.attribute, value_key(f.value)) for f in targets}
        chosen = [c for c in claims if (c.subject, c.attribute, c.value_key) in keys]
        reason = f"forget requested by {request.subject}"
        words = [set(terms(c.value)) for c in chosen] + topics
        episodes = {c.episode_id for c in chosen}
        view = self.store.scope(self.namespace, scope)
        for group in {frozenset(w) for w in words if w}:  # said again anywhere, in any words
            episodes.update(self.store.matching(view, sorted(group)))
        own = [
            e
            for e in self.store.fetch(view, sorted(episodes))
            if e.speaker == request.subject and _before(e.said_at, e.id, said_in)
        ]
        if said_in is not None:  # the request itself keeps none of it either
            own.extend(self.store.fetch(view, [said_in.id]))
        # The claims go last, and the messages that state them are cut after the others:
        # until then, running an interrupted forget again finds every message that still
        # says what they said.
        carriers = {c.episode_id for c in chosen}
        own.sort(key=lambda e: e.id in carriers)
        replies = self._cut(self._replies(words, scope), words, keys, actor)
        cut = self._cut(own, words, keys, actor)
        stale = {c.id for c in chosen if c.id > 0} | set(replies.stale) | set(cut.stale)
        self.store.forget_claims(self.namespace, sorted(stale), reason, actor)
        return Forgotten(
            len(targets), replies.redacted + cut.redacted, replies.deleted + cut.deleted
        )

    def _pending(
        self, subject: str, scope: Sequence[str], said_in: Episode | None
    ) -> list[StoredClaim]:
        """Rule claims of the subject's messages that sleep has not read yet (negative
        ids: they are not stored)."""
        found: list[StoredClaim] = []
        after = self.store.job_position(self.namespace, DIGEST)
        present = set(scope)
        while batch := self.store.episodes_after(self.namespace, after, BATCH):
            after = batch[-1].id
            for episode in batch:
                if (
                    episode.speaker != subject
                    or is_assistant(episode)
                    or not present <= episode.audience
                    or not _before(episode.said_at, episode.id, said_in)
                ):
                    continue
                for claim in rules.claims(episode.text, episode.speaker):
                    found.append(
                        StoredClaim(
                            -len(found) - 1, episode.id, claim.subject, claim.attribute,
                            claim.value, value_key(claim.value), claim.negated,
                            claim.statement(), episode.said_at, episode.audience, "rules",
                            episode.stored_at,
                        )
                    )  # fmt: skip
        return found

    def _replies(self, words: Sequence[set[str]], scope: Sequence[str]) -> list[Episode]:
        """The assistant's replies the scope may see that repeat any of the words."""
        view = self.store.scope(self.namespace, scope)
        ids: set[int] = set()
        for group in words:
            if group:
                ids.update(self.store.matching(view, sorted(group)))
        return [e for e in self.store.fetch(view, sorted(ids)) if is_assistant(e)]

    def _cut(
        self,
        episodes: Sequence[Episode],
        words: Sequence[set[str]],
        keys: set[tuple[str, str, str]],
        actor: str | None,
    ) -> Cut:
        """Cut from each episode the sentences that mention any of the word groups or
        state a forgotten claim."""
        done = Cut()
        for episode in episodes:
            said = sentences(episode.text)
            kept = [s for s in said if not self._states(s, episode.speaker, words, keys)]
            try:
                if not kept:
                    done.deleted += self.delete([episode.id], actor)
                elif len(kept) < len(said):
                    done.stale += self.unstated(episode, " ".join(kept))
                    done.deleted += self.redact(episode, " ".join(kept), actor)
                    done.redacted += 1
            except NotFound:
                continue  # gone with an earlier one (a reply made from it)
        return done

    @staticmethod
    def _states(
        sentence: str, speaker: str, words: Sequence[set[str]], keys: set[tuple[str, str, str]]
    ) -> bool:
        said = set(terms(sentence))
        if any(group and group <= said for group in words):
            return True
        return any(
            (c.subject, c.attribute, value_key(c.value)) in keys
            for c in rules.claims(sentence, speaker)
        )

    def _forget_previous(
        self, request: Forget, scope: Sequence[str], actor: str | None, said_in: Episode | None
    ) -> Forgotten:
        """ "Forget that": the requester's message before the request, in its conversation."""
        if said_in is None:
            return Forgotten(0, 0, 0)
        view = self.store.scope(self.namespace, scope)
        turns = self.store.recent_turns(view, said_in.conversation, said_in.position + 1)
        earlier = [
            t for t in turns if t.speaker == request.subject and t.position < said_in.position
        ]
        if not earlier:
            return Forgotten(0, 0, 0)
        return Forgotten(0, 0, self.delete([earlier[-1].id], actor))
