"""``negentropy graph``: rebuild a corpus graph, show an entity, list communities."""
from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console, fail
from knowledge.db.queries import graph as gq
from knowledge.graph.lookup import describe_entities

graph_app = typer.Typer(help="The per-corpus knowledge graph: build, inspect entities and communities.",
                        no_args_is_help=True)

SUMMARY_EXCERPT_CHARS = 110


def _excerpt(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


@graph_app.command("build")
@run_async
async def build(corpus: str = typer.Option(..., "--corpus", "-c", help="Corpus name")) -> None:
    """Rebuild a corpus graph from its chunks: clear, extract, resolve, communities, canonical links."""
    async with await open_app() as kapp:
        target = await kapp.corpora.get(corpus)
        report = await kapp.rebuild_graph(target)
        async with kapp.db.connection() as conn:
            counts = await gq.count_graph(conn, target.id)
    console.print(f"[bold]{target.name}[/]: {report.chunks} chunks -> {counts['entities']} entities, "
                  f"{counts['relations']} relations, {counts['mentions']} mentions, {counts['communities']} "
                  f"communities ({report.community_levels} levels), {counts['pending_candidates']} pairs to "
                  f"review, in {report.seconds:.1f}s")


@graph_app.command("show")
@run_async
async def show(entity: str, corpus: Optional[str] = typer.Option(None, "--corpus", "-c",
                                                                  help="Only this corpus")) -> None:
    """Show an entity: type, aliases, mentions, relations and communities (in every corpus unless --corpus)."""
    if not entity.strip():
        fail("the entity name is empty")
    async with await open_app() as kapp:
        corpora = [await kapp.corpora.get(corpus)] if corpus else await kapp.corpora.list()
        views = await describe_entities(kapp.db, entity, corpora)
    if not views:
        where = f"corpus {corpus}" if corpus else "any corpus"
        fail(f"no entity named {entity!r} in {where}")
    for view in views:
        console.rule(f"[bold]{view.name}[/] ({view.type}) in {view.corpus.label}")
        console.print(f"aliases: {', '.join(view.aliases) or '-'}")
        console.print(f"mentions: {view.mention_count}   related entities: {view.degree}")
        if view.description:
            console.print(f"context: {_excerpt(view.description, 200)}")
        for community in view.communities:
            console.print(f"community (level {community.level}): {community.title} "
                          f"[dim]({community.member_count} members)[/]")
        if view.relations:
            table = Table("direction", "relation", "entity", "type", "weight")
            for r in view.relations:
                table.add_row("->" if r.direction == "out" else "<-", r.relation_type, r.other_name, r.other_type,
                              f"{r.weight:g}")
            console.print(table)


@graph_app.command("communities")
@run_async
async def communities(corpus: str = typer.Option(..., "--corpus", "-c", help="Corpus name")) -> None:
    """List a corpus's communities: level, title, member count and a summary excerpt."""
    async with await open_app() as kapp:
        target = await kapp.corpora.get(corpus)
        async with kapp.db.connection() as conn:
            rows = await gq.select_communities(conn, target.id)
    if not rows:
        console.print(f"no communities in {target.name} yet (ingest documents or run `negentropy graph build`)")
        return
    table = Table("level", "title", "members", "summary")
    for row in rows:
        table.add_row(str(row["level"]), row["title"], str(row["member_count"]),
                      _excerpt(row["summary"], SUMMARY_EXCERPT_CHARS))
    console.print(table)
