-- The planner's relation facts (seed entities stage) ranked every relation of the seed entities by
-- to_tsvector(evidence), computed twice per row on every query: ~2,500 relations and 120-250 ms at 5 x 20k
-- (issue 20). The vector is now stored with the relation; matches and ranks are the same (the same expression).
ALTER TABLE kg_relation ADD COLUMN evidence_vector tsvector
    GENERATED ALWAYS AS (to_tsvector('english', evidence)) STORED;
