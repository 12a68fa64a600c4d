"""Permission views: which context libraries, and so which corpora, a person may read right now.

Every call re-reads the topology and the corpus list, so a transfer, an archived project or a changed
view takes effect on the next request; nothing here is cached between requests.

Rules (a person sees a library when it is not denied by their view and one of these holds):
* their view grants it explicitly;
* its scope kind is among the view's scopes and they are in its audience: visibility ``private`` -> the
  owner; ``org`` -> everyone; ``scope`` -> the person (personal), the department's current members
  (department), the members of an *active* project (project), everyone (org).
Archived projects give no access through membership or visibility, only through explicit grants.
Everyone also sees their own card inbox (unpromoted knowledge cards); nobody else does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection
from uuid import UUID

from knowledge.context.topology import INBOX_CORPUS_PREFIX, ContextLibrary, LibraryScope, \
    Person, ProjectStatus, ScopeKind, Topology, Visibility
from knowledge.corpora import Corpus, CorpusRegistry

TopologyLoader = Callable[[], Topology]


class UnknownPersonError(LookupError):
    def __init__(self, key: str, known: list[str]) -> None:
        self.key = key
        super().__init__(f"unknown person {key!r}; people in the workspace topology: {', '.join(known) or 'none'}")


@dataclass(frozen=True)
class LibraryGrant:
    library: ContextLibrary
    via: str  # why the person sees it: "grant", "owner", "department platform", "project orion", ...


def inbox_corpus_name(person_id: str) -> str:
    return f"{INBOX_CORPUS_PREFIX}{person_id}"


def inbox_library(person: Person) -> ContextLibrary:
    return ContextLibrary(
        id=f"inbox-{person.id}"[:41], name=f"{person.name}: card inbox",
        description="Knowledge cards this person submitted that are not promoted yet.",
        scope=LibraryScope(kind=ScopeKind.personal, ref=person.id), corpora=(inbox_corpus_name(person.id),),
        owner=person.id, visibility=Visibility.private, sources=("knowledge cards",), owner_confidence=0.5)


def _audience(topology: Topology, library: ContextLibrary, person: Person) -> str | None:
    scope = library.scope
    if scope.kind is ScopeKind.project:
        project = topology.project(scope.ref or "")
        if project is None or project.status is ProjectStatus.archived:
            return None
    if library.visibility is Visibility.private:
        return "owner" if library.owner == person.id else None
    if library.visibility is Visibility.org or scope.kind is ScopeKind.org:
        return "organisation"
    if scope.kind is ScopeKind.personal:
        return "owner" if scope.ref == person.id else None
    if scope.kind is ScopeKind.department:
        return f"department {scope.ref}" if person.department == scope.ref else None
    project = topology.project(scope.ref or "")
    return f"project {scope.ref}" if project is not None and person.id in project.members else None


def person_view(topology: Topology, person_id: str) -> list[LibraryGrant]:
    """The libraries ``person_id`` may read under ``topology``, with the reason for each."""
    person = topology.person(person_id)
    if person is None:
        raise UnknownPersonError(person_id, [p.id for p in topology.people])
    grants = [LibraryGrant(inbox_library(person), "card inbox")]
    view = topology.view_for(person.id)
    if view is None:
        return grants
    denied = set(view.deny)
    for library in topology.context_libraries:
        if library.id in denied:
            continue
        via = "grant" if library.id in view.grant else (
            _audience(topology, library, person) if library.scope.kind in view.scopes else None)
        if via is not None:
            grants.append(LibraryGrant(library, via))
    return grants


def _corpus_library(topology: Topology, corpus: Corpus) -> ContextLibrary:
    """A stand-in library for a corpus no topology library maps (only the local operator sees these)."""
    return ContextLibrary.model_construct(
        id=f"corpus:{corpus.name}", name=corpus.label, description=corpus.description,
        scope=LibraryScope(kind=ScopeKind.org), corpora=(corpus.name,), owner=topology.organization.contact,
        reviewers=(), sources=("corpus",), visibility=Visibility.org, owner_confidence=0.5, task_kinds=())


@dataclass(frozen=True)
class ResolvedView:
    """One request's snapshot: the person (None = the local operator), their libraries and corpora."""

    person: Person | None
    topology: Topology
    grants: tuple[LibraryGrant, ...]
    corpora_by_library: dict[str, tuple[Corpus, ...]]

    @property
    def libraries(self) -> list[ContextLibrary]:
        return [g.library for g in self.grants]

    @property
    def accessible_corpus_ids(self) -> list[UUID]:
        ids = [c.id for g in self.grants for c in self.corpora_by_library.get(g.library.id, ())]
        return list(dict.fromkeys(ids))

    @property
    def accessible_corpora(self) -> list[Corpus]:
        corpora = {c.id: c for g in self.grants for c in self.corpora_by_library.get(g.library.id, ())}
        return list(corpora.values())

    def corpora_of(self, library_id: str) -> tuple[Corpus, ...]:
        return self.corpora_by_library.get(library_id, ())

    def libraries_of_corpus(self, corpus_id: UUID) -> list[ContextLibrary]:
        return [g.library for g in self.grants if any(c.id == corpus_id for c in self.corpora_of(g.library.id))]

    def may_change(self, corpus_id: UUID) -> bool:
        """Documents of a corpus are changed or deleted by the local operator and the owners of a library mapping
        it; readers who are not owners propose knowledge as cards instead."""
        if self.person is None:
            return True
        return any(library.owner == self.person.id for library in self.libraries_of_corpus(corpus_id))

    @property
    def person_id(self) -> str | None:
        return self.person.id if self.person else None

    @property
    def who(self) -> str:
        return self.person.id if self.person else "local operator"


class AccessResolver:
    """Permission views over the current topology (``topology_loader``, called on every request) and the
    corpus table; ``local_operator_users`` are the session users who read as the local operator."""

    def __init__(self, corpora: CorpusRegistry, topology_loader: TopologyLoader,
                 local_operator_users: Collection[str]) -> None:
        self.corpora = corpora
        self._load = topology_loader
        self.local_operator_users = frozenset(local_operator_users)

    def with_topology(self, topology_loader: TopologyLoader) -> "AccessResolver":
        """The same resolver over another topology (the scope evaluation edits copies of it)."""
        return AccessResolver(self.corpora, topology_loader, self.local_operator_users)

    def topology(self) -> Topology:
        return self._load()

    async def _corpora_by_name(self) -> dict[str, Corpus]:
        return {c.name: c for c in await self.corpora.list()}

    async def resolve(self, person_id: str) -> ResolvedView:
        topology = self.topology()
        grants = person_view(topology, person_id)
        corpora = await self._corpora_by_name()
        mapped = {g.library.id: tuple(corpora[n] for n in g.library.corpora if n in corpora) for g in grants}
        return ResolvedView(topology.person(person_id), topology, tuple(grants), mapped)

    async def resolve_operator(self) -> ResolvedView:
        """The local operator (CLI without --as): every corpus except card inboxes, grouped by library."""
        topology = self.topology()
        corpora = await self._corpora_by_name()
        grants = [LibraryGrant(lib, "operator") for lib in topology.context_libraries]
        mapped_names = {n for lib in topology.context_libraries for n in lib.corpora}
        grants += [LibraryGrant(_corpus_library(topology, c), "operator") for name, c in corpora.items()
                   if name not in mapped_names and not name.startswith(INBOX_CORPUS_PREFIX)]
        mapped = {g.library.id: tuple(corpora[n] for n in g.library.corpora if n in corpora) for g in grants}
        return ResolvedView(None, topology, tuple(grants), mapped)

    async def resolve_user(self, user_id: str) -> ResolvedView:
        """The view of an agent / AG-UI session user: a person (by id, email or listed user id), or the local
        operator for the ``local_operator_users`` setting. Unknown users raise UnknownPersonError (fail closed)."""
        if user_id in self.local_operator_users:
            return await self.resolve_operator()
        return await self.resolve(self.person_for_user(user_id).id)

    def person_for_user(self, user_id: str) -> Person:
        topology = self.topology()
        person = topology.person_for_user(user_id)
        if person is None:
            raise UnknownPersonError(user_id, [p.id for p in topology.people])
        return person

    async def accessible_corpus_ids(self, person_id: str) -> list[UUID]:
        return (await self.resolve(person_id)).accessible_corpus_ids

    async def visible_libraries(self, person_id: str) -> list[ContextLibrary]:
        return [g.library for g in person_view(self.topology(), person_id)]
