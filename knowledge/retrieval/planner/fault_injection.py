"""A test-only fault: ``NE_PLANNER__FAULT_INJECT_STAGE`` names a planner stage that fails on every run, so a
test of a real server (the browser suite) sees the legacy fallback end to end. Unset in production."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge.retrieval.planner.context import PlanState
from knowledge.retrieval.planner.stage import Stage


class InjectedFault(RuntimeError):
    """The error an injected stage raises."""


@dataclass(frozen=True)
class FailingStage:
    """Stands in for ``inner`` (same name, same position, same graph_only) and always raises."""

    inner: Stage

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def graph_only(self) -> bool:
        return self.inner.graph_only

    async def run(self, state: PlanState) -> dict[str, Any]:
        raise InjectedFault(f"fault injected at the {self.name} stage (NE_PLANNER__FAULT_INJECT_STAGE)")
