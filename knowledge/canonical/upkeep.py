"""After any change to the canonical layer: recompute centroids, degrees and hub flags, then re-materialise
the bridges of every canonical the change touched."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence
from uuid import UUID

import asyncpg

from knowledge.canonical.specificity import GENERIC_KEYS
from knowledge.db.queries import canonical as q


@dataclass(frozen=True)
class Upkeep:
    canonicals_refreshed: int
    bridges_written: int


async def settle(conn: asyncpg.Connection, app_scope: str, corpus_filter: Sequence[UUID],
                 touched: Iterable[int], hub_degree_threshold: int) -> Upkeep:
    """Refresh ``touched`` canonicals plus those that lost members behind the linker's back (a corpus graph
    rebuild cascades its entities' aliases away): centroid = renormalised mean of the member embeddings,
    degree = sum of member degrees, ``is_stopword_like`` = degree > ``hub_degree_threshold`` or a generic name
    (knowledge/canonical/specificity.py); canonicals left
    without members are deleted. Then rebuild the bridges starting or ending at any of them."""
    ids = set(touched) | set(await q.select_canonicals_needing_refresh(conn, app_scope))
    if not ids:
        return Upkeep(0, 0)
    alive = await q.refresh_canonicals(conn, sorted(ids), corpus_filter, hub_degree_threshold, GENERIC_KEYS)
    bridges = await q.rebuild_bridges(conn, app_scope, alive, corpus_filter)
    return Upkeep(len(alive), bridges)
