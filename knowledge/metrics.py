"""Prometheus metrics of the knowledge layer (one registry; shown by `negentropy stats`)."""
from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)

canonical_link_total = Counter(
    "canonical_link_total", "Canonical linker decisions by link_method", ["link_method"], registry=REGISTRY)
canonical_review_queue_depth = Gauge(
    "canonical_review_queue_depth", "Pending canonical review items", registry=REGISTRY)
canonical_review_share = Gauge(
    "canonical_review_share", "Share of canonical aliases linked through the review path", registry=REGISTRY)
canonical_build_lag_seconds = Histogram(
    "canonical_linker_build_lag_seconds", "Seconds from ingest commit to canonical links updated",
    buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 120), registry=REGISTRY)
planner_requests_total = Counter(
    "planner_requests_total", "Retrieval requests by mode", ["mode"], registry=REGISTRY)
planner_fallback_total = Counter(
    "planner_fallback_total", "Planner runs that fell back to legacy search", ["reason"], registry=REGISTRY)
planner_stage_seconds = Histogram(
    "planner_stage_seconds", "Planner stage latency", ["stage"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 12), registry=REGISTRY)
cross_corpus_expansion_total = Counter(
    "cross_corpus_expansion_total", "Planner runs with graph expansion, by whether it added cross-corpus evidence",
    ["added_evidence"], registry=REGISTRY)
cross_corpus_path_length = Histogram(
    "cross_corpus_path_length", "Bridge path length (hops) of graph-expanded evidence",
    buckets=(1, 2, 3, 4), registry=REGISTRY)
cross_corpus_expansion_ratio = Gauge(
    "cross_corpus_expansion_ratio",
    "Share of planner runs (this process) whose results include graph-expanded evidence", registry=REGISTRY)
# the ratio's two counts, kept here: reading them back from the counters scans the whole registry (~0.35 ms)
_planner_runs = {"all": 0, "with_expanded_evidence": 0}


def observe_planner_run(added_evidence: bool) -> None:
    _planner_runs["all"] += 1
    _planner_runs["with_expanded_evidence"] += int(added_evidence)
    cross_corpus_expansion_ratio.set(_planner_runs["with_expanded_evidence"] / _planner_runs["all"])
graph_build_seconds = Histogram(
    "graph_build_seconds", "Per-corpus graph build time by stage (extract, resolve, write, communities)",
    ["stage"], buckets=(0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120), registry=REGISTRY)
# Where an ingest spends its time; bench/ingest.py reads the sums rather than timing the stages again.
INGEST_STAGES = ("chunking", "chunk_embedding", "extraction", "entity_embedding", "resolution",
                 "canonical_linking", "leiden", "sql", "document_swap")
ingest_stage_seconds = Histogram(
    "ingest_stage_seconds", "Ingest time by stage (" + ", ".join(INGEST_STAGES) + ")", ["stage"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300), registry=REGISTRY)
ingest_embedded_texts_total = Counter(
    "ingest_embedded_texts_total", "Texts the ingest gave the embedding model, by stage (chunk_embedding, "
    "entity_embedding)", ["stage"], registry=REGISTRY)
graph_resolution_decisions_total = Counter(
    "graph_resolution_decisions_total",
    "Entity resolution outcomes of ingested entity groups (exact_match, match, merged_in_batch, new, possible)",
    ["decision"], registry=REGISTRY)

gateway_calls_total = Counter(
    "gateway_calls_total", "Tool gateway calls by tool and decision (allowed / denied / error)",
    ["tool", "decision"], registry=REGISTRY)
gateway_call_seconds = Histogram(
    "gateway_call_seconds", "Tool gateway call latency, checks and audit included", ["tool"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 12), registry=REGISTRY)
gateway_redactions_total = Counter(
    "gateway_redactions_total", "Secrets stripped from tool output by the gateway", registry=REGISTRY)

context_guard_dropped_total = Counter(
    "context_guard_dropped_total", "Rows a search connector returned that the permission guard refused",
    ["connector"], registry=REGISTRY)
context_routed_libraries = Histogram(
    "context_routed_libraries", "Libraries the Context Router picked per request", buckets=(0, 1, 2, 3),
    registry=REGISTRY)
context_knowledge_gaps_total = Counter(
    "context_knowledge_gaps_total", "Knowledge gaps reported by the Context Router, by reason", ["reason"],
    registry=REGISTRY)
knowledge_cards_total = Counter(
    "knowledge_cards_total", "Knowledge card transitions (submitted, reviewed, promoted, rejected)", ["action"],
    registry=REGISTRY)


def ingest_stage_totals() -> dict[str, float]:
    """Seconds recorded so far per ingest stage (this process): subtract two readings to time one ingest."""
    return {stage: REGISTRY.get_sample_value("ingest_stage_seconds_sum", {"stage": stage}) or 0.0
            for stage in INGEST_STAGES}


def ingest_embedded_texts() -> dict[str, float]:
    return {stage: REGISTRY.get_sample_value("ingest_embedded_texts_total", {"stage": stage}) or 0.0
            for stage in ("chunk_embedding", "entity_embedding")}


def render_metrics() -> bytes:
    return generate_latest(REGISTRY)
