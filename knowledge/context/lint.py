"""`negentropy topology lint`: errors (the file does not load) and warnings (it loads, but leaks or
surprises are likely)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from knowledge.context.permissions import person_view
from knowledge.context.topology import ProjectStatus, ScopeKind, Topology, TopologyError, Visibility, \
    load_topology, topology_path


@dataclass(frozen=True)
class LintIssue:
    severity: str  # "error" | "warning"
    message: str


@dataclass
class LintReport:
    source: str
    issues: list[LintIssue]
    topology: Topology | None

    @property
    def errors(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "warning"]


def topology_warnings(t: Topology) -> list[str]:
    warnings: list[str] = []
    viewed = {v.person for v in t.permission_views}
    warnings += [f"person {p.id!r} has no permission view: they see only their card inbox"
                 for p in t.people if p.id not in viewed]
    for d in t.departments:
        head = t.person(d.head) if d.head else None
        if head is not None and head.department != d.id:
            warnings.append(f"department {d.id!r}: head {head.id!r} belongs to department {head.department!r}")
    corpus_owners: dict[str, list[str]] = {}
    for lib in t.context_libraries:
        for name in lib.corpora:
            corpus_owners.setdefault(name, []).append(lib.id)
    warnings += [f"corpus {name!r} is mapped by libraries {', '.join(libs)}: whoever sees any of them reads "
                 "the whole corpus" for name, libs in corpus_owners.items() if len(libs) > 1]
    for lib in t.context_libraries:
        if lib.owner in viewed and all(g.library.id != lib.id for g in person_view(t, lib.owner)):
            warnings.append(f"library {lib.id!r}: its owner {lib.owner!r} cannot see it (moved department, left "
                            "the project or denied?): cards for it cannot be reviewed by them")
        if lib.scope.kind is ScopeKind.project:
            project = t.project(lib.scope.ref or "")
            if project is not None and project.status is ProjectStatus.archived:
                granted = [v.person for v in t.permission_views if lib.id in v.grant and lib.id not in v.deny]
                if granted:
                    warnings.append(f"library {lib.id!r} belongs to archived project {project.id!r} but is still "
                                    f"granted to {', '.join(granted)}")
    for v in t.permission_views:
        for lib_id in set(v.grant) & set(v.deny):
            warnings.append(f"permission_views[{v.person}]: {lib_id!r} is both granted and denied (deny wins)")
        for lib_id in v.grant:
            lib = t.library(lib_id)
            if lib is not None and lib.scope.kind is ScopeKind.personal and lib.owner != v.person:
                warnings.append(f"permission_views[{v.person}] grants {lib.owner!r}'s personal library {lib_id!r}")
            if lib is not None and lib.visibility is Visibility.org:
                warnings.append(f"permission_views[{v.person}] grants {lib_id!r}, which everyone sees anyway")
    return warnings


def lint_topology(path: Path | str | None = None, existing_corpora: Iterable[str] | None = None) -> LintReport:
    """Lint the topology at ``path`` (default: NE_TOPOLOGY_PATH or the demo); with ``existing_corpora``,
    also warn about libraries whose corpora do not exist yet."""
    try:
        topology = load_topology(path)
    except TopologyError as exc:
        return LintReport(exc.source, [LintIssue("error", p) for p in exc.problems], None)
    issues = [LintIssue("warning", w) for w in topology_warnings(topology)]
    if existing_corpora is not None:
        known = set(existing_corpora)
        issues += [LintIssue("warning", f"library {lib.id!r}: corpus {name!r} does not exist yet, so the library "
                             "contributes nothing") for lib in topology.context_libraries
                   for name in lib.corpora if name not in known]
    return LintReport(str(topology_path(path)), issues, topology)
