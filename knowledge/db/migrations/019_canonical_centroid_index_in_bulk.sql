-- Ingest throughput (issue 20): canonical centroids enter their HNSW index in bulk when that is cheaper. Inserting a
-- row into an HNSW index costs ~1.5-2 ms (9.5k new canonicals of the MuSiQue corpus: 12.7 s of PostgreSQL time,
-- the largest graph cost beside the model), building the index over the same rows ~0.3 ms a row. New canonicals
-- are written with in_vector_index = false: they are outside the index's predicate, and the nearest-canonical
-- search reads them exactly (kg_entity_canonical_unindexed_idx) next to the index's approximate answer.
-- After a link run knowledge/canonical/centroid_index.py indexes them: row by row while the unindexed are fewer
-- than the indexed, otherwise (an app's first ingest) once at the end of the ingest, by rebuilding the index.
ALTER TABLE kg_entity_canonical ADD COLUMN in_vector_index boolean NOT NULL DEFAULT true;
ALTER TABLE kg_entity_canonical ALTER COLUMN in_vector_index SET DEFAULT false;
DROP INDEX kg_entity_canonical_embedding_hnsw;
CREATE INDEX kg_entity_canonical_embedding_hnsw ON kg_entity_canonical
    USING hnsw (primary_embedding vector_cosine_ops) WHERE in_vector_index;
CREATE INDEX kg_entity_canonical_unindexed_idx ON kg_entity_canonical (app_scope, canonical_type)
    WHERE NOT in_vector_index;
