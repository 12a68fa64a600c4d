-- Search latency (issue 20): the planner's row estimates for the candidate functions. Without ROWS a set-returning
-- function counts as 1,000 rows, so kb_rrf_search expected 5,000 fused ids and joined them back to knowledge with
-- a merge join over a full primary-key index scan (40k rows read for ~160 ids, a third of its time at 5 x 20k).
-- Both functions return at most n / want rows (the search functions ask for 4 x their limit); with this estimate
-- the join is a nested loop of primary-key lookups. Same rows, same order: only the plan changes.
ALTER FUNCTION ne_semantic_hits(vector, uuid[], int) ROWS 40;
ALTER FUNCTION ne_keyword_hits(text, uuid[], int, int) ROWS 40;

-- ne_keyword_hits first asks whether more than scan_cap rows of the corpora match the OR query (LIMIT
-- scan_cap + 1). The planner expected matches spread evenly over the table and chose a sequential scan, which
-- for a corpus stored late in the heap reads every page of the corpora before it (50-200 ms at 5 x 20k); a
-- bitmap on the corpus index reads that corpus's pages only (~2-6 ms). Which rows a LIMIT without ORDER BY
-- returns does not change: every plan left here (bitmap heap scans, btree entries in heap order) reads the
-- matches in physical order, as the sequential scan did.
ALTER FUNCTION ne_keyword_hits(text, uuid[], int, int) SET enable_seqscan = off;
