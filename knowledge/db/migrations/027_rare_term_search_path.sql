-- kb_rare_term_search (026) fixes its search path without pg_temp last, so a temp table could shadow what it
-- reads (the rule of 020_no_temp_shadowing, which a catalog test enforces for every function).
ALTER FUNCTION kb_rare_term_search(text, uuid[], integer, integer) SET search_path = pg_catalog, public, pg_temp;
