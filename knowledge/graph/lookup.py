"""Read-side views of a corpus graph for people: one entity with its relations and communities."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import graph as gq
from knowledge.names import normalize_name

RELATIONS_SHOWN = 25


@dataclass
class RelationView:
    direction: str  # "out": the entity is the source
    relation_type: str
    other_name: str
    other_type: str
    weight: float
    evidence: str


@dataclass
class CommunityView:
    level: int
    title: str
    member_count: int


@dataclass
class EntityView:
    entity_id: int
    corpus: Corpus
    name: str
    type: str
    description: str
    aliases: list[str]
    mention_count: int
    degree: int
    relations: list[RelationView] = field(default_factory=list)
    communities: list[CommunityView] = field(default_factory=list)


async def describe_entities(db: Database, name: str, corpora: Sequence[Corpus]) -> list[EntityView]:
    """Every entity in ``corpora`` called ``name`` (normalised name, canonical name or alias)."""
    if not name.strip():
        raise ValueError("the entity name is empty")
    by_id = {c.id: c for c in corpora}
    views: list[EntityView] = []
    async with db.connection() as conn:
        for row in await gq.select_entities_named(conn, normalize_name(name), name.strip(), list(by_id)):
            view = EntityView(row["id"], by_id[row["corpus_id"]], row["canonical_name"], row["entity_type"],
                              row["description"], list(row["aliases"]), row["mention_count"], row["degree"])
            view.relations = [RelationView(r["direction"], r["relation_type"], r["other_name"], r["other_type"],
                                           float(r["weight"]), r["evidence"])
                              for r in await gq.select_entity_relations(conn, row["id"], RELATIONS_SHOWN)]
            view.communities = [CommunityView(c["level"], c["title"], c["member_count"])
                                for c in await gq.select_entity_communities(conn, row["id"])]
            views.append(view)
    return views
