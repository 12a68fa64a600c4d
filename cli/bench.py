"""``negentropy bench``: the retrieval quality and latency benchmarks."""
from __future__ import annotations

from typing import List, Optional

import typer

bench_app = typer.Typer(help="Benchmarks on real multi-hop data (tables, ratios against same-run baselines).",
                        no_args_is_help=True)


@bench_app.command("multihop")
def multihop(splits: List[int] = typer.Option([1, 3], "--split", help="Number of corpora (repeat)"),
             limit_questions: Optional[int] = typer.Option(None, help="Only the first N questions"),
             questions: Optional[str] = typer.Option(
                 None, help="Questions file (MuSiQue or HotpotQA format); default: both dev sets of ../shared/data"),
             corpus: Optional[str] = typer.Option(
                 None, help="Corpus file of {title, text} records; default: the questions' own paragraphs"),
             cache_db: bool = typer.Option(False, "--cache-db", help="Keep and reuse the ingested databases"),
             reference_triples: bool = typer.Option(
                 False, "--reference-triples",
                 help="Also the planner on the silver reference triples (MuSiQue)")) -> None:
    """Recall@2/5/10 and MRR for BM25, dense, kb_rrf hybrid, legacy and the HybridPlanner, paired against dense."""
    from bench.multihop import main

    argv = ["--splits", *map(str, splits)]
    if questions:
        argv += ["--questions", questions]
    if corpus:
        argv += ["--corpus", corpus]
    if limit_questions:
        argv += ["--limit-questions", str(limit_questions)]
    if cache_db:
        argv.append("--cache-db")
    if reference_triples:
        argv.append("--reference-triples")
    main(argv)


@bench_app.command("extraction")
def extraction(limit_passages: Optional[int] = typer.Option(None, help="Only the first N passages"),
               reference: Optional[str] = typer.Option(
                   None, help="Reference file of {title, text, entities, triples}; "
                              "default: the MuSiQue one in ../shared/data"),
               errors: int = typer.Option(0, help="Print the N most frequent false positives and misses"),
               errors_half: str = typer.Option("tune", help="Whose errors to print: tune, held-out or all")) -> None:
    """Offline entity / relation extraction precision and recall against the MuSiQue silver reference."""
    from bench.extraction import main

    main([*(["--limit-passages", str(limit_passages)] if limit_passages else []),
          *(["--reference", reference] if reference else []), "--errors", str(errors), "--errors-half", errors_half])


@bench_app.command("latency")
def latency(sizes: List[int] = typer.Option([1000, 10000, 50000], "--size", help="Total chunks (repeat)"),
            queries: int = typer.Option(50, help="Number of questions timed per size")) -> None:
    """P50/P95/P99 of legacy vs planner at growing sizes over 5 corpora, with ingest throughput."""
    from bench.latency import main

    main(["--sizes", *map(str, sizes), "--queries", str(queries)])


@bench_app.command("answers")
def answers(sets: List[str] = typer.Option(["musique", "hotpotqa", "demo"], "--set",
                                           help="musique, hotpotqa or demo (repeat)"),
            limit_questions: Optional[int] = typer.Option(None, help="Only the first N questions of each set"),
            data: Optional[str] = typer.Option(None, help="Folder holding musique/ and hotpotqa/"),
            cache_db: bool = typer.Option(
                False, "--cache-db",
                help="Keep and reuse the dev sets' ingested databases (bench multihop's)")) -> None:
    """The agent's answers (offline model, or NE_MODEL): gold-answer containment, supporting-citation precision /
    recall and ms per turn, against the best sentence of dense top-1."""
    from bench.answers import main

    main(["--sets", *sets, *(["--limit-questions", str(limit_questions)] if limit_questions else []),
          *(["--data", data] if data else []), *(["--cache-db"] if cache_db else [])])


@bench_app.command("ingest")
def ingest(limit: Optional[int] = typer.Option(None, help="Only the first N MuSiQue passages (default: all)"),
           out: str = typer.Option("bench/results/ingest-musique.json", help="Results JSON ('-' for none)")) -> None:
    """Pipeline chunks/s on the MuSiQue passages against the model's own batched speed on the same chunks, with
    the per-stage split (chunking, embeddings, extraction, resolution, canonical linking, Leiden, SQL)."""
    from bench.ingest import cli

    cli([*(["--limit", str(limit)] if limit else []), "--out", out])


@bench_app.command("paraphrases")
def paraphrases() -> None:
    """The demo multi-hop questions and their paraphrases: share whose bridged evidence is in the top 5 (planner
    and dense, same run)."""
    from bench.paraphrases import main

    main([])


@bench_app.command("document-update")
def document_update(documents: int = typer.Option(270, help="Documents in the corpus besides the one updated"),
                    paragraphs: int = typer.Option(100, help="Synthetic paragraphs per document"),
                    rounds: int = typer.Option(5, help="Updates timed"),
                    out: str = typer.Option("bench/results/document-update.json", help="Results JSON ('-' for none)")
                    ) -> None:
    """Updating one document in a corpus of ~20k chunks: the swap transaction, the embedding of its new chunks and
    the stages after, against a whole-corpus ingest and the model alone, in the same run."""
    from bench.document_update import main

    main(["--documents", str(documents), "--paragraphs", str(paragraphs), "--rounds", str(rounds), "--out", out])


@bench_app.command("embedding-migration")
def embedding_migration(documents: int = typer.Option(12, help="Synthetic documents in each of the two corpora"),
                        paragraphs: int = typer.Option(50, help="Synthetic paragraphs per document"),
                        out: str = typer.Option("bench/results/embedding-migration.json",
                                                help="Results JSON ('-' for none)")) -> None:
    """Moving a corpus to another embedding model while searches run: the migration against a re-ingest and the
    model alone, the switch transaction, search latency, failures and missed chunks before, during and after."""
    from bench.embedding_migration import main

    main(["--documents", str(documents), "--paragraphs", str(paragraphs), "--out", out])
