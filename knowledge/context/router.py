"""Context Router (docs/design.md section 8): when a request names no corpus, pick the minimal sufficient set of
1-3 libraries from the person's permission view instead of searching everything.

Inputs: the person's view (fresh every request), the task kind (given, or from the topology's task cues),
the entities in the query (offline extractor + the graph entities of the visible corpora) and a cheap probe:
a top-3 search of each visible library through the permission guard. Each library gets

    total = w_rel * relevance + w_fresh * freshness + w_owner * owner_confidence + w_task * task_fit
            + routing-rule boosts - w_cost * cost

where relevance mixes the probe (best similarity of the guard-verified hits), the library description and
entity matches; freshness halves every ``freshness_half_life_days`` since the corpus last changed; cost is
the library's size (log chunk count, relative). The best library is always taken; another (with probe
evidence) joins only when it holds a query entity or two query terms the chosen ones miss, or one missing term
while almost as relevant. A connective question (relation, multi-hop, comparison) gets a second library so
the planner's graph expansion can follow entity bridges. Thin evidence, or a rule pointing at a library outside
the view, gives a knowledge gap naming the owner to ask. Only topology metadata (never content) of invisible
libraries is used for that.
"""
from __future__ import annotations

import asyncio
import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterable, Mapping, Sequence
from uuid import UUID

import numpy as np

from config.settings import RouterSettings
from knowledge import offload
from knowledge.context.connectors import SearchConnector
from knowledge.context.gap import KnowledgeGap
from knowledge.context.guard import GuardedResult, PermissionGuard
from knowledge.context.permissions import AccessResolver, ResolvedView
from knowledge.context.search_report import SearchReport
from knowledge.context.topology import ContextLibrary, RoutingRule, ScopeKind, Topology, Visibility
from knowledge.corpora import CorpusRegistry, resolve_names
from knowledge.db.database import Database
from knowledge.db.queries import context as context_queries
from knowledge.retrieval.embedding_spaces import EmbeddingSpaces, read_spaces
from knowledge.graph.extraction import OfflineExtractor
from knowledge.ingest.segmentation import segment_for_search
from knowledge.metrics import context_knowledge_gaps_total, context_routed_libraries
from knowledge.names import normalize_name
from knowledge.pg_text import clean_text
from knowledge.retrieval.query_intent import classify_query, needs_graph_expansion
from knowledge.retrieval.results import RetrievalResponse, SearchHit

DEFAULT_TASK_KIND = "question"
_ENTITY_BONUS = 0.05
_MAX_ENTITY_BONUS = 0.1
_NEW_TERMS_TO_JOIN = 2
_BRIDGE_EVIDENCE_HITS = 2  # best probe hits per chosen library whose entities may lead to another library
_BRIDGE_MIN_DEGREE = 2     # relations an entity needs in a library for that library to be "about" it
_NOT_BRIDGES = frozenset({"CONCEPT"})  # entity types too generic to lead from one library's evidence to another
# description fit a library must reach before a gap names its owner (outside / inside the view)
_HIDDEN_PROFILE_FIT = 0.35
_VISIBLE_PROFILE_FIT = 0.2
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9\-]*[a-z0-9]")
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_STOPWORDS = frozenset(
    "the and for are was were what which who whom whose when where why how does did do has have had with from "
    "that this these those our your their its into onto about over under than then there here they them you "
    "can could should would will may might must shall any all some each every many much more most other such "
    "only own same also just not nor but out off again once very too use used using is it of to in on at by "
    "an a or be been being as if so up me my mine we us i during note notes done tell know give find show".split())
_ZH_STOPWORDS = frozenset(
    "什么 哪些 哪个 怎么 如何 为什么 是否 多少 我们 他们 你们 这个 那个 一个 没有 可以 通过".split())


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold()


def query_terms(query: str) -> frozenset[str]:
    """Content words of a query (English words of 3+ letters, Chinese words of 2+ characters)."""
    text = _fold(query)
    terms = {w for w in _WORD_RE.findall(text) if len(w) >= 3 and w not in _STOPWORDS}
    if _CJK_RE.search(text):
        terms |= {w for w in segment_for_search(text).split()
                  if len(w) >= 2 and _CJK_RE.search(w) and w not in _ZH_STOPWORDS}
    return frozenset(terms)


def classify_task(query: str, topology: Topology) -> str:
    """The topology task kind with the most cue hits (ties: first listed); none -> "question"."""
    text = _fold(query)
    best, best_hits = DEFAULT_TASK_KIND, 0
    for task in topology.tasks:
        hits = sum(1 for cue in task.cues if _cue_in(_fold(cue), text))
        if hits > best_hits:
            best, best_hits = task.kind, hits
    return best


def _cue_in(cue: str, text: str) -> bool:
    if _CJK_RE.search(cue):
        return cue in text
    return re.search(rf"(?<![a-z0-9]){re.escape(cue)}(?![a-z0-9])", text) is not None


def rule_matches(rule: RoutingRule, task_kind: str, query: str) -> bool:
    text = _fold(query)
    squashed = normalize_name(query)
    if rule.task_kind is not None and rule.task_kind != task_kind:
        return False
    if rule.keywords and not any(_cue_in(_fold(k), text) for k in rule.keywords):
        return False
    if rule.entities and not any(normalize_name(e) and normalize_name(e) in squashed for e in rule.entities):
        return False
    return True


def rule_prefers(rule: RoutingRule, library: ContextLibrary) -> bool:
    return library.id in rule.prefer or library.scope.kind in rule.prefer_scopes


@dataclass
class LibraryScore:
    library: ContextLibrary
    via: str
    corpus_ids: tuple[UUID, ...]
    chunk_count: int
    probe: float = 0.0
    description: float = 0.0
    entities: tuple[str, ...] = ()
    task_fit: float = 0.0
    rules: tuple[str, ...] = ()
    rule_boost: float = 0.0
    freshness: float = 0.0
    cost: float = 0.0
    relevance: float = 0.0
    total: float = 0.0
    covered_terms: frozenset[str] = frozenset()
    probe_hits: list[SearchHit] = field(default_factory=list)
    bridge_probe: float = 0.0  # probe of the question plus the bridge entities that brought this library in
    reason: str = ""  # why it was selected (or left out)


@dataclass
class RoutingDecision:
    who: str
    query: str
    task_kind: str
    entities: tuple[str, ...]
    candidates: list[LibraryScore]
    selected: list[LibraryScore]
    gap: KnowledgeGap | None = None

    @property
    def corpus_ids(self) -> list[UUID]:
        return list(dict.fromkeys(c for s in self.selected for c in s.corpus_ids))

    @property
    def library_ids(self) -> list[str]:
        return [s.library.id for s in self.selected]


@dataclass
class ContextSearchResult:
    hits: list[SearchHit]
    view: ResolvedView
    guarded: GuardedResult
    decision: RoutingDecision | None = None  # None when the request named its corpora
    gap: KnowledgeGap | None = None

    def libraries_of(self, hit: SearchHit) -> list[ContextLibrary]:
        return self.view.libraries_of_corpus(hit.corpus_id)

    @property
    def response(self) -> RetrievalResponse:
        """The guard-checked retrieval response (hits, bridges, trace) for tools and the CLI."""
        if self.guarded.response is not None:
            return self.guarded.response
        return RetrievalResponse(hits=self.hits, mode=self.guarded.connector,
                                 rejected_corpus_ids=list(self.guarded.rejected_corpus_ids))

    def report(self) -> SearchReport:
        """What `negentropy search` shows of this result (in-process, or sent by `negentropy serve`)."""
        return SearchReport(self.view.who, self.hits, self.response.fallback_reason, self.gap)

    def routing_notes(self) -> dict[str, object]:
        """What a tool result says about routing: the libraries searched and any knowledge gap."""
        notes: dict[str, object] = {}
        if self.decision is not None:
            notes["routed_libraries"] = [{"id": s.library.id, "name": s.library.name, "reason": s.reason}
                                         for s in self.decision.selected]
            notes["task_kind"] = self.decision.task_kind
        if self.gap is not None:
            notes["knowledge_gap"] = self.gap.to_dict()
        return notes


def _cosine_max(query: np.ndarray, vectors: Iterable[np.ndarray]) -> float:
    sims = [float(np.dot(query, v) / ((np.linalg.norm(query) * np.linalg.norm(v)) or 1.0)) for v in vectors]
    return max(sims, default=0.0)


class ContextRouter:
    def __init__(self, *, db: Database, corpora: CorpusRegistry, spaces: EmbeddingSpaces, settings: RouterSettings,
                 access: AccessResolver, connector: SearchConnector) -> None:
        """Library descriptions are embedded with the configured model (NE_EMBEDDING_MODEL) and compared with the
        question in its space; evidence chunks with the question in their corpus's model's space."""
        self.db = db
        self.corpora = corpora
        self.spaces = spaces
        self.query_cache = spaces.queries(spaces.settings.embedding_model)
        self.access = access
        self.settings = settings
        self.guard = PermissionGuard(db, connector)
        self._extractor = OfflineExtractor()
        # library descriptions from the topology (metadata only, no corpus content) -> embedding
        self._profile_vectors: dict[str, np.ndarray] = {}

    def with_connector(self, connector: SearchConnector) -> "ContextRouter":
        return self._rewired(self.access, connector)

    def with_access(self, access: AccessResolver) -> "ContextRouter":
        return self._rewired(access, self.guard.connector)

    def _rewired(self, access: AccessResolver, connector: SearchConnector) -> "ContextRouter":
        return ContextRouter(db=self.db, corpora=self.corpora, spaces=self.spaces, settings=self.settings,
                             access=access, connector=connector)

    # ------------------------------------------------------------------ entry points
    async def view_for(self, person_id: str | None) -> ResolvedView:
        return await (self.access.resolve(person_id) if person_id else self.access.resolve_operator())

    async def search(self, query: str, *, person_id: str | None, corpus_names: Sequence[str] = (),
                     limit: int = 10, task_kind: str | None = None, strict_scope: bool = False) -> ContextSearchResult:
        """Search as ``person_id`` (None: the local operator): the named corpora, or the routed libraries."""
        view = await self.view_for(person_id)
        # Named corpora resolve among the readable ones only: a forbidden corpus reads like an unknown one.
        requested = ([c.id for c in resolve_names(view.accessible_corpora, corpus_names, reader=view.who)]
                     if corpus_names else None)
        return await self.search_view(query, view, requested, limit=limit, task_kind=task_kind,
                                      strict_scope=strict_scope)

    async def search_as_user(self, query: str, user_id: str, corpus_ids: Sequence[object] | None = None, *,
                             limit: int = 10, strict_scope: bool = False) -> ContextSearchResult:
        """Search as an agent / AG-UI session user (mapped to a person of the topology)."""
        view = await self.access.resolve_user(user_id)
        return await self.search_view(query, view, corpus_ids, limit=limit, strict_scope=strict_scope)

    async def search_view(self, query: str, view: ResolvedView, corpus_ids: Sequence[object] | None = None, *,
                          limit: int = 10, task_kind: str | None = None,
                          strict_scope: bool = False) -> ContextSearchResult:
        """``corpus_ids`` given: search them (∩ the view). None: route first, then search the chosen libraries."""
        query = clean_text(query).text  # the routing probes and gap lookups run SQL on it
        accessible = view.accessible_corpus_ids
        decision = None
        if corpus_ids is None:
            decision = await self.route(query, view, task_kind)
            corpus_ids = decision.corpus_ids
        guarded = await self.guard.search(query, corpus_ids, accessible, limit=limit, strict_scope=strict_scope,
                                          person_id=view.person_id)
        gap = decision.gap if decision else await self._gap_in_named(query, view, guarded)
        if gap is not None:
            context_knowledge_gaps_total.labels(reason=gap.reason).inc()
        return ContextSearchResult(guarded.hits, view, guarded, decision, gap)

    # ------------------------------------------------------------------ routing
    async def route(self, query: str, view: ResolvedView, task_kind: str | None = None) -> RoutingDecision:
        topology = view.topology
        task = task_kind or classify_task(query, topology)
        entities = tuple(dict.fromkeys(e.name for e in self._extractor.extract(query).entities))
        candidates = [LibraryScore(g.library, g.via, tuple(c.id for c in view.corpora_of(g.library.id)), 0)
                      for g in view.grants if view.corpora_of(g.library.id)]
        if not candidates:
            contact = topology.person(topology.organization.contact)
            gap = KnowledgeGap("no_library", f"{view.who} can read no library with content",
                               topology.organization.contact, contact.name if contact else "")
            context_routed_libraries.observe(0)
            return RoutingDecision(view.who, query, task, entities, [], [], gap)
        accessible = view.accessible_corpus_ids
        query_vector = await self.query_cache.embed(query)
        stats, entity_hits, probes, profiles = await asyncio.gather(
            self._stats(accessible), self._entity_matches(accessible, entities),
            asyncio.gather(*(self.guard.search(query, c.corpus_ids, accessible, limit=self.settings.probe_limit,
                                               strict_scope=True, person_id=view.person_id) for c in candidates)),
            self._profiles([c.library for c in candidates]))
        terms = query_terms(query)
        rules = [r for r in topology.routing_rules if rule_matches(r, task, query)]
        largest = max((sum(stats.get(i, (0, None))[0] for i in c.corpus_ids) for c in candidates), default=0)
        for candidate, probe in zip(candidates, probes):
            own = set(candidate.corpus_ids)
            candidate.probe_hits = [h for h in probe.hits if h.corpus_id in own]
        similarities = await asyncio.gather(*(self._evidence_similarity(query, c.probe_hits, p.embeddings)
                                              for c, p in zip(candidates, probes)))
        for candidate, similarity, profile in zip(candidates, similarities, profiles):
            self._score(candidate, similarity, profile, query_vector, stats, entity_hits, terms, task, rules,
                        largest)
        candidates.sort(key=lambda c: (-c.total, c.library.id))
        selected = self._select(candidates)
        if len(selected) < self.settings.max_libraries and needs_graph_expansion(classify_query(query), 2):
            await self._follow_evidence_entities(candidates, selected, view, query, entities)
            if len(selected) == 1:
                self._add_second_for_bridges(candidates, selected)
        context_routed_libraries.observe(len(selected))
        gap = await self._gap_for(view, candidates, task, rules, query_vector)
        return RoutingDecision(view.who, query, task, entities, candidates, selected, gap)

    async def _evidence_similarity(self, query: str, hits: Sequence[SearchHit],
                                   embeddings: Mapping[int, np.ndarray]) -> float:
        """The best cosine of the question with the hits' chunks, each in the space of its corpus's model."""
        if not hits:
            return 0.0
        spaces = await read_spaces(self.db, list(dict.fromkeys(h.corpus_id for h in hits)))
        best = 0.0
        for hit in hits:
            if hit.corpus_id in spaces and hit.chunk_id in embeddings:
                question = await self.spaces.queries(spaces[hit.corpus_id].model).embed(query)
                best = max(best, _cosine_max(question, [embeddings[hit.chunk_id]]))
        return best

    def _score(self, c: LibraryScore, probe_similarity: float, profile: np.ndarray, query_vector: np.ndarray,
               stats: dict[UUID, tuple[int, datetime | None]], entity_hits: dict[UUID, list[str]],
               terms: frozenset[str], task: str, rules: list[RoutingRule], largest: int) -> None:
        s = self.settings
        c.probe = probe_similarity
        c.description = _cosine_max(query_vector, [profile])
        c.entities = tuple(dict.fromkeys(n for i in c.corpus_ids for n in entity_hits.get(i, [])))
        c.relevance = 0.8 * c.probe + 0.2 * c.description + min(_ENTITY_BONUS * len(c.entities), _MAX_ENTITY_BONUS)
        text = " ".join(_fold(h.content) for h in c.probe_hits)
        c.covered_terms = frozenset(t for t in terms if t in text)
        c.chunk_count = sum(stats.get(i, (0, None))[0] for i in c.corpus_ids)
        c.cost = math.log1p(c.chunk_count) / math.log1p(largest) if largest else 0.0
        changed = [stats[i][1] for i in c.corpus_ids if i in stats and stats[i][1] is not None]
        if changed:
            age_days = max((datetime.now(timezone.utc) - max(changed)).total_seconds() / 86400, 0.0)
            c.freshness = 0.5 ** (age_days / s.freshness_half_life_days)
        c.task_fit = 1.0 if task in c.library.task_kinds else (0.5 if not c.library.task_kinds else 0.0)
        matched = [r for r in rules if rule_prefers(r, c.library)]
        c.rules = tuple(r.id for r in matched)
        c.rule_boost = sum(r.boost for r in matched)
        c.total = (s.relevance_weight * c.relevance + s.freshness_weight * c.freshness
                   + s.owner_confidence_weight * c.library.owner_confidence + s.task_fit_weight * c.task_fit
                   + c.rule_boost - s.cost_weight * c.cost)

    def _select(self, ranked: list[LibraryScore]) -> list[LibraryScore]:
        """The best library, plus others only while they add something the chosen ones lack."""
        s = self.settings
        best = ranked[0]
        best.reason = "best score"
        selected = [best]
        covered = set(best.covered_terms)
        entities = {normalize_name(e) for e in best.entities}
        for c in ranked[1:]:
            new_terms = c.covered_terms - covered
            new_entities = {normalize_name(e) for e in c.entities} - entities
            if len(selected) >= s.max_libraries:
                c.reason = f"limit of {s.max_libraries} libraries"
                continue
            if c.probe < s.min_relevance:
                c.reason = "thin probe evidence"
                continue
            if new_entities:
                c.reason = f"holds query entities the others lack: {', '.join(sorted(new_entities))}"
            elif len(new_terms) >= _NEW_TERMS_TO_JOIN:
                c.reason = f"covers query terms the others lack: {', '.join(sorted(new_terms))}"
            elif new_terms and c.relevance >= best.relevance - s.relevance_margin:
                c.reason = f"almost as relevant, and covers {', '.join(sorted(new_terms))}"
            else:
                c.reason = "not needed: the chosen libraries already cover the query"
                continue
            selected.append(c)
            covered |= c.covered_terms
            entities |= new_entities
        return selected

    async def _follow_evidence_entities(self, ranked: list[LibraryScore], selected: list[LibraryScore],
                                        view: ResolvedView, query: str, query_entities: tuple[str, ...]) -> None:
        """A connective question asks about an entity it only describes ("the vendor the Atlas team picked"): the
        chosen libraries' best evidence names it ("Cobalt Systems"), and the answer about it may sit in another
        library that looks nothing like the question. Every other library whose graph holds an entity named by
        that evidence (and not by the question itself) joins, most such entities first, up to the limit. The
        library must say something about the entity (two relations or more there), not merely name it once."""
        evidence_chunks = [h.chunk_id for c in selected for h in c.probe_hits[:_BRIDGE_EVIDENCE_HITS]]
        others = [c for c in ranked if c not in selected]
        if not evidence_chunks or not others:
            return
        accessible = view.accessible_corpus_ids
        async with self.db.scoped(accessible) as conn:
            named = await context_queries.select_chunk_entities(conn, accessible, evidence_chunks)
        asked = [normalize_name(query)] + [normalize_name(e) for e in query_entities]
        bridges = {r["name_normalized"]: r["canonical_name"] for r in named
                   if r["entity_type"] not in _NOT_BRIDGES and len(r["name_normalized"]) >= 3
                   and not any(r["name_normalized"] in a or (a and a in r["name_normalized"]) for a in asked[1:])
                   and r["name_normalized"] not in asked[0]}
        if not bridges:
            return
        held = await self._entity_matches([i for c in others for i in c.corpus_ids], tuple(bridges.values()),
                                          _BRIDGE_MIN_DEGREE)
        scored = []
        for c in others:
            names = sorted({n for i in c.corpus_ids for n in held.get(i, [])})
            if names:
                scored.append((len(names), c.total, c, names))
        joined = []
        for _, _, c, names in sorted(scored, key=lambda item: (-item[0], -item[1], item[2].library.id)):
            if len(selected) >= self.settings.max_libraries:
                break
            selected.append(c)
            joined.append((c, names))
        await asyncio.gather(*(self._probe_bridge(c, names, query, view) for c, names in joined))

    async def _probe_bridge(self, c: LibraryScore, names: list[str], query: str, view: ResolvedView) -> None:
        """The second hop's probe: the question with the bridge entities named, in the library that holds them."""
        hop_query = f"{query} {' '.join(names)}"
        probe = await self.guard.search(hop_query, c.corpus_ids, view.accessible_corpus_ids,
                                        limit=self.settings.probe_limit, strict_scope=True, person_id=view.person_id)
        own = set(c.corpus_ids)
        c.bridge_probe = await self._evidence_similarity(hop_query, [h for h in probe.hits if h.corpus_id in own],
                                                         probe.embeddings)
        c.reason = (f"connective question: holds {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}, named "
                    f"by the chosen libraries' best evidence (probe with them {c.bridge_probe:.2f})")

    def _add_second_for_bridges(self, ranked: list[LibraryScore], selected: list[LibraryScore]) -> None:
        """A connective question (relation, multi-hop, comparison) routed to one library gets the next library
        with evidence too: the planner expands over entity bridges only when it searches two or more corpora,
        and its expansion may then reach every accessible corpus (as graph-expanded evidence)."""
        second = next((c for c in ranked if c not in selected and c.probe >= self.settings.min_relevance), None)
        if second is not None:
            second.reason = "connective question: a second library lets graph expansion follow entity bridges"
            selected.append(second)

    # ------------------------------------------------------------------ knowledge gaps
    def _hidden(self, view: ResolvedView) -> list[ContextLibrary]:
        """Libraries outside a person's view that a gap may name (never personal or private ones)."""
        if view.person is None:
            return []
        visible = {g.library.id for g in view.grants}
        return [lib for lib in view.topology.context_libraries if lib.id not in visible and _shareable(lib)]

    async def _gap_for(self, view: ResolvedView, ranked: list[LibraryScore], task: str, rules: list[RoutingRule],
                       query_vector: np.ndarray) -> KnowledgeGap | None:
        hidden = self._hidden(view)
        for rule in rules:
            for library in hidden:
                if rule_prefers(rule, library):
                    return self._gap(view.topology, "no_access", library,
                                     f"{library.name} is where {task} requests like this are answered, but "
                                     f"{view.who} cannot read it")
        best = ranked[0]
        evidence = max([best.probe] + [c.bridge_probe for c in ranked])
        if evidence >= self.settings.min_relevance:
            return None
        return await self._gap_thin(view, best.library, best.description, hidden, query_vector, evidence)

    async def _gap_in_named(self, query: str, view: ResolvedView, guarded: GuardedResult) -> KnowledgeGap | None:
        """Thin evidence in the corpora a request named itself."""
        if not guarded.searched_corpus_ids:
            return None
        query_vector = await self.query_cache.embed(query)
        evidence = await self._evidence_similarity(query, [h for h in guarded.hits if h.chunk_id in guarded.embeddings],
                                                   guarded.embeddings)
        if evidence >= self.settings.min_relevance:
            return None
        libraries = view.libraries_of_corpus(guarded.searched_corpus_ids[0])
        library = libraries[0] if libraries else None
        fit = _cosine_max(query_vector, await self._profiles([library])) if library else 0.0
        return await self._gap_thin(view, library, fit, self._hidden(view), query_vector, evidence)

    async def _gap_thin(self, view: ResolvedView, closest: ContextLibrary | None, closest_fit: float,
                        hidden: list[ContextLibrary], query_vector: np.ndarray, evidence: float) -> KnowledgeGap:
        """Whom to ask when the readable libraries hold little: the owner of a library outside the view whose
        description fits better (metadata only, never content), else the owner of the closest readable library
        if its description fits at all, else the organisation's contact."""
        topology = view.topology
        message = (f"thin evidence (best similarity {evidence:.2f} < {self.settings.min_relevance:.2f}) in the "
                   f"libraries {view.who} can read")
        if hidden:
            fits = [_cosine_max(query_vector, [v]) for v in await self._profiles(hidden)]
            fit, library = max(zip(fits, hidden), key=lambda pair: pair[0])
            if fit >= _HIDDEN_PROFILE_FIT and fit > closest_fit:
                return self._gap(topology, "no_access", library,
                                 f"{message}; {library.name} looks like the place for it, but {view.who} cannot "
                                 "read it")
        if closest is not None and closest_fit >= _VISIBLE_PROFILE_FIT and closest.scope.kind is not ScopeKind.personal:
            return self._gap(topology, "thin_evidence", closest, f"{message}; closest: {closest.name}")
        contact = topology.person(topology.organization.contact)
        return KnowledgeGap("thin_evidence", f"{message}; no library covers this topic", topology.organization.contact,
                            contact.name if contact else topology.organization.contact)

    @staticmethod
    def _gap(topology: Topology, reason: str, library: ContextLibrary, message: str) -> KnowledgeGap:
        owner_id = library.owner if topology.person(library.owner) else topology.organization.contact
        owner = topology.person(owner_id)
        return KnowledgeGap(reason, message, owner_id, owner.name if owner else owner_id, library.id, library.name)

    # ------------------------------------------------------------------ data for scoring
    async def _stats(self, corpus_ids: list[UUID]) -> dict[UUID, tuple[int, datetime | None]]:
        async with self.db.scoped(corpus_ids) as conn:
            rows = await context_queries.select_corpus_stats(conn, corpus_ids)
        return {r["id"]: (r["chunk_count"], r["updated_at"]) for r in rows}

    async def _entity_matches(self, corpus_ids: list[UUID], entities: tuple[str, ...],
                              min_degree: int = 0) -> dict[UUID, list[str]]:
        keys = [k for k in dict.fromkeys(normalize_name(e) for e in entities) if k]
        if not keys:
            return {}
        async with self.db.scoped(corpus_ids) as conn:
            rows = await context_queries.select_entity_matches(conn, corpus_ids, keys, min_degree)
        return {r["corpus_id"]: list(r["names"]) for r in rows}

    async def _profiles(self, libraries: list[ContextLibrary]) -> list[np.ndarray]:
        missing = [lib.profile_text for lib in libraries if lib.profile_text not in self._profile_vectors]
        if missing:
            vectors = await offload.interactive(self.query_cache.embedder.embed, list(dict.fromkeys(missing)))
            self._profile_vectors.update(zip(dict.fromkeys(missing), vectors))
        return [self._profile_vectors[lib.profile_text] for lib in libraries]


def _shareable(library: ContextLibrary) -> bool:
    """May the router name this library to someone who cannot read it? Not personal or private ones."""
    return library.scope.kind is not ScopeKind.personal and library.visibility is not Visibility.private
