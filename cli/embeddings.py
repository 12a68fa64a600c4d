"""``negentropy embeddings``: move corpora to another embedding model, see where each stands, drop old vectors."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from typing import List, Optional

import typer
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console, err_console, fail
from config import get_settings
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.db.queries import embeddings as q
from knowledge.embedding import TokenEmbedder
from knowledge.embedding_migration.migration import ModelMigration, drop_previous_vectors

embeddings_app = typer.Typer(help="Change the embedding model of corpora without re-ingesting them.",
                             no_args_is_help=True)


async def _corpora(kapp: KnowledgeApp, names: list[str] | None) -> list[Corpus]:
    return await kapp.corpora.resolve(names) if names else await kapp.corpora.list()


def _progress_line(corpus: Corpus, p: q.StagingProgress) -> None:
    err_console.print(f"{corpus.name}: staged chunks {p.chunks_staged}/{p.chunks}, entities "
                      f"{p.entities_staged}/{p.entities}, communities {p.communities_staged}/{p.communities}",
                      highlight=False)


@embeddings_app.command("migrate")
@run_async
async def migrate(model: str = typer.Option(..., "--model", help="The model to move to (see README)"),
                  corpus: Optional[List[str]] = typer.Option(None, "--corpus", "-c", help="Only these corpora"),
                  drop_old: bool = typer.Option(False, "--drop-old", help="Delete the previous model's vectors "
                                                "of each corpus once it has switched"),
                  detach: bool = typer.Option(False, "--detach", help="Go on in the background, output in "
                                              "NE_DATA_DIR/embeddings-migrate.log (follow: embeddings status)")
                  ) -> None:
    """Write MODEL's vectors beside the live ones, then switch each corpus to them in one transaction.

    Searches keep using the old vectors until a corpus switches. Killed, the command goes on where it stopped
    when run again."""
    if detach:
        _detach([a for a in sys.argv[1:] if a != "--detach"])
        return
    async with await open_app() as kapp:
        embedder = kapp.retrieval.spaces.embedder(model)
        if not isinstance(embedder, TokenEmbedder):
            fail(f"the embedding model {model!r} gives no token vectors, which entity vectors are pooled from")
        migration = ModelMigration(kapp.db, embedder, model, part_size=4 * kapp.settings.embedding_batch_size,
                                   hub_degree_threshold=kapp.settings.linker.canonical_hub_degree_threshold,
                                   on_progress=_progress_line)
        for target in await _corpora(kapp, corpus):
            outcome = await migration.run(target)
            console.print(f"[bold]{target.name}[/]: {outcome.action} {model}")
            if drop_old and outcome.action == "switched":
                dropped = await drop_previous_vectors(kapp.db, target.id)
                console.print(f"{target.name}: dropped {dropped or 0} vectors of the previous model")
    if kapp.settings.embedding_model != model:
        console.print(f"new corpora and ingests use NE_EMBEDDING_MODEL ({kapp.settings.embedding_model}); set "
                      f"NE_EMBEDDING_MODEL={model} to ingest into the corpora moved")


def _detach(arguments: list[str]) -> None:
    log = get_settings().data_dir / "embeddings-migrate.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as output:
        process = subprocess.Popen([sys.executable, "-m", "cli.main", *arguments], stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    console.print(f"migrating in the background (pid {process.pid}), output in {log}; progress: "
                  "negentropy embeddings status")


@embeddings_app.command("drop-old")
@run_async
async def drop_old_vectors(corpus: Optional[List[str]] = typer.Option(None, "--corpus", "-c",
                                                                      help="Only these corpora")) -> None:
    """Delete the previous model's vectors of corpora that have switched (switching back then re-embeds)."""
    async with await open_app() as kapp:
        for target in await _corpora(kapp, corpus):
            dropped = await drop_previous_vectors(kapp.db, target.id)
            if dropped is None:
                console.print(f"{target.name}: no previous model's vectors (no switch, or a migration under way)")
            else:
                console.print(f"{target.name}: dropped {dropped} vectors of the previous model")


@embeddings_app.command("status")
@run_async
async def status(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table")) -> None:
    """Per corpus: the model in use, and a migration's target and progress."""
    async with await open_app(progress=not as_json) as kapp:
        corpora = await kapp.corpora.list()
        async with kapp.db.connection() as conn:
            spaces = await q.select_corpus_spaces(conn, [c.id for c in corpora])
            migrations = await q.select_migrations(conn, [c.id for c in corpora])
            progress = {c.id: await q.select_staging_progress(conn, c.id) for c in corpora if c.id in migrations}
    rows = [_status_row(c.name, spaces[c.id].model, migrations.get(c.id), progress.get(c.id)) for c in corpora]
    if as_json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
        return
    table = Table("corpus", "model in use", "migration", "to / from", "chunks staged", "entities", "communities")
    for r in rows:
        table.add_row(r.corpus, r.model, r.state, r.other_model or "-", _fraction(r.chunks), _fraction(r.entities),
                      _fraction(r.communities))
    console.print(table)


@dataclass(frozen=True)
class StatusRow:
    corpus: str
    model: str
    state: str  # "-", "migrating" (to other_model) or "switched, old vectors kept" (of other_model)
    other_model: str | None
    chunks: tuple[int, int] | None  # staged, all
    entities: tuple[int, int] | None
    communities: tuple[int, int] | None


def _status_row(corpus: str, model: str, migration: q.MigrationRow | None,
                progress: q.StagingProgress | None) -> StatusRow:
    if migration is None or progress is None:
        return StatusRow(corpus, model, "-", None, None, None, None)
    migrating = migration.switched_at is None
    return StatusRow(corpus, model, "migrating" if migrating else "switched, old vectors kept",
                     migration.target_model if migrating else migration.previous_model,
                     (progress.chunks_staged, progress.chunks), (progress.entities_staged, progress.entities),
                     (progress.communities_staged, progress.communities))


def _fraction(pair: tuple[int, int] | None) -> str:
    return "-" if pair is None else f"{pair[0]}/{pair[1]}"
