"""Chunks a document let go of leave the corpus with their share of the graph, in the caller's transaction
(docs/design.md section 2, "Documents change"): a chunk another document still holds stays (cited as that
document's); the rest go with their mentions and relation weight, entities nothing mentions any more go, the
survivors' names follow their remaining mentions, the communities are marked stale and the canonicals that lost
members are refreshed with their bridges. The surviving entities' canonical links follow in the next link run."""
from __future__ import annotations

from collections import Counter, defaultdict
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
from knowledge.graph.naming import display_name, prefilter_keys
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
        renamed = [*await _follow_names(conn, corpus.id, removed.entities_changed),
                   *await _free_names(conn, corpus.id, removed.names_freed)]
        if renamed:  # a canonical is named after its founder: a renamed entity is linked again, as if new
            await cq.delete_aliases(conn, renamed, [corpus.id])
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


async def _follow_names(conn: asyncpg.Connection, corpus_id: UUID, entity_ids: list[int]) -> list[int]:
    """An entity takes its name and type from the mentions left, as a build from the remaining documents does:
    those of its most mentioned (name, type) group, its most used surface form. The renamed ones."""
    renamed = []
    for entity in await rq.select_entity_surfaces(conn, entity_ids):
        name, entity_type = representative(entity)
        if (name, entity_type) == (display_name(entity.canonical_name, entity.entity_type), entity.entity_type):
            continue
        if await _rename(conn, corpus_id, entity.id, name, entity_type):
            renamed.append(entity.id)
    return renamed


def representative(entity: rq.EntitySurfaces) -> tuple[str, str]:
    """knowledge/graph/merge_plan.py's representative group (most mentions, then name, then type) and its most
    mentioned display name, over the entity's remaining mentions."""
    groups: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for surface, mention_type, count in entity.surfaces:
        groups[(normalize_name(surface), mention_type or entity.entity_type)][surface] += count

    def name(names: Counter[str]) -> str:
        return max(sorted(names), key=lambda n: names[n])

    (_, entity_type), names = min(groups.items(), key=lambda g: (-g[1].total(), name(g[1]), g[0][1]))
    return name(names), entity_type


async def _rename(conn: asyncpg.Connection, corpus_id: UUID, entity_id: int, name: str, entity_type: str) -> bool:
    return await rq.rename_entity(conn, entity_id, corpus_id, [name, f"{name} ({entity_type})"],
                                  normalize_name(name), entity_type, prefilter_keys(name))


async def _free_names(conn: asyncpg.Connection, corpus_id: UUID, names_normalized: list[str]) -> list[int]:
    """A name made unique as "Name (TYPE)" because another entity had it takes the plain name once that entity
    is gone, as a build without the other entity names it. The renamed."""
    renamed = []
    for entity in await rq.select_namesakes(conn, corpus_id, names_normalized) if names_normalized else []:
        plain = display_name(entity["canonical_name"], entity["entity_type"])
        if plain != entity["canonical_name"] and await rq.rename_entity(
                conn, entity["id"], corpus_id, [plain], normalize_name(plain), entity["entity_type"],
                prefilter_keys(plain)):
            renamed.append(entity["id"])
    return renamed
