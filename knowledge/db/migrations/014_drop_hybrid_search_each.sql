-- Legacy search runs kb_hybrid_search per corpus in parallel connections (faster on several cores than one
-- backend running the corpora one after another), so the one-round-trip variant has no caller left.
DROP FUNCTION IF EXISTS kb_hybrid_search_each(vector, text, uuid[], int, float8);
