-- Search latency (issue 20): the planner's row estimates for the candidate functions. Without ROWS a set-returning
-- function counts as 1,000 rows, so kb_rrf_search expected 5,000 fused ids and joined them back to knowledge with
-- a merge join over a full primary-key index scan (40k rows read for ~160 ids, a third of its time at 5 x 20k).
-- Both functions return at most n / want rows (the search functions ask for 4 x their limit); with this estimate
-- the join is a nested loop of primary-key lookups. Same rows, same order: only the plan changes.
ALTER FUNCTION ne_semantic_hits(vector, uuid[], int) ROWS 40;
ALTER FUNCTION ne_keyword_hits(text, uuid[], int, int) ROWS 40;
