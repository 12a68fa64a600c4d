-- Temporary tables cannot reach into the owner's functions (issue 48 item 1).
--
-- A relation name is looked up in pg_temp first unless pg_temp is named in the search path, even before
-- pg_catalog. The SECURITY DEFINER functions set `pg_catalog, public` only, so a session of the retrieval login
-- could create a temp ne_binding_key (forging the binding proof for any corpus ids) or a temp pg_roles saying it is
-- a superuser, and the functions read those as the owner. Two layers: the login cannot create temp tables at all,
-- and every function that fixes its search path searches pg_temp last (where a temp table is never found before
-- the real one), so a TEMP granted again later opens nothing.
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM negentropy_app, negentropy_reader', current_database());
END $$;

DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public'
          AND (p.prosecdef OR EXISTS (SELECT 1 FROM unnest(p.proconfig) AS c WHERE c LIKE 'search_path=%'))
          AND NOT EXISTS (SELECT 1 FROM pg_depend d  -- an extension's functions are the extension's
                          WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, public, pg_temp', f);
    END LOOP;
END $$;

-- A canonical entity's member count and degree add up members of every corpus, so a reader who sees the canonical
-- through one member would learn how many copies, and how connected, it has in corpora hidden from them. The
-- reader keeps every other column (the planner reads names, flags and the centroid) and counts members through
-- kg_entity_alias, whose policy shows only the visible ones.
REVOKE SELECT ON kg_entity_canonical FROM negentropy_reader;
GRANT SELECT (id, app_scope, canonical_name, canonical_name_normalized, canonical_type, primary_embedding,
              is_under_review, is_stopword_like, needs_refresh, in_vector_index, created_at, updated_at)
    ON kg_entity_canonical TO negentropy_reader;
