"""Workspace topology: organisation -> departments -> people -> projects -> tasks -> context libraries ->
routing rules -> permission views, as one JSON file validated here.

A context library maps to one or more corpora and has a scope (personal / department / project / org),
an owner, sources and a visibility. A permission view says which scope kinds and which extra libraries a
person may see. ``load_topology`` reads the file on every call, so an edit takes effect on the next request.
"""
from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, \
    model_validator

from config import get_settings
from knowledge.corpora import validate_corpus_name

DEMO_TOPOLOGY_PATH = Path(__file__).resolve().parents[2] / "demo" / "topology.json"
# Corpora named inbox_<person> hold a person's unpromoted knowledge cards; libraries may not map them.
INBOX_CORPUS_PREFIX = "inbox_"
# The user id of the local operator (CLI without --as, AG-UI without sign-in); no person may use it.
LOCAL_OPERATOR_USER = "local"

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_\-]{0,40}$")]


class ScopeKind(str, Enum):
    personal = "personal"
    department = "department"
    project = "project"
    org = "org"


class Visibility(str, Enum):
    private = "private"  # the owner and people whose view grants it
    scope = "scope"      # everyone in the library's scope (owner / department / active project / organisation)
    org = "org"          # everyone in the organisation


class ProjectStatus(str, Enum):
    active = "active"
    archived = "archived"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Organization(_Model):
    id: Slug
    name: str
    contact: Slug = Field(description="person to ask when no library covers a topic")


class Department(_Model):
    id: Slug
    name: str
    head: Slug | None = None


class Person(_Model):
    id: Slug
    name: str
    department: Slug
    title: str = ""
    email: str | None = None
    user_ids: tuple[str, ...] = Field(default=(), description="agent / AG-UI user ids that are this person")


class Project(_Model):
    id: Slug
    name: str
    description: str = ""
    department: Slug
    lead: Slug
    members: tuple[Slug, ...]
    status: ProjectStatus = ProjectStatus.active


class TaskKind(_Model):
    kind: Slug
    description: str = ""
    cues: tuple[str, ...] = Field(default=(), description="words that mark a request as this kind of task")


class LibraryScope(_Model):
    kind: ScopeKind
    ref: Slug | None = Field(default=None, description="person, department or project id; none for org")

    @model_validator(mode="after")
    def _ref_matches_kind(self) -> "LibraryScope":
        if self.kind is ScopeKind.org and self.ref is not None:
            raise ValueError("an org scope takes no ref")
        if self.kind is not ScopeKind.org and self.ref is None:
            raise ValueError(f"a {self.kind.value} scope needs a ref")
        return self


class ContextLibrary(_Model):
    id: Slug
    name: str
    description: str = ""
    scope: LibraryScope
    corpora: tuple[str, ...] = Field(min_length=1)
    owner: Slug
    reviewers: tuple[Slug, ...] = ()
    sources: tuple[str, ...] = ()
    visibility: Visibility = Visibility.scope
    owner_confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    task_kinds: tuple[Slug, ...] = ()

    @field_validator("corpora")
    @classmethod
    def _corpus_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(validate_corpus_name(n) for n in names)

    @property
    def profile_text(self) -> str:
        return f"{self.name}. {self.description}".strip()


class RoutingRule(_Model):
    id: Slug
    task_kind: Slug | None = None
    keywords: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    prefer: tuple[Slug, ...] = ()
    prefer_scopes: tuple[ScopeKind, ...] = ()
    boost: float = Field(default=0.15, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _has_condition_and_effect(self) -> "RoutingRule":
        if self.task_kind is None and not self.keywords and not self.entities:
            raise ValueError("a routing rule needs a task_kind, keywords or entities")
        if not self.prefer and not self.prefer_scopes:
            raise ValueError("a routing rule needs prefer (library ids) or prefer_scopes")
        return self


class PermissionView(_Model):
    person: Slug
    scopes: tuple[ScopeKind, ...] = tuple(ScopeKind)
    grant: tuple[Slug, ...] = ()
    deny: tuple[Slug, ...] = ()


class Topology(_Model):
    version: Literal[1] = 1
    organization: Organization
    departments: tuple[Department, ...] = Field(min_length=1)
    people: tuple[Person, ...] = Field(min_length=1)
    projects: tuple[Project, ...] = ()
    tasks: tuple[TaskKind, ...] = ()
    context_libraries: tuple[ContextLibrary, ...] = ()
    routing_rules: tuple[RoutingRule, ...] = ()
    permission_views: tuple[PermissionView, ...] = ()

    @model_validator(mode="after")
    def _references_resolve(self) -> "Topology":
        problems = integrity_problems(self)
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def person(self, person_id: str) -> Person | None:
        return next((p for p in self.people if p.id == person_id), None)

    def person_for_user(self, user_id: str) -> Person | None:
        """The person an agent / AG-UI user id belongs to: by person id, email or listed user id."""
        key = user_id.strip()
        folded = key.casefold()
        for person in self.people:
            if key == person.id or key in person.user_ids or (person.email and folded == person.email.casefold()):
                return person
        return None

    def department(self, department_id: str) -> Department | None:
        return next((d for d in self.departments if d.id == department_id), None)

    def project(self, project_id: str) -> Project | None:
        return next((p for p in self.projects if p.id == project_id), None)

    def library(self, library_id: str) -> ContextLibrary | None:
        return next((lib for lib in self.context_libraries if lib.id == library_id), None)

    def view_for(self, person_id: str) -> PermissionView | None:
        return next((v for v in self.permission_views if v.person == person_id), None)

    def libraries_of_corpus(self, corpus_name: str) -> list[ContextLibrary]:
        return [lib for lib in self.context_libraries if corpus_name in lib.corpora]


def _duplicates(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for value in values:
        if value in seen and value not in repeated:
            repeated.append(value)
        seen.add(value)
    return repeated


def integrity_problems(t: Topology) -> list[str]:
    """Every dangling reference and duplicate id; a topology with any of these does not load."""
    problems: list[str] = []
    for label, ids in (("department", [d.id for d in t.departments]), ("person", [p.id for p in t.people]),
                       ("project", [p.id for p in t.projects]), ("task kind", [k.kind for k in t.tasks]),
                       ("library", [lib.id for lib in t.context_libraries]),
                       ("routing rule", [r.id for r in t.routing_rules]),
                       ("permission view for person", [v.person for v in t.permission_views])):
        problems += [f"duplicate {label} id {dup!r}" for dup in _duplicates(ids)]
    people = {p.id for p in t.people}
    departments = {d.id for d in t.departments}
    projects = {p.id for p in t.projects}
    kinds = {k.kind for k in t.tasks}
    libraries = {lib.id for lib in t.context_libraries}

    def need(kind: str, value: str | None, known: set[str], where: str) -> None:
        if value is not None and value not in known:
            problems.append(f"{where}: unknown {kind} {value!r}")

    need("person", t.organization.contact, people, "organization.contact")
    for d in t.departments:
        need("person", d.head, people, f"departments[{d.id}].head")
    for p in t.people:
        need("department", p.department, departments, f"people[{p.id}].department")
    problems += [f"people[{p.id}]: {LOCAL_OPERATOR_USER!r} is reserved for the local operator"
                 for p in t.people if LOCAL_OPERATOR_USER in (p.id, *p.user_ids)]
    problems += [f"user id {u!r} is listed for more than one person"
                 for u in _duplicates([u for p in t.people for u in dict.fromkeys(p.user_ids)])]
    for p in t.projects:
        need("department", p.department, departments, f"projects[{p.id}].department")
        for member in p.members:
            need("person", member, people, f"projects[{p.id}].members")
        if p.lead not in p.members:
            problems.append(f"projects[{p.id}].lead {p.lead!r} must be one of the members")
    scope_refs = {ScopeKind.personal: ("person", people), ScopeKind.department: ("department", departments),
                  ScopeKind.project: ("project", projects)}
    for lib in t.context_libraries:
        where = f"context_libraries[{lib.id}]"
        if lib.scope.kind in scope_refs:
            kind, known = scope_refs[lib.scope.kind]
            need(kind, lib.scope.ref, known, f"{where}.scope.ref")
        need("person", lib.owner, people, f"{where}.owner")
        if lib.scope.kind is ScopeKind.personal and lib.owner != lib.scope.ref:
            problems.append(f"{where}: a personal library is owned by its person ({lib.scope.ref!r})")
        for reviewer in lib.reviewers:
            need("person", reviewer, people, f"{where}.reviewers")
        for kind in lib.task_kinds:
            need("task kind", kind, kinds, f"{where}.task_kinds")
        problems += [f"{where}.corpora: {name!r} is reserved for card inboxes ({INBOX_CORPUS_PREFIX}<person>)"
                     for name in lib.corpora if name.startswith(INBOX_CORPUS_PREFIX)]
    for r in t.routing_rules:
        need("task kind", r.task_kind, kinds, f"routing_rules[{r.id}].task_kind")
        for lib_id in r.prefer:
            need("library", lib_id, libraries, f"routing_rules[{r.id}].prefer")
    for v in t.permission_views:
        need("person", v.person, people, f"permission_views[{v.person}].person")
        for lib_id in (*v.grant, *v.deny):
            need("library", lib_id, libraries, f"permission_views[{v.person}]")
    return problems


class TopologyError(ValueError):
    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        listed = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid workspace topology {source}:\n{listed}")


def _validation_problems(error: ValidationError) -> list[str]:
    problems: list[str] = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"])
        cause = item.get("ctx", {}).get("error")
        lines = str(cause).split("\n") if item["type"] == "value_error" and cause is not None else [item["msg"]]
        problems += [f"{where}: {line}" if where else line for line in lines]
    return problems


def parse_topology(data: Any, source: str = "topology") -> Topology:
    try:
        return Topology.model_validate(data)
    except ValidationError as exc:
        raise TopologyError(source, _validation_problems(exc)) from None


def topology_path(path: Path | str | None = None) -> Path:
    """The file to read: ``path``, else NE_TOPOLOGY_PATH, else the shipped demo topology."""
    chosen = path or get_settings().topology_path or DEMO_TOPOLOGY_PATH
    return Path(chosen).expanduser()


def load_topology(path: Path | str | None = None) -> Topology:
    """Read and validate the topology file (no caching: every call sees the current file)."""
    source = topology_path(path)
    try:
        raw = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TopologyError(str(source), ["no such file"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TopologyError(str(source), [f"unreadable: {exc}"]) from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TopologyError(str(source), [f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"]) \
            from None
    return parse_topology(data, str(source))
