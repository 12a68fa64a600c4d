"""``negentropy canonical``: the federated canonical layer's review queue, manual decisions and relinking."""
from __future__ import annotations

from typing import List, Optional

import typer
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console
from knowledge.canonical.linker import LinkReport
from knowledge.canonical.review import Outcome

canonical_app = typer.Typer(help="Review and correct the canonical entities that link corpora.", no_args_is_help=True)


def print_link_report(title: str, report: LinkReport) -> None:
    methods = ", ".join(f"{method} {count}" for method, count in sorted(report.links.items())) or "nothing new"
    console.print(f"[bold]{title}[/] ({report.app_scope}): {report.linked} entities linked ({methods}), "
                  f"{report.kept} kept, {report.reviews_created} sent to review, "
                  f"{report.canonicals_refreshed} canonicals refreshed, {report.bridges_written} bridges written "
                  f"in {report.seconds:.2f}s")


def print_outcome(outcome: Outcome) -> None:
    console.print(outcome.message)


@canonical_app.command("review")
@run_async
async def review(limit: int = typer.Option(50, "--limit", "-k", help="Items to show")) -> None:
    """List the pending review queue (entities that are 0.75-0.88 similar to an existing canonical)."""
    async with await open_app() as kapp:
        items = await kapp.canonical.review_queue(limit)
        stats = await kapp.canonical.stats()
    if not items:
        console.print("the review queue is empty")
        return
    table = Table("id", "corpus", "entity", "type", "candidate canonical", "similarity", title="canonical review queue")
    for item in items:
        table.add_row(str(item.id), item.corpus_name, f"{item.entity_name} [dim]#{item.entity_id}",
                      item.entity_type, f"{item.candidate_name} [dim]#{item.candidate_canonical_id}",
                      f"{item.similarity:.3f}")
    console.print(table)
    console.print(f"{stats.pending_reviews} pending; `negentropy canonical accept ID` merges, `reject ID` keeps apart")


@canonical_app.command("accept")
@run_async
async def accept(review_id: int) -> None:
    """Accept a review item: merge the entity into the candidate canonical."""
    async with await open_app() as kapp:
        print_outcome(await kapp.canonical.accept(review_id))


@canonical_app.command("reject")
@run_async
async def reject(review_id: int) -> None:
    """Reject a review item: the entity keeps a canonical of its own."""
    async with await open_app() as kapp:
        print_outcome(await kapp.canonical.reject(review_id))


@canonical_app.command("merge")
@run_async
async def merge(into: str, other: str,
                allow_type_conflict: bool = typer.Option(False, help="Merge canonicals of different types")) -> None:
    """Merge canonical OTHER into canonical INTO (ids or names); survives `canonical rebuild`."""
    async with await open_app() as kapp:
        print_outcome(await kapp.canonical.merge(into, other, allow_type_conflict=allow_type_conflict))


@canonical_app.command("split")
@run_async
async def split(entity: str, corpus: Optional[str] = typer.Option(None, "--corpus", "-c",
                                                                  help="Corpus of a named entity")) -> None:
    """Detach a local entity (its id, or its name with --corpus) into a canonical of its own."""
    async with await open_app() as kapp:
        print_outcome(await kapp.canonical.split(entity, corpus))


@canonical_app.command("show")
@run_async
async def show(reference: str) -> None:
    """Show canonical entities by id or name, with their member entities per corpus."""
    async with await open_app() as kapp:
        found = await kapp.canonical.members(reference)
    if not found:
        console.print(f"no canonical entity {reference!r}")
        raise typer.Exit(code=1)
    for canonical, members in found:
        flags = [f for f, on in (("hub", canonical["is_stopword_like"]), ("under review", canonical["is_under_review"]))
                 if on]
        table = Table("entity id", "corpus", "name", "type", "link method", "confidence", "degree",
                      title=f"#{canonical['id']} {canonical['canonical_name']} ({canonical['canonical_type']}) "
                            f"degree {canonical['degree']}{' [' + ', '.join(flags) + ']' if flags else ''}")
        for m in members:
            table.add_row(str(m["local_entity_id"]), m["corpus_name"], m["entity_name"], m["entity_type"],
                          m["link_method"], f"{m['confidence']:.3f}", str(m["degree"]))
        console.print(table)


@canonical_app.command("bridges")
@run_async
async def bridges(corpus: List[str] = typer.Option([], "--corpus", "-c", help="Only bridges among these corpora"),
                  limit: int = typer.Option(30, "--limit", "-k")) -> None:
    """List materialised cross-corpus bridges."""
    async with await open_app() as kapp:
        corpora = await kapp.corpora.resolve(corpus) if corpus else await kapp.corpora.list()
        names = {c.id: c.name for c in corpora}
        rows = await kapp.canonical.bridges([c.id for c in corpora], limit) if corpora else []
    table = Table("type", "from", "to", "hops", "confidence", "source corpora", "target corpora")
    for row in rows:
        table.add_row(row["bridge_type"], row["source_name"], row["target_name"], str(row["hops"]),
                      f"{row['confidence']:.2f}", ", ".join(sorted(names[i] for i in row["source_corpus_ids"])),
                      ", ".join(sorted(names[i] for i in row["target_corpus_ids"])))
    console.print(table)
    total = rows[0]["total_matching"] if rows else 0
    if len(rows) < total:
        console.print(f"{len(rows)} of {total} bridges shown (--limit N for more)")
    else:
        console.print(f"{total} bridges")


@canonical_app.command("link")
@run_async
async def link(corpus: List[str] = typer.Option([], "--corpus", "-c", help="Corpora to link (default: all)")) -> None:
    """Link new or changed entities (ingest does this by itself; use it after `graph build`)."""
    async with await open_app() as kapp:
        corpora = await kapp.corpora.resolve(corpus) if corpus else await kapp.corpora.list()
        report = await kapp.canonical.link_corpora(corpora)
    print_link_report("linked", report)


@canonical_app.command("rebuild")
@run_async
async def rebuild() -> None:
    """Relink every entity of every corpus from scratch; manual and review decisions are re-applied."""
    async with await open_app() as kapp:
        report = await kapp.canonical.rebuild()
    print_link_report("rebuilt", report)
