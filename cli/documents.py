"""`negentropy document list|show|delete`, `negentropy corpus delete` and the `--sync` of `negentropy ingest`.

Reading needs the corpus in the person's view (`--as`; default the local operator); deleting needs them to own a
library of the corpus (the local operator may). Every delete, allowed or refused, writes a gateway audit row
(channel "cli")."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.markup import escape
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console, fail
from cli.context import person_errors
from knowledge.app import KnowledgeApp
from knowledge.context.permissions import ResolvedView
from knowledge.corpora import Corpus, UnknownCorpusError
from knowledge.db.queries.documents import DocumentRow
from knowledge.documents.lifecycle import Removal

document_app = typer.Typer(help="List, show and delete the documents of a corpus.", no_args_is_help=True)

_AS_HELP = "Act as this person of the workspace topology (default: the local operator)"


def confirmed(question: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        fail(f"{question} Pass --yes to confirm without a terminal")
    return typer.confirm(question)


async def _view(kapp: KnowledgeApp, person: str | None) -> ResolvedView:
    return await (kapp.access.resolve(person) if person else kapp.access.resolve_operator())


async def readable_corpus(kapp: KnowledgeApp, name: str, person: str | None) -> tuple[Corpus, ResolvedView]:
    view = await _view(kapp, person)
    corpus = await kapp.corpora.get(name)
    if corpus.id not in view.accessible_corpus_ids:
        raise UnknownCorpusError([name], sorted(c.name for c in view.accessible_corpora), view.who)
    return corpus, view


async def audit(kapp: KnowledgeApp, view: ResolvedView, tool: str, arguments: dict, allowed: bool,
                items: int = 0) -> None:
    if allowed:
        from knowledge.gateway.limits import arguments_digest

        await kapp.gateway.audit.record(channel="cli", person_id=view.who, token_id=None, tool=tool,
                                        arguments_digest=arguments_digest(arguments), decision="allowed",
                                        reason="", result_size=0, result_items=items, redactions=0, latency_ms=0.0)
    else:
        await kapp.gateway.audit.record_refusal(channel="cli", person_id=view.who, tool=tool, arguments=arguments,
                                                reason="forbidden_library")


async def changeable_corpus(kapp: KnowledgeApp, name: str, person: str | None, tool: str,
                            arguments: dict) -> Corpus:
    corpus, view = await readable_corpus(kapp, name, person)
    if not view.may_change(corpus.id):
        await audit(kapp, view, tool, arguments, allowed=False)
        fail(f"{view.who} does not own a library of {corpus.name}: only its owners delete its documents")
    await audit(kapp, view, tool, arguments, allowed=True)
    return corpus


def print_documents(documents: list[DocumentRow]) -> None:
    table = Table("source", "title", "chunks", "updated")
    for d in documents:
        state = "" if d.complete else " (incomplete: the next ingest finishes it)"
        table.add_row(escape(d.source_uri), escape(d.title[:60]), str(d.chunk_count),
                      d.updated_at.strftime("%Y-%m-%d %H:%M") + state)
    console.print(table)


def print_removal(removal: Removal) -> None:
    console.print(f"[bold]{escape(removal.corpus)}[/]: {len(removal.documents)} documents deleted, "
                  f"{removal.chunks} chunks, {removal.entities} entities and {removal.relations} relations removed",
                  highlight=False)
    for uri in removal.missing:
        console.print(f"  [yellow]no such document[/] {escape(uri)}", highlight=False)


@document_app.command("list")
@run_async
@person_errors
async def document_list(corpus: str = typer.Option(..., "--corpus", "-c"),
                        contains: str = typer.Option("", help="Only source URIs containing this text"),
                        as_: Optional[str] = typer.Option(None, "--as", help=_AS_HELP),
                        as_json: bool = typer.Option(False, "--json", help="Print JSON")) -> None:
    """The corpus's documents: source URI (its identity), title, chunks, last change."""
    async with await open_app(progress=False) as kapp:
        target, _ = await readable_corpus(kapp, corpus, as_)
        documents = await kapp.documents.list(target, contains)
    if as_json:
        print(json.dumps([{"source_uri": d.source_uri, "title": d.title, "chunks": d.chunk_count,
                           "complete": d.complete, "updated_at": d.updated_at.isoformat()} for d in documents],
                         indent=2, ensure_ascii=False))
        return
    print_documents(documents)


@document_app.command("show")
@run_async
@person_errors
async def document_show(source_uri: str, corpus: str = typer.Option(..., "--corpus", "-c"),
                        as_: Optional[str] = typer.Option(None, "--as", help=_AS_HELP)) -> None:
    """One document with its chunks."""
    async with await open_app(progress=False) as kapp:
        target, _ = await readable_corpus(kapp, corpus, as_)
        view = await kapp.documents.show(target, source_uri)
    if view is None:
        fail(f"no document {source_uri!r} in {target.name}")
    d = view.document
    console.print(f"[bold]{escape(d.source_uri)}[/] ({escape(d.title)}): {d.chunk_count} chunks, "
                  f"ingested {d.created_at:%Y-%m-%d %H:%M}, changed {d.updated_at:%Y-%m-%d %H:%M}"
                  + ("" if d.complete else ", incomplete"), highlight=False)
    for chunk in view.chunks:
        text = " ".join(chunk["content"].split())
        console.print(f"  [{chunk['chunk_index']}] {escape(text[:200])}{'…' if len(text) > 200 else ''}",
                      highlight=False)


@document_app.command("delete")
@run_async
@person_errors
async def document_delete(source_uris: List[str], corpus: str = typer.Option(..., "--corpus", "-c"),
                          as_: Optional[str] = typer.Option(None, "--as", help=_AS_HELP),
                          yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask")) -> None:
    """Delete documents with their chunks and what the graph learnt only from them."""
    async with await open_app(progress=False) as kapp:
        target = await changeable_corpus(kapp, corpus, as_, "document_delete",
                                         {"corpus": corpus, "source_uris": source_uris})
        if not confirmed(f"Delete {len(source_uris)} document(s) from {target.name}?", yes):
            raise typer.Exit(code=1)
        removal = await kapp.documents.delete(target, source_uris)
    print_removal(removal)
    if removal.missing:
        raise typer.Exit(code=1)


@run_async
@person_errors
async def corpus_delete(name: str, as_: Optional[str] = typer.Option(None, "--as", help=_AS_HELP),
                        yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask")) -> None:
    """Delete a corpus with its documents, chunks, graph, canonical links and bridges."""
    async with await open_app(progress=False) as kapp:
        target = await changeable_corpus(kapp, name, as_, "corpus_delete", {"corpus": name})
        if not yes:
            if not sys.stdin.isatty():
                fail(f"deleting {target.name} needs confirmation: pass --yes")
            if typer.prompt(f"Type the corpus name to delete {target.name} ({target.chunk_count} chunks)") \
                    != target.name:
                fail("the name did not match; nothing was deleted")
        chunks = await kapp.documents.delete_corpus(target)
    console.print(f"deleted corpus [bold]{escape(target.name)}[/] ({chunks} chunks)")


async def sync_folder(kapp: KnowledgeApp, corpus: Corpus, path: Path, sources: list[str], unreadable: list[str],
                      *, dry_run: bool, yes: bool, person: str | None) -> None:
    """After an ingest of ``path`` (or instead of it, ``dry_run``): the documents last ingested from this folder
    that it no longer has are listed, then deleted once confirmed."""
    from knowledge.ingest.pipeline import folder_of

    stale = await kapp.documents.stale(corpus, folder_of(path), sources, unreadable)
    if not stale:
        console.print("sync: every document of this folder is still there")
        return
    console.print(f"sync: {len(stale)} document(s) of {escape(str(path))} are gone from the folder:", highlight=False)
    for d in stale:
        console.print(f"  - {escape(d.source_uri)} ({d.chunk_count} chunks)", highlight=False)
    if dry_run:
        console.print("dry run: nothing deleted")
        return
    uris = [d.source_uri for d in stale]
    target = await changeable_corpus(kapp, corpus.name, person, "document_delete",
                                     {"corpus": corpus.name, "source_uris": uris})
    if not confirmed(f"Delete these {len(stale)} document(s) from {target.name}?", yes):
        raise typer.Exit(code=1)
    print_removal(await kapp.documents.delete(target, uris))
