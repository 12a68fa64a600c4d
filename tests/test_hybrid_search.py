"""kb_hybrid_search / kb_rrf_search on a real database: keyword-only, meaning-only, corpus filter."""
import pytest

from knowledge.db.queries import chunks as q
from knowledge.ingest.documents import documents_from_texts

DOCS = {
    "parts": "Order replacement part ZQ-7731 for the hydraulic pump before Friday.",
    "cat": "The feline dozed peacefully on the woven rug all afternoon.",
    "weather": "Heavy rain is expected across the northern provinces tomorrow.",
    "finance": "Quarterly revenue grew by eight percent thanks to enterprise contracts.",
    "cooking": "Simmer the tomato sauce slowly and add basil at the very end.",
    "chinese": "阿里巴巴的总部位于杭州，员工超过十万人。",
}


@pytest.fixture
async def two_corpora(kapp):
    a = await kapp.corpora.create("alpha")
    b = await kapp.corpora.create("beta")
    await kapp.ingest_documents(a, documents_from_texts(DOCS.items()))
    await kapp.ingest_documents(b, documents_from_texts(
        [("b-cat", "A kitten napped on the carpet in the living room."),
         ("b-parts", "Part ZQ-7731 is out of stock at the beta warehouse.")]))
    return kapp, a, b


@pytest.mark.parametrize("function", ["hybrid", "rrf"])
@pytest.mark.parametrize(("query", "expected"), [
    ("ZQ-7731", "parts"),                       # keyword only: the code carries no meaning
    ("cat sleeping on a carpet", "cat"),        # meaning only: no word in common with the chunk
    ("杭州", "chinese"),                         # Chinese keyword after segmentation
])
async def test_search_functions_find_the_right_chunk(two_corpora, function, query, expected):
    kapp, a, _ = two_corpora
    embedding = kapp.embedder.embed([query])[0]
    search = q.hybrid_search if function == "hybrid" else q.rrf_search
    async with kapp.db.connection() as conn:
        rows = await search(conn, embedding, query, [a.id], 3)
    assert rows[0]["source_uri"] == expected


async def test_meaning_only_query_shares_no_keyword(two_corpora):
    kapp, a, _ = two_corpora
    async with kapp.db.connection() as conn:
        rows = await q.keyword_search(conn, "cat sleeping on a carpet", [a.id], 5)
    assert all(r["source_uri"] != "cat" for r in rows)


@pytest.mark.parametrize("function", ["hybrid", "rrf", "dense", "keyword"])
async def test_corpus_filter_never_returns_another_corpus(two_corpora, function):
    kapp, a, b = two_corpora
    for query in ("ZQ-7731", "cat on a carpet", "warehouse stock"):
        embedding = kapp.embedder.embed([query])[0]
        async with kapp.db.connection() as conn:
            if function == "hybrid":
                rows = await q.hybrid_search(conn, embedding, query, [b.id], 50)
            elif function == "rrf":
                rows = await q.rrf_search(conn, embedding, query, [b.id], 50)
            elif function == "dense":
                rows = await q.dense_search(conn, embedding, [b.id], 50)
            else:
                rows = await q.keyword_search(conn, query, [b.id], 50)
        assert rows or function == "keyword"
        assert {r["corpus_id"] for r in rows} <= {b.id}


async def test_legacy_search_intersects_requested_with_accessible(two_corpora):
    kapp, a, b = two_corpora
    hits = await kapp.legacy_search("ZQ-7731", [a.id, b.id], [b.id], limit=10)
    assert hits and {h.corpus_id for h in hits} == {b.id}
    assert await kapp.legacy_search("ZQ-7731", [a.id], [b.id]) == []
    assert await kapp.legacy_search("ZQ-7731", ["not-a-uuid"], [a.id, b.id]) == []
    assert await kapp.legacy_search("   ", None, [a.id]) == []
    hits = await kapp.legacy_search("ZQ-7731", None, [a.id, b.id], limit=10)
    assert {h.corpus_id for h in hits} == {a.id, b.id}
    assert hits[0].formatted_citation.endswith(f"(from Corpus: {hits[0].corpus_label})")
