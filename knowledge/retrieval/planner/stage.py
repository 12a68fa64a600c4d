"""The contract every planner stage follows, and the error that names the stage that failed."""
from __future__ import annotations

from typing import Any, Protocol

from knowledge.retrieval.planner.context import PlanState


class Stage(Protocol):
    name: str
    graph_only: bool  # runs only when the plan expands over the entity graph

    async def run(self, state: PlanState) -> dict[str, Any]:
        """Do the stage's work on ``state``; returns the trace detail shown by ``--explain``."""
        ...


class StageFailed(Exception):
    def __init__(self, stage: str, error: BaseException) -> None:
        self.stage = stage
        self.error = error
        super().__init__(f"{stage} stage failed: {type(error).__name__}: {error}")
