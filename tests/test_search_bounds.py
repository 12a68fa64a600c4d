"""Full-text candidates are bounded before ranking, most specific matches first (migration 009), by default at 10 x
the rows asked for (016), and search_text is stored only where it differs from the content (009)."""
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
    async with kapp.db.connection() as conn:  # the owner: these helpers are not the retrieval login's to call
        uri = {r["id"]: r["source_uri"] for r in await conn.fetch("SELECT id, source_uri FROM knowledge")}
        # 61 rows match the OR query: more than a scan cap of 40, so the tiers bound what is read and ranked
        bounded = await conn.fetch("SELECT id FROM ne_keyword_hits($1, $2::uuid[], 20, 40)", QUERY, [corpus.id])
        # within the cap (the default, 1000) every match is ranked as the plain OR query ranks it
        whole = await conn.fetch("SELECT id FROM ne_keyword_hits($1, $2::uuid[], 20)", QUERY, [corpus.id])
        plain = await q.keyword_search(conn, QUERY, [corpus.id], 20)
    # ranked by occurrences alone, 60 six-fold "falcon" chunks come first
    assert uri[bounded[0]["id"]] == "specific" and len(bounded) == 20
    assert [r["id"] for r in whole] == [r["id"] for r in plain]
    assert "specific" not in [uri[r["id"]] for r in whole[:20]]


async def test_search_text_is_stored_only_where_segmentation_changed_it(kapp):
    corpus = await kapp.corpora.create("segmented")
    await kapp.ingest_documents(corpus, documents_from_texts([("english", SPECIFIC), ("chinese", CHINESE)]))
    async with kapp.db.connection() as conn:
        stored = {r["source_uri"]: r["search_text"] for r in await conn.fetch(
            "SELECT source_uri, search_text FROM knowledge WHERE corpus_id = $1", corpus.id)}
        found = await q.keyword_search(conn, "杭州", [corpus.id], 5)
    assert stored["english"] is None and stored["chinese"] not in (None, CHINESE)
    assert [r["source_uri"] for r in found] == ["chinese"]


async def test_the_default_scan_cap_is_ten_times_the_rows_asked_for(kapp):
    # migration 016: kb_hybrid_search's top 10 asks for 40 candidates and reads at most 400 matches, not 1,000
    corpus = await kapp.corpora.create("cap")
    texts = [("specific", SPECIFIC), *((f"common-{i}", t) for i, t in enumerate(COMMON))]
    await kapp.ingest_documents(corpus, documents_from_texts(texts))
    async with kapp.db.connection() as conn:
        uri = {r["id"]: r["source_uri"] for r in await conn.fetch("SELECT id, source_uri FROM knowledge")}
        # 61 matches: above a default cap of 50 for 5 rows, so the tiers read the chunk with every term first
        capped = await conn.fetch("SELECT id FROM ne_keyword_hits($1, $2::uuid[], 5)", QUERY, [corpus.id])
        # within a cap of 1,000 all 61 are ranked by ts_rank_cd, and six-fold "falcon" chunks come first
        uncapped = await conn.fetch("SELECT id FROM ne_keyword_hits($1, $2::uuid[], 5, 1000)", QUERY, [corpus.id])
    assert uri[capped[0]["id"]] == "specific"
    assert "specific" not in [uri[r["id"]] for r in uncapped]
