"""Named queries on how far ingest got per corpus: chunks awaiting graph extraction, entities awaiting
canonical links, stale communities, and the record of the last community build (migration 010)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence
from uuid import UUID

import asyncpg

# an entity awaits linking when it has no alias or its row changed since it was linked (as the linker selects)
_UNLINKED_ENTITY = """
    SELECT 1 FROM kg_entity e
    LEFT JOIN kg_entity_alias a ON a.local_entity_id = e.id
    WHERE e.corpus_id = c.id
      AND (a.id IS NULL OR a.entity_updated_at <> e.updated_at
           OR a.linked_name <> e.canonical_name OR a.linked_type <> e.entity_type)"""

_STALE_COMMUNITIES = """
    EXISTS (SELECT 1 FROM kg_entity e WHERE e.corpus_id = c.id)
    AND (b.corpus_id IS NULL
         OR EXISTS (SELECT 1 FROM kg_extracted_chunk x
                    WHERE x.corpus_id = c.id AND x.extracted_at > b.communities_built_at))"""


@dataclass(frozen=True)
class CorpusIngestStatus:
    corpus_id: UUID
    name: str
    documents: int
    chunks: int
    awaiting_extraction: int
    entities: int
    awaiting_linking: int
    communities_stale: bool
    last_graph_build: datetime | None

    @property
    def unfinished(self) -> bool:
        return bool(self.awaiting_extraction or self.awaiting_linking or self.communities_stale)


async def select_ingest_status(conn: asyncpg.Connection, corpus_ids: Sequence[UUID]) -> list[CorpusIngestStatus]:
    """Per corpus: documents, chunks, chunks awaiting extraction, entities (and those awaiting canonical links),
    whether its communities are stale, and when they were last built; in corpus name order."""
    rows = await conn.fetch(
        f"""SELECT c.id, c.name,
                   (SELECT count(DISTINCT k.document_hash) FROM knowledge k WHERE k.corpus_id = c.id) AS documents,
                   (SELECT count(*) FROM knowledge k WHERE k.corpus_id = c.id) AS chunks,
                   (SELECT count(*) FROM knowledge k WHERE k.corpus_id = c.id
                      AND NOT EXISTS (SELECT 1 FROM kg_extracted_chunk x WHERE x.chunk_id = k.id))
                       AS awaiting_extraction,
                   (SELECT count(*) FROM kg_entity e WHERE e.corpus_id = c.id) AS entities,
                   (SELECT count(*) FROM ({_UNLINKED_ENTITY}) u) AS awaiting_linking,
                   ({_STALE_COMMUNITIES}) AS communities_stale,
                   b.communities_built_at
            FROM corpus c LEFT JOIN corpus_graph_build b ON b.corpus_id = c.id
            WHERE c.id = ANY($1::uuid[])
            ORDER BY c.name""",
        list(corpus_ids),
    )
    return [CorpusIngestStatus(r["id"], r["name"], r["documents"], r["chunks"], r["awaiting_extraction"],
                               r["entities"], r["awaiting_linking"], r["communities_stale"],
                               r["communities_built_at"]) for r in rows]


async def communities_stale(conn: asyncpg.Connection, corpus_id: UUID) -> bool:
    """The corpus has entities and a chunk was extracted after its last community build (or there was none)."""
    return await conn.fetchval(
        f"""SELECT {_STALE_COMMUNITIES}
            FROM corpus c LEFT JOIN corpus_graph_build b ON b.corpus_id = c.id WHERE c.id = $1""",
        corpus_id,
    ) or False


async def record_communities_built(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """Called in the transaction that recomputed the corpus's communities."""
    await conn.execute(
        """INSERT INTO corpus_graph_build (corpus_id, communities_built_at) VALUES ($1, now())
           ON CONFLICT (corpus_id) DO UPDATE SET communities_built_at = excluded.communities_built_at""",
        corpus_id,
    )
