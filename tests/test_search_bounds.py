"""Full-text candidates are bounded before ranking, most specific matches first, and search_text is stored only
where it differs from the content (migration 009)."""
from knowledge.db.queries import chunks as q
from knowledge.ingest.documents import documents_from_texts

QUERY = "falcon cache latency budget"
SPECIFIC = "The Falcon Cache review set a latency budget for the cluster."
COMMON = [f"Falcon falcon falcon falcon falcon falcon sighting number {i} near the river." for i in range(60)]
CHINESE = "阿里巴巴的总部位于杭州，员工超过十万人。"


async def test_a_chunk_with_every_query_term_is_not_drowned_by_a_common_term(kapp):
    corpus = await kapp.corpora.create("bounds")
    texts = [("specific", SPECIFIC), *((f"common-{i}", t) for i, t in enumerate(COMMON))]
    await kapp.ingest_documents(corpus, documents_from_texts(texts))
    embedding = kapp.embedder.embed([QUERY])[0]
    async with kapp.db.scoped([corpus.id]) as conn:
        rows = await q.rrf_search(conn, embedding, QUERY, [corpus.id], 5)  # keyword candidates: top 20
    by_uri = {r["source_uri"]: r for r in rows}
    # the OR query ranked by term occurrences put 60 six-fold "falcon" chunks above it
    assert by_uri["specific"]["keyword_rank"] == 1


async def test_search_text_is_stored_only_where_segmentation_changed_it(kapp):
    corpus = await kapp.corpora.create("segmented")
    await kapp.ingest_documents(corpus, documents_from_texts([("english", SPECIFIC), ("chinese", CHINESE)]))
    async with kapp.db.connection() as conn:
        stored = {r["source_uri"]: r["search_text"] for r in await conn.fetch(
            "SELECT source_uri, search_text FROM knowledge WHERE corpus_id = $1", corpus.id)}
        found = await q.keyword_search(conn, "杭州", [corpus.id], 5)
    assert stored["english"] is None and stored["chinese"] not in (None, CHINESE)
    assert [r["source_uri"] for r in found] == ["chinese"]
