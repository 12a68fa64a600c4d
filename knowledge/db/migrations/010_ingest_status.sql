-- Ingest stages a re-run must finish: chunks without extraction are those without a kg_extracted_chunk row,
-- entities without canonical links those without a current kg_entity_alias row; communities are stale when
-- a chunk was extracted after the corpus's last community build, recorded here.
CREATE TABLE corpus_graph_build (
    corpus_id            uuid PRIMARY KEY REFERENCES corpus(id) ON DELETE CASCADE,
    communities_built_at timestamptz NOT NULL
);

-- corpora whose communities exist were built before this table: take them as up to date
INSERT INTO corpus_graph_build (corpus_id, communities_built_at)
SELECT DISTINCT corpus_id, now() FROM kg_community;

CREATE INDEX kg_extracted_chunk_corpus_time_idx ON kg_extracted_chunk (corpus_id, extracted_at);
