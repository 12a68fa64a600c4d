"""Chunks a document let go of leave the corpus with their share of the graph, in the caller's transaction
(docs/design.md section 2, "Documents change"): a chunk another document still holds stays (cited as that
document's); the rest go with their mentions and relation weight, entities nothing mentions any more go, the
survivors' names follow their remaining mentions, the communities are marked stale and the canonicals that lost
members are refreshed with their bridges. The surviving entities' canonical links follow in the next link run."""
from __future__ import annotations

from typing import Sequence
from uuid import UUID

import asyncpg

from knowledge.canonical.upkeep import settle
from knowledge.corpora import Corpus
from knowledge.db.queries import canonical as cq
from knowledge.db.queries import documents as dq
from knowledge.db.queries import graph as gq
from knowledge.db.queries import graph_removal as rq
from knowledge.db.queries.canonical.corpus_filter import require_corpus_filter
from knowledge.graph.naming import prefilter_keys
from knowledge.names import normalize_name


async def lock_for_removal(conn: asyncpg.Connection, corpus: Corpus) -> None:
    """The corpus graph, then the app's canonical layer (the order every remover takes them in)."""
    await gq.lock_corpus_graph(conn, corpus.id)
    await cq.lock_app_scope(conn, corpus.app_name)


async def release_chunks(conn: asyncpg.Connection, corpus: Corpus, chunk_ids: Sequence[int],
                         hub_degree_threshold: int) -> rq.RemovedChunks:
    """Called under ``lock_for_removal`` with the chunks a document no longer holds."""
    if not chunk_ids:
        return rq.RemovedChunks(0, 0, 0, [])
    await dq.move_shared_chunks(conn, chunk_ids)
    removed = await rq.remove_chunks(conn, corpus.id, await dq.select_unheld_chunks(conn, chunk_ids))
    if removed.chunks:
        await _follow_names(conn, corpus.id, removed.entities_changed)
        await rq.mark_communities_stale(conn, corpus.id)
        await settle_canonicals(conn, corpus.app_name, hub_degree_threshold)
    return removed


async def settle_canonicals(conn: asyncpg.Connection, app_scope: str, hub_degree_threshold: int) -> None:
    """Canonicals whose members went are refreshed (or deleted) and their bridges rebuilt, in this transaction."""
    corpora = await cq.select_app_corpus_ids(conn, app_scope)
    if corpora:
        await settle(conn, app_scope, require_corpus_filter(corpora), (), hub_degree_threshold)
    else:  # the app's last corpus went: no canonical has a member
        await cq.delete_app_scope_canonicals(conn, app_scope)


async def _follow_names(conn: asyncpg.Connection, corpus_id: UUID, entity_ids: list[int]) -> None:
    """An entity whose remaining mentions no longer use its name takes their most used surface form, as a build
    from the remaining documents names it (kept when another entity of the corpus has that name)."""
    for entity in await rq.select_entity_surfaces(conn, entity_ids):
        if any(normalize_name(surface) == entity.name_normalized for surface, _ in entity.surfaces):
            continue
        name = entity.surfaces[0][0]
        await rq.rename_entity(conn, entity.id, corpus_id, name, normalize_name(name), prefilter_keys(name))
