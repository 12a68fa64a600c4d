"""``negentropy demo``: build the bundled demo corpora and run the sample queries."""
from __future__ import annotations

import json
from pathlib import Path

from cli.common import console
from knowledge.app import KnowledgeApp

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"
DEMO_CORPORA = {
    "team_notes": ("Team Notes", "Meeting notes, decisions and retros of the team"),
    "papers": ("Research Papers", "Papers on retrieval, knowledge graphs and agents"),
    "project_docs": ("Project Docs", "Design docs, runbooks and roadmaps of our projects"),
}


def load_demo_queries() -> dict:
    return json.loads((DEMO_DIR / "queries.json").read_text(encoding="utf-8"))


async def build_demo_corpora(kapp: KnowledgeApp, report=None) -> dict:
    corpora = {}
    for name, (label, description) in DEMO_CORPORA.items():
        corpus = await kapp.corpora.create(name, label, description)
        result = await kapp.ingest_path(corpus, DEMO_DIR / "corpora" / name)
        if report:
            report(result)
        corpora[name] = corpus
    return corpora


async def run_demo(kapp: KnowledgeApp) -> None:
    from cli.main import print_hits, print_ingest_report

    console.rule("[bold]Negentropy demo: ingest")
    corpora = await build_demo_corpora(kapp, print_ingest_report)
    accessible = [c.id for c in corpora.values()]
    for item in load_demo_queries()["demo_queries"]:
        names = item.get("corpora") or list(corpora)
        console.rule(f"[bold]{item['query']}[/]  [dim]({', '.join('@' + n for n in names)})")
        hits = await kapp.legacy_search(item["query"], [corpora[n].id for n in names], accessible, limit=5)
        print_hits(hits)
