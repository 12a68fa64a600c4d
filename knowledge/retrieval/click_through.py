"""Click-through of the evidence answers show (the web app's source view records both; migration 023): how often
a person opens bridged (graph-expanded) evidence against same-corpus (primary) evidence, for `negentropy stats`.

retrieval.cross_corpus_clickthrough = click-through of bridged / click-through of same-corpus evidence, with the
target of docs/design.md section 6 (>= 0.6x): bridged evidence a person never opens is noise in the answer.
"""
from __future__ import annotations

from knowledge.db.database import Database
from knowledge.db.queries.evidence_views import ClickThrough, select_click_through

CLICK_THROUGH_TARGET = 0.6
STATS_WINDOW = 10_000  # latest evidence views the stats cover
_BRIDGED, _SAME_CORPUS = "graph_expanded", "primary"


def _rate(counts: ClickThrough | None) -> float | None:
    return counts.opened / counts.shown if counts is not None and counts.shown else None


def _share(counts: ClickThrough | None) -> str:
    if counts is None or not counts.shown:
        return "n/a (0 shown)"
    return f"{100.0 * counts.opened / counts.shown:.1f}% ({counts.opened}/{counts.shown})"


def cross_corpus_clickthrough(bridged: float | None, same_corpus: float | None) -> str:
    """The ratio against the target; n/a until both kinds were shown and same-corpus evidence was opened."""
    if bridged is None or not same_corpus:
        return "n/a"
    ratio = bridged / same_corpus
    return f"{ratio:.2f}x {'ok' if ratio >= CLICK_THROUGH_TARGET else 'MISSED'}"


def _rows_for(label: str, counts: dict[str, ClickThrough]) -> list[tuple[str, str]]:
    bridged, same = counts.get(_BRIDGED), counts.get(_SAME_CORPUS)
    return [(f"{label}bridged evidence opened", _share(bridged)),
            (f"{label}same-corpus evidence opened", _share(same)),
            (f"{label}cross_corpus_clickthrough (target >= {CLICK_THROUGH_TARGET}x same-corpus)",
             cross_corpus_clickthrough(_rate(bridged), _rate(same)))]


async def click_through_rows(db: Database, window: int = STATS_WINDOW) -> list[tuple[str, str]]:
    """(metric, value) rows: every path together, then each rollout path (planner first)."""
    async with db.connection() as conn:
        counts = await select_click_through(conn, db.settings.app_name, window)
    by_path: dict[str | None, dict[str, ClickThrough]] = {None: {}}
    for c in counts:
        by_path.setdefault(c.rollout_path, {})[c.evidence_type] = c
    rows = _rows_for("", by_path.pop(None))
    for path, path_counts in by_path.items():
        rows += _rows_for(f"rollout path {path}: ", path_counts)
    return rows
