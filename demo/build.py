"""Build the demo corpora from demo/corpora into an app (used by `negentropy demo`, the benches and the tests)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus

DEMO_DIR = Path(__file__).resolve().parent
DEMO_CORPORA = {
    "team_notes": ("Team Notes", "Meeting notes, decisions and retros of the team"),
    "papers": ("Research Papers", "Papers on retrieval, knowledge graphs and agents"),
    "project_docs": ("Project Docs", "Design docs, runbooks and roadmaps of our projects"),
}


def load_demo_queries() -> dict[str, Any]:
    return json.loads((DEMO_DIR / "queries.json").read_text(encoding="utf-8"))


async def build_demo_corpora(kapp: KnowledgeApp, report: Callable[[Any], None] | None = None) -> dict[str, Corpus]:
    corpora = {}
    for name, (label, description) in DEMO_CORPORA.items():
        corpus = await kapp.corpora.create(name, label, description)
        result = await kapp.ingest_path(corpus, DEMO_DIR / "corpora" / name)
        if report:
            report(result)
        corpora[name] = corpus
    return corpora


async def build_context_demo(kapp: KnowledgeApp) -> dict[str, Corpus]:
    """The demo corpora plus every corpus of the current topology that has a folder under demo/corpora."""
    corpora = await build_demo_corpora(kapp)
    for library in kapp.access.topology().context_libraries:
        for name in library.corpora:
            folder = DEMO_DIR / "corpora" / name
            if name not in corpora and folder.is_dir():
                corpora[name] = await kapp.corpora.create(name, library.name, library.description)
                await kapp.ingest_path(corpora[name], folder)
    return corpora
