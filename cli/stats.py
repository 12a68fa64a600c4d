"""``negentropy stats``: ingest status per corpus, canonical-layer numbers from the database and this process's
prometheus metrics."""
from __future__ import annotations

import json
from dataclasses import dataclass

import typer
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console
from knowledge.canonical.layer import CanonicalStats
from knowledge.db.queries.canonical import LINK_METHODS
from knowledge.db.queries.ingest_status import CorpusIngestStatus, select_ingest_status
from knowledge.metrics import REGISTRY
from knowledge.retrieval.click_through import click_through_rows
from knowledge.retrieval.planner.run_log import planner_stats_rows

# docs/design.md section 6
AUTO_STRING_TARGET = 0.40
REVIEW_SHARE_TARGET = 0.05
QUEUE_DEPTH_TARGET = 1000


@dataclass(frozen=True)
class Section:
    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]

    def as_dict(self) -> dict:
        return {"title": self.title, "rows": [dict(zip(self.columns, row)) for row in self.rows]}


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def canonical_section(stats: CanonicalStats) -> Section:
    rows: list[tuple[str, ...]] = []
    for method in LINK_METHODS:
        rows.append((f"links: {method}", str(stats.links.get(method, 0)), f"{stats.share(method):.1%}",
                     "" if method == "new_canonical" else f"{stats.decision_share(method):.1%}", ""))
    rows.append(("links: total", str(stats.total_links), "100.0%", f"{stats.merge_decisions} decisions", ""))
    auto_string = stats.decision_share("auto_string")
    rows.append(("auto_string share of merge decisions", f"{auto_string:.1%}", "", "",
                 f">= {AUTO_STRING_TARGET:.0%} {_verdict(auto_string >= AUTO_STRING_TARGET)}"))
    rows.append(("review share of links", f"{stats.review_share:.1%}", "", "",
                 f"<= {REVIEW_SHARE_TARGET:.0%} {_verdict(stats.review_share <= REVIEW_SHARE_TARGET)}"))
    rows.append(("review queue depth", str(stats.pending_reviews), "", "",
                 f"< {QUEUE_DEPTH_TARGET} {_verdict(stats.pending_reviews < QUEUE_DEPTH_TARGET)}"))
    rows.append(("canonical entities", str(stats.canonicals), "", "", ""))
    rows.append(("  spanning >= 2 corpora", str(stats.cross_corpus_canonicals), "", "", ""))
    rows.append(("  hubs (stopword-like, never bridges)", str(stats.hubs), "", "", ""))
    rows.append(("  under review", str(stats.under_review), "", "", ""))
    for bridge_type in ("shared_entity", "relation_path"):
        rows.append((f"bridges: {bridge_type}", str(stats.bridges.get(bridge_type, 0)), "", "", ""))
    return Section(f"canonical layer ({stats.app_scope})", ("metric", "value", "share of links",
                                                            "share of merge decisions", "target"), rows)


def ingest_section(statuses: list[CorpusIngestStatus]) -> Section:
    """Per corpus: what landed and what an interrupted ingest left for the next run to finish."""
    rows = [(s.name, str(s.documents), str(s.chunks), str(s.awaiting_extraction), str(s.entities),
             str(s.awaiting_linking), s.last_graph_build.strftime("%Y-%m-%d %H:%M:%S UTC") if s.last_graph_build
             else "never", "stale" if s.communities_stale else "current") for s in statuses]
    return Section("ingest (per corpus)", ("corpus", "documents", "chunks", "chunks awaiting extraction", "entities",
                                           "entities awaiting canonical links", "last graph build", "communities"),
                   rows)


def process_metrics_section() -> Section:
    """Every sample of the metrics registry (histograms as count and sum) as this process has recorded them."""
    rows: list[tuple[str, ...]] = []
    for metric in REGISTRY.collect():
        for sample in metric.samples:
            if sample.name.endswith(("_created", "_bucket")):
                continue
            labels = ", ".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            rows.append((sample.name, labels, f"{sample.value:g}"))
    return Section("process metrics", ("metric", "labels", "value"), rows)


def print_section(section: Section) -> None:
    table = Table(*section.columns, title=section.title)
    for row in section.rows:
        table.add_row(*row)
    console.print(table)


@run_async
async def stats(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables")) -> None:
    """Ingest status per corpus, canonical link_method distribution, review share, queue depth, bridges, and
    process metrics."""
    async with await open_app() as kapp:
        corpora = await kapp.corpora.list()
        async with kapp.db.connection() as conn:
            statuses = await select_ingest_status(conn, [c.id for c in corpora])
        sections = [canonical_section(await kapp.canonical.refresh_gauges()), ingest_section(statuses),
                    Section("planner (retrieval run log)", ("metric", "value"), await planner_stats_rows(kapp.db)),
                    Section("evidence opened in the web app (click-through)", ("metric", "value"),
                            await click_through_rows(kapp.db)),
                    process_metrics_section()]
    if as_json:
        typer.echo(json.dumps([s.as_dict() for s in sections], indent=2))
        return
    for section in sections:
        print_section(section)
