"""Knowledge cards: new knowledge (from chat's ingest_to_corpus, `negentropy card submit` or the MCP
submit_card tool) enters as a card with a review status instead of landing straight in a shared corpus.

inbox -> reviewed -> promoted | rejected (an inbox card may also be rejected directly).

While a card is unpromoted its text lives in its author's inbox corpus (``inbox_<person>``), which is in
the author's permission view and nobody else's, so only the author can search it. Promotion ingests the
text into the target corpus through the normal pipeline (graph, canonical links) and removes the inbox
copy; rejection removes the inbox copy. Reviewers are the target library's owner and listed reviewers,
never the author, and must still see the library when they decide: every check reads the current topology.
A library's owner (so also a person writing to their own personal library) and the local operator publish
directly: their card is promoted at once, with the event recorded.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from knowledge.context.permissions import AccessResolver, ResolvedView, inbox_corpus_name
from knowledge.context.topology import LOCAL_OPERATOR_USER, ContextLibrary
from knowledge.corpora import Corpus, CorpusRegistry
from knowledge.corpus_ids import parse_corpus_id
from knowledge.db.database import Database
from knowledge.db.queries import cards as q
from knowledge.db.queries.cards import CardRecord as Card
from knowledge.documents.lifecycle import DocumentLifecycle
from knowledge.embedding import QueryEmbeddingCache
from knowledge.ingest.documents import Document
from knowledge.ingest.pipeline import IngestPipeline, IngestReport, content_hash
from knowledge.metrics import knowledge_cards_total

MAX_CARD_CHARS = 20_000
CARD_SOURCES = ("chat", "cli", "api")
CHAT_CAPTURED_BY = "ingest_intent"  # metadata.captured_by of rows saved from chat (docs/design.md section 4)


class CardStatus(str, Enum):
    inbox = "inbox"
    reviewed = "reviewed"
    promoted = "promoted"
    rejected = "rejected"


OPEN_STATUSES = (CardStatus.inbox.value, CardStatus.reviewed.value)


@dataclass(frozen=True)
class CardReceipt:
    card: Card
    chunks_added: int            # new chunks: in the target corpus when promoted at once, else in the inbox
    chunks_already_present: int

    @property
    def promoted(self) -> bool:
        return self.card.review_status == CardStatus.promoted.value


class CardError(ValueError):
    """A card request that cannot be carried out (bad input, wrong state); nothing was changed."""


class KnowledgeCards:
    def __init__(self, db: Database, corpora: CorpusRegistry, pipeline: IngestPipeline, documents: DocumentLifecycle,
                 query_cache: QueryEmbeddingCache, access: AccessResolver) -> None:
        self.db = db
        self.corpora = corpora
        self.pipeline = pipeline
        self.documents = documents  # the inbox copy of a decided card leaves as any document does
        self.query_cache = query_cache  # cleared when a card changes what a search can find
        self.access = access
        self.app_name = corpora.app_name

    # ------------------------------------------------------------------ submit
    async def submit(self, author: str, content: str, target: str, *, title: str = "", source: str = "cli",
                     metadata: dict | None = None) -> Card:
        """A card for ``target`` (a library id, corpus name or id the author can see); see submit_with_receipt."""
        return (await self.submit_with_receipt(author, content, target, title=title, source=source,
                                               metadata=metadata)).card

    async def submit_with_receipt(self, author: str, content: str, target: str, *, title: str = "",
                                  source: str = "cli", metadata: dict | None = None) -> "CardReceipt":
        """Submit a card. It waits in the author's inbox for review, unless the author owns the target library
        (their own personal library included) or is the local operator: then it is promoted at once.
        ``author`` is a person id or an agent user id. The same text for the same corpus returns the
        existing card."""
        view = await self.access.resolve_user(author)
        text = content.strip()
        if not text:
            raise CardError("the card is empty")
        if len(text) > MAX_CARD_CHARS:
            raise CardError(f"the card has {len(text)} characters; the limit is {MAX_CARD_CHARS}")
        if source not in CARD_SOURCES:
            raise CardError(f"unknown card source {source!r}; one of {', '.join(CARD_SOURCES)}")
        library, corpus = self._target(view, target)
        author_id = view.person.id if view.person else LOCAL_OPERATOR_USER
        publishes = view.person is None or library.owner == author_id
        inbox = None if publishes else await self.corpora.create(
            inbox_corpus_name(author_id), f"Inbox: {view.person.name}",
            f"Unpromoted knowledge cards of {view.person.name}")
        title = title.strip() or text.splitlines()[0][:80]
        extra = dict(metadata or {})
        async with self.db.transaction() as conn:
            card, created = await q.insert_card(conn, self.app_name, author_id, title, text, content_hash(text),
                                                source, library.id, corpus.id, inbox.id if inbox else None, extra)
            if created:
                await q.insert_card_event(conn, card.id, author_id, None, CardStatus.inbox.value,
                                          f"submitted via {source} for {library.id}/{corpus.name}")
        if not created:
            return CardReceipt(card, 0, 0)
        try:
            if publishes:
                return await self._publish_own(card)
            report = await self.pipeline.ingest_documents(
                inbox, [Document(source_uri=f"card:{card.id}", text=text, title=title, metadata={"title": title})],
                extra_metadata={**extra, "card_id": str(card.id), "card_author": author_id,
                                "review_status": CardStatus.inbox.value, "target_library": library.id})
        except Exception:
            async with self.db.connection() as conn:
                await q.delete_card(conn, card.id)  # no half-made card: the caller keeps the text and the error
            raise
        knowledge_cards_total.labels(action="submitted").inc()
        return CardReceipt(card, report.chunks_added, report.chunks_skipped)

    async def capture_note(self, user_id: str, corpus: Corpus, document: Document) -> "CardReceipt":
        """A note saved from chat (ingest_to_corpus, or its buffered retry) becomes a card of ``user_id``."""
        if not user_id:
            raise CardError("the note has no author, so it cannot become a knowledge card")
        return await self.submit_with_receipt(
            user_id, document.text, str(corpus.id), title=document.title, source="chat",
            metadata={**document.metadata, "captured_by": CHAT_CAPTURED_BY, "source_uri": document.source_uri})

    async def _publish_own(self, card: Card) -> "CardReceipt":
        """The owner's own card for their library (or the operator's): promoted without a second reviewer."""
        async with self.db.transaction() as conn:
            report = await self._promote(card, card.author)
            updated = await q.mark_decided(conn, card.id, CardStatus.promoted.value, card.author,
                                           "published by the library owner", (CardStatus.inbox.value,),
                                           report.chunks_total)
            await q.insert_card_event(conn, card.id, card.author, CardStatus.inbox.value, CardStatus.promoted.value,
                                      "published by the library owner")
        self.query_cache.clear()
        knowledge_cards_total.labels(action="promoted").inc()
        return CardReceipt(updated, report.chunks_added, report.chunks_skipped)

    def _target(self, view: ResolvedView, target: str) -> tuple[ContextLibrary, Corpus]:
        key = target.strip()
        shared = [g.library for g in view.grants if g.via != "card inbox"]
        library = next((lib for lib in shared if lib.id == key), None)
        if library is not None:
            corpora = view.corpora_of(library.id)
            if not corpora:
                raise CardError(f"library {library.id!r} has no corpus yet")
            if len(corpora) > 1:
                raise CardError(f"library {library.id!r} maps several corpora ({', '.join(library.corpora)}); "
                                "name the corpus")
            return library, corpora[0]
        wanted = parse_corpus_id(key)
        for library in shared:
            for corpus in view.corpora_of(library.id):
                if corpus.id == wanted or key.casefold() in (corpus.name.casefold(), corpus.label.casefold()):
                    return library, corpus
        raise PermissionError(f"{key!r} is not a library or corpus in {view.who}'s permission view "
                              "(out of scope / 越权): a card can only target what its author can read")

    # ------------------------------------------------------------------ review
    async def get(self, card_id: int) -> Card:
        async with self.db.connection() as conn:
            card = await q.select_card(conn, self.app_name, card_id)
        if card is None:
            raise CardError(f"no knowledge card {card_id}")
        return card

    async def mine(self, author: str) -> list[Card]:
        await self.access.resolve(author)
        async with self.db.connection() as conn:
            return await q.select_cards_by_author(conn, self.app_name, author)

    async def queue(self, reviewer: str) -> list[Card]:
        """Open cards (inbox or reviewed) that ``reviewer`` may review now."""
        view = await self.access.resolve(reviewer)
        libraries = [g.library.id for g in view.grants if _is_reviewer(g.library, reviewer)]
        async with self.db.connection() as conn:
            cards = await q.select_cards_for_libraries(conn, self.app_name, libraries, OPEN_STATUSES)
        by_id = {lib.id: lib for lib in view.libraries}
        return [c for c in cards if _may_review(by_id[c.target_library], reviewer, c.author)]

    async def review(self, card_id: int, reviewer: str, note: str = "") -> Card:
        """inbox -> reviewed."""
        async with self.db.transaction() as conn:
            card = await self._locked(conn, card_id)
            await self._check_reviewer(card, reviewer)
            if card.review_status != CardStatus.inbox.value:
                raise CardError(f"card {card_id} is {card.review_status}; only inbox cards can be marked reviewed")
            updated = await q.mark_reviewed(conn, card_id, reviewer, note)
            await q.insert_card_event(conn, card_id, reviewer, card.review_status, CardStatus.reviewed.value, note)
        knowledge_cards_total.labels(action="reviewed").inc()
        return updated

    async def decide(self, card_id: int, reviewer: str, decision: str, note: str = "") -> Card:
        """reviewed -> promoted (ingested into the target corpus), or inbox / reviewed -> rejected."""
        if decision not in ("promote", "reject"):
            raise CardError(f"decision must be 'promote' or 'reject', got {decision!r}")
        async with self.db.transaction() as conn:
            card = await self._locked(conn, card_id)
            await self._check_reviewer(card, reviewer)
            if decision == "promote":
                if card.review_status != CardStatus.reviewed.value:
                    raise CardError(f"card {card_id} is {card.review_status}; review it before promoting it")
                promoted = (await self._promote(card, reviewer)).chunks_total
                status, allowed_from = CardStatus.promoted.value, (CardStatus.reviewed.value,)
            else:
                if card.review_status not in OPEN_STATUSES:
                    raise CardError(f"card {card_id} is already {card.review_status}")
                promoted, status, allowed_from = 0, CardStatus.rejected.value, OPEN_STATUSES
            inbox = await self.corpora.by_ids([card.inbox_corpus_id]) if card.inbox_corpus_id else []
            if inbox:
                await self.documents.remove(conn, inbox[0], [f"card:{card.id}"])
            updated = await q.mark_decided(conn, card_id, status, reviewer, note, allowed_from, promoted)
            await q.insert_card_event(conn, card_id, reviewer, card.review_status, status, note)
        if inbox:
            await self.documents.finish(inbox[0])
        self.query_cache.clear()
        knowledge_cards_total.labels(action=status).inc()
        return updated

    async def events(self, card_id: int) -> list[dict]:
        async with self.db.connection() as conn:
            return [dict(r) for r in await q.select_card_events(conn, card_id)]

    async def _promote(self, card: Card, reviewer: str) -> IngestReport:
        corpora = await self.corpora.by_ids([card.target_corpus_id])
        if not corpora:
            raise CardError(f"the target corpus of card {card.id} no longer exists")
        source_uri = str(card.metadata.get("source_uri") or f"card:{card.id}")
        report = await self.pipeline.ingest_documents(
            corpora[0], [Document(source_uri=source_uri, text=card.content, title=card.title,
                                  metadata={"title": card.title})],
            extra_metadata={**card.metadata, "card_id": str(card.id), "card_author": card.author,
                            "reviewed_by": card.reviewed_by, "promoted_by": reviewer,
                            "captured_by": card.metadata.get("captured_by", "knowledge_card")})
        return report

    async def _locked(self, conn, card_id: int) -> Card:
        card = await q.select_card(conn, self.app_name, card_id, for_update=True)
        if card is None:
            raise CardError(f"no knowledge card {card_id}")
        return card

    async def _check_reviewer(self, card: Card, reviewer: str) -> None:
        view = await self.access.resolve(reviewer)
        library = next((lib for lib in view.libraries if lib.id == card.target_library), None)
        if library is None:
            raise PermissionError(f"{reviewer} cannot see library {card.target_library!r}, so cannot review card "
                                  f"{card.id}")
        if not _may_review(library, reviewer, card.author):
            who = ", ".join(dict.fromkeys((library.owner, *library.reviewers)))
            raise PermissionError(f"{reviewer} may not review card {card.id} for {library.id!r} (reviewers: {who}; "
                                  "authors never review their own cards)")


def _is_reviewer(library: ContextLibrary, person_id: str) -> bool:
    return person_id == library.owner or person_id in library.reviewers


def _may_review(library: ContextLibrary, reviewer: str, author: str) -> bool:
    return reviewer != author and _is_reviewer(library, reviewer)
