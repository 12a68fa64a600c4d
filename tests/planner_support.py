"""Stage wrappers the planner tests share."""
import asyncio


class SlowStage:
    """The real stage, after a delay."""

    def __init__(self, inner, delay: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.graph_only = inner.graph_only
        self.delay = delay

    async def run(self, state):
        await asyncio.sleep(self.delay)
        return await self.inner.run(state)
