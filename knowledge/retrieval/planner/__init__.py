"""HybridPlanner: cross-corpus retrieval with per-corpus seeds, canonical bridges, personalized PageRank
expansion, RRF fusion and rerank (docs/design.md section 3)."""
from knowledge.retrieval.planner.context import PlanRequest, PlanState
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from knowledge.retrieval.planner.planner import HybridPlanner
from knowledge.retrieval.planner.stage import Stage, StageFailed

__all__ = ["HybridPlanner", "NeighbourhoodCache", "PlanRequest", "PlanState", "Stage", "StageFailed"]
