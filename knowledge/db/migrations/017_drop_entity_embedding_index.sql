-- No query on the serving or ingest path searches local entity vectors by nearest neighbour: resolution blocks on
-- name keys and compares vectors in memory, and the canonical linker searches canonical centroids (their own HNSW
-- index). The index on kg_entity.embedding was maintained on every entity insert (about a tenth of the MuSiQue
-- ingest, issue 20) for the off-by-default query-to-entity-linking ablation alone, which scans the searched
-- corpora's entities exactly instead.
DROP INDEX IF EXISTS kg_entity_embedding_hnsw;
