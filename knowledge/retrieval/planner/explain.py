"""Plain-text rendering of a retrieval response's stage trace (``--explain``)."""
from __future__ import annotations

from typing import Any

from knowledge.retrieval.results import RetrievalResponse


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in value.items()) or "-"
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(v) for v in value) or "-"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def explain_lines(response: RetrievalResponse) -> list[str]:
    """Routing decision, then one block per stage that ran, with its time and what it found."""
    expansion = "yes" if response.graph_expansion else "no"
    lines = [f"mode: {response.mode}; query kind: {response.query_kind}; graph expansion: {expansion}"]
    if response.fallback_reason:
        lines.append(f"fallback reason: {response.fallback_reason}")
    if response.rejected_corpus_ids:
        lines.append(f"not accessible or unknown (ignored): {', '.join(response.rejected_corpus_ids)}")
    for trace in response.trace:
        lines.append(f"{trace.stage} ({1000 * trace.seconds:.1f} ms)")
        lines.extend(f"    {key}: {_value(value)}" for key, value in trace.detail.items())
    return lines

