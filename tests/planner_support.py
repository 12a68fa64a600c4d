"""What the planner tests share: stage wrappers, and the most mentioned entities of some corpora."""
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


async def most_mentioned_entities(kapp, corpus_ids, limit: int) -> list[int]:
    """Entity ids of the corpora, most mentioned first (ties by id), read as the owner."""
    async with kapp.db.connection() as conn:
        return [r["id"] for r in await conn.fetch(
            "SELECT id FROM kg_entity WHERE corpus_id = ANY($1::uuid[]) ORDER BY mention_count DESC, id LIMIT $2",
            list(corpus_ids), limit)]
