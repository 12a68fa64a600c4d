"""The retrieval run log (table planner_run): one row per search, read back by `negentropy stats`."""
from __future__ import annotations

import logging

from knowledge.db.database import Database
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.results import RetrievalResponse

logger = logging.getLogger(__name__)

STATS_WINDOW = 10_000  # latest runs the stats cover


async def record_run(db: Database, response: RetrievalResponse, corpus_count: int, total_seconds: float) -> None:
    """Best effort: a failed write is logged, never raised to the searcher."""
    expanded = [h for h in response.hits if h.evidence_type == "graph_expanded"]
    stage_seconds: dict[str, float] = {}
    for trace in response.trace:
        stage_seconds[trace.stage] = stage_seconds.get(trace.stage, 0.0) + trace.seconds
    row = planner_queries.PlannerRunRow(
        app_name=db.settings.app_name, mode=response.mode, query_kind=response.query_kind, corpus_count=corpus_count,
        expansion_used=response.graph_expansion, hit_count=len(response.hits), expanded_hit_count=len(expanded),
        path_lengths=[h.bridge.hops for h in expanded if h.bridge is not None],
        fallback_reason=response.fallback_reason, stage_seconds=stage_seconds, total_seconds=total_seconds,
        rollout_path=response.rollout_path)
    try:
        async with db.connection() as conn:
            await planner_queries.insert_planner_run(conn, row)
    except Exception as exc:  # noqa: BLE001 - telemetry must not break a search
        logger.warning("could not record the retrieval run: %s: %s", type(exc).__name__, exc)


def _ratio(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}% ({part}/{whole})" if whole else "n/a (0 runs)"


def _number(value: float | None, unit: str = "") -> str:
    return "n/a" if value is None else f"{value:.2f}{unit}"


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else 1000 * seconds


async def planner_stats_rows(db: Database, window: int = STATS_WINDOW) -> list[tuple[str, str]]:
    """(metric, value) rows of the planner section of `negentropy stats`, with the docs/design.md targets."""
    await db.drain()  # this process's searches write their rows in the background
    async with db.connection() as conn:
        stats = await planner_queries.select_planner_run_stats(conn, db.settings.app_name, window)
        paths = await planner_queries.select_rollout_path_stats(conn, db.settings.app_name, window)
        ingests, lag_p50, lag_p99 = await canonical_queries.select_build_lag_percentiles(
            conn, db.settings.app_name, window)
    modes = ", ".join(f"{mode} {n}" for mode, n in sorted(stats.runs_by_mode.items())) or "none"
    rows = [
        ("retrieval runs (latest)", f"{stats.runs} ({modes})"),
        ("planner_fallback rate (target < 1%)", _ratio(stats.fallbacks, stats.routed_to_planner)),
        ("cross_corpus_expansion_ratio (target >= 15%)",
         _ratio(stats.runs_with_expanded_evidence, stats.planner_runs)),
        ("graph expansion used", _ratio(stats.expansion_runs, stats.planner_runs)),
        ("bridge path length P50 (target 1.0-1.3)", _number(stats.path_length_p50)),
        ("bridge path length P99 (target <= 2)", _number(stats.path_length_p99)),
        (f"canonical build lag P50 / P99 (target P99 <= 60 s; {ingests} ingests)",
         f"{_number(lag_p50, ' s')} / {_number(lag_p99, ' s')}"),
    ]
    for path in paths:  # the rollout: the same signals on each path, side by side
        rows += [
            (f"rollout path {path.path}: share of runs", _ratio(path.runs, stats.runs)),
            (f"rollout path {path.path}: cross_corpus_expansion_ratio",
             _ratio(path.runs_with_expanded_evidence, path.planner_runs)),
            (f"rollout path {path.path}: planner_fallback rate", _ratio(path.fallbacks, path.routed_to_planner)),
            (f"rollout path {path.path}: search latency P99", _number(_ms(path.total_p99), " ms")),
        ]
    for stage in stats.stage_p50:
        rows.append((f"stage {stage} latency P50 / P95",
                     f"{1000 * stats.stage_p50[stage]:.1f} ms / {1000 * stats.stage_p95[stage]:.1f} ms"))
    return rows
