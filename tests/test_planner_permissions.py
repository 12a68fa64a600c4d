"""Property: whatever corpus ids a caller forges and whatever accessible set it passes, no retrieval result
(primary or graph-expanded, strict scope or not) ever carries a chunk from a corpus outside the accessible set,
and evidence from corpora nobody mentioned is only ever graph-expanded (and never under strict scope)."""
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.corpus_ids import parse_corpus_id
from knowledge.db.queries import chunks as chunk_queries

QUESTIONS = [
    "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?",
    "Who acquired the labeling vendor that the Atlas team picked?",
    "Where is the author of the paper that introduced Quill Resolver based?",
    "What is the reindex schedule?",
]
FORGED = [uuid.UUID(int=1), uuid.UUID("00000000-0000-4000-8000-00000000beef"), "not-a-uuid", "", "  ", None]


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
async def test_no_chunk_outside_the_accessible_corpora_ever_comes_back(demo_app, data):
    kapp, corpora = demo_app
    real = [c.id for c in corpora.values()]
    spellings = real + [str(i).upper() for i in real] + FORGED
    accessible = data.draw(st.lists(st.sampled_from(spellings), max_size=6), label="accessible")
    requested = data.draw(st.none() | st.lists(st.sampled_from(spellings), max_size=6), label="requested")
    strict = data.draw(st.booleans(), label="strict")
    question = data.draw(st.sampled_from(QUESTIONS), label="question")

    response = await kapp.retrieval.search(question, requested, accessible, limit=8, strict_scope=strict)

    allowed = {parse_corpus_id(a) for a in accessible} & set(real)
    mentioned = allowed if requested is None else {parse_corpus_id(r) for r in requested} & allowed
    if not mentioned:
        assert response.hits == []
    async with kapp.db.connection() as conn:
        stored = {r["id"]: r["corpus_id"] for r in
                  await chunk_queries.select_chunks_by_ids(conn, [h.chunk_id for h in response.hits], real)}
    for hit in response.hits:
        assert stored[hit.chunk_id] == hit.corpus_id  # labelled with the corpus it really lives in
        assert hit.corpus_id in allowed
        if hit.corpus_id not in mentioned:
            assert not strict and hit.evidence_type == "graph_expanded"
        if hit.evidence_type == "graph_expanded":
            assert hit.bridge.source_corpus_id in mentioned and hit.bridge.target_corpus_id == hit.corpus_id
    for bridge in response.bridges:
        assert {bridge.source_corpus_id, bridge.target_corpus_id} <= allowed
