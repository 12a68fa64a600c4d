"""search_knowledge_graph_global on the demo corpora: ranking, citations, and the permission scope."""
import pytest

from knowledge.db.queries import graph as gq
from knowledge.retrieval.global_search import search_knowledge_graph_global

THEMES = "What are the main themes and overall priorities across our projects?"


async def test_global_search_returns_community_material_with_corpus_citations(demo_app):
    kapp, corpora = demo_app
    labels = {c.label for c in corpora.values()}
    result = await search_knowledge_graph_global(kapp.db, kapp.retrieval.spaces, THEMES, None,
                                                 [c.id for c in corpora.values()], limit=5)
    assert result.mode == "global" and len(result.communities) == 5
    assert [c.score for c in result.communities] == sorted((c.score for c in result.communities), reverse=True)
    for community in result.communities:
        assert community.title and community.summary and community.corpus_label in labels
        assert community.members and community.member_count >= len(community.members)
        assert community.citations
        assert all(c.endswith(f"(from Corpus: {community.corpus_label})") for c in community.citations)
    numbers = {h.citation_id for h in result.evidence}  # one number per source document
    assert numbers == set(range(1, len(numbers) + 1))
    assert {n for c in result.communities for n in c.citation_ids} == numbers
    ids = {c.community_id for c in result.communities}
    async with kapp.db.connection() as conn:
        parents = {r["id"]: r["parent_id"] for r in await conn.fetch(
            "SELECT id, parent_id FROM kg_community WHERE id = ANY($1::bigint[])", list(ids))}
    assert not any(parent in ids for parent in parents.values())  # never a community and its own parent
    assert result.to_dict()["communities"][0]["citations"]


async def test_global_search_finds_the_community_of_a_named_entity(demo_app):
    kapp, corpora = demo_app
    result = await search_knowledge_graph_global(kapp.db, kapp.retrieval.spaces,
                                                 "Which vendor labels data, Cobalt Systems?", None,
                                                 [c.id for c in corpora.values()], limit=3)
    assert any("Cobalt Systems" in {m.name for m in c.members} for c in result.communities)


async def test_global_search_only_shows_accessible_corpora(demo_app):
    kapp, corpora = demo_app
    papers = corpora["papers"]
    requested = [c.id for c in corpora.values()]
    result = await search_knowledge_graph_global(kapp.db, kapp.retrieval.spaces, THEMES, requested, [papers.id],
                                                 limit=10)
    assert result.communities and {c.corpus_id for c in result.communities} == {str(papers.id)}
    assert {h.corpus_id for h in result.evidence} == {papers.id}
    assert sorted(result.rejected_corpus_ids) == sorted(str(c.id) for c in corpora.values() if c != papers)

    empty = await search_knowledge_graph_global(kapp.db, kapp.retrieval.spaces, THEMES, [corpora["team_notes"].id],
                                                [papers.id])
    assert empty.mode == "empty" and empty.communities == [] and empty.evidence == []
    assert (await search_knowledge_graph_global(kapp.db, kapp.retrieval.spaces, THEMES, None, [])).mode == "empty"
    with pytest.raises(TypeError):
        await search_knowledge_graph_global(kapp.db, kapp.retrieval.spaces, THEMES, None, None)


async def test_row_level_security_hides_other_corpora_even_if_the_query_asks_for_them(demo_app):
    kapp, corpora = demo_app
    papers = corpora["papers"]
    vector = kapp.query_cache.embed_query(THEMES)
    async with kapp.db.scoped([papers.id]) as conn:
        rows = await gq.search_communities(conn, vector, kapp.settings.embedding_model, THEMES,
                                           [c.id for c in corpora.values()], 200)
        members = await gq.select_community_members(conn, [r["id"] for r in rows], 50)
    assert rows and {r["corpus_id"] for r in rows} == {papers.id}
    assert members
    async with kapp.db.connection() as conn:
        other = await conn.fetchval("SELECT min(id) FROM kg_community WHERE corpus_id = $1", corpora["team_notes"].id)
    async with kapp.db.scoped([papers.id]) as conn:
        assert await gq.select_community_members(conn, [other], 50) == []
