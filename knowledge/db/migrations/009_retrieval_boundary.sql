-- Row-level security as a real boundary (issue 16 item 5).
--
-- Retrieval logs in as negentropy_app: not a superuser, no BYPASSRLS, owns nothing, a member of
-- negentropy_reader only (whose SELECT grants and policies it inherits). RESET ROLE in its sessions comes back
-- to itself, and it cannot SET ROLE to the owner. The accessible corpus ids of a transaction are a setting any
-- session can write, so they count only together with a proof, sha256(key || sha256(key || ':' || backend pid
-- || ':' || ids)), whose key lives in a table only the owner reads. The application reads the key over its
-- owner connection and binds the ids with ne_bind_accessible_corpus_ids (EXECUTE granted to negentropy_app
-- only); ne_accessible_corpus_ids() checks the proof again on every statement, so ids written directly, a
-- forged proof, or a proof made for another session's backend give no row at all.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'negentropy_app') THEN
        CREATE ROLE negentropy_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION INHERIT;
    END IF;
END $$;
GRANT negentropy_reader TO negentropy_app;

CREATE TABLE ne_binding_key (
    singleton bool PRIMARY KEY DEFAULT true CHECK (singleton),
    secret    text NOT NULL
);
REVOKE ALL ON ne_binding_key FROM PUBLIC;
INSERT INTO ne_binding_key (secret)
    VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

-- The proof for ids (text form of a uuid[]) in one backend; only the owner's own functions may compute it.
CREATE FUNCTION ne_binding_proof(ids text, backend_pid int) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT encode(sha256(convert_to(
               k.secret || encode(sha256(convert_to(k.secret || ':' || backend_pid || ':' || ids, 'UTF8')), 'hex'),
               'UTF8')), 'hex')
    FROM ne_binding_key k
$$;
REVOKE EXECUTE ON FUNCTION ne_binding_proof(text, int) FROM PUBLIC;

CREATE FUNCTION ne_bind_accessible_corpus_ids(ids uuid[], proof text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    IF proof IS NULL OR ids IS NULL OR ne_binding_proof(ids::text, pg_backend_pid()) IS DISTINCT FROM proof THEN
        RAISE EXCEPTION 'accessible corpus ids can only be bound by the application'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM set_config('negentropy.accessible_corpus_ids', ids::text, true);
    PERFORM set_config('negentropy.accessible_corpus_proof', proof, true);
END $$;
REVOKE EXECUTE ON FUNCTION ne_bind_accessible_corpus_ids(uuid[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ne_bind_accessible_corpus_ids(uuid[], text) TO negentropy_app;

-- Accessible corpus ids of the current transaction: none unless bound with a valid proof for this backend.
CREATE OR REPLACE FUNCTION ne_accessible_corpus_ids() RETURNS uuid[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT CASE WHEN s.proof <> '' AND ne_binding_proof(s.ids, pg_backend_pid()) = s.proof THEN s.ids::uuid[]
                ELSE '{}'::uuid[] END
    FROM (SELECT coalesce(nullif(current_setting('negentropy.accessible_corpus_ids', true), ''), '{}') AS ids,
                 coalesce(current_setting('negentropy.accessible_corpus_proof', true), '') AS proof) s
$$;

-- Every policy reads the ids once per statement (an InitPlan), not once per row.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['knowledge', 'kg_entity', 'kg_relation', 'kg_entity_mention',
                             'kg_resolution_candidate', 'kg_community', 'kg_community_member',
                             'kg_extracted_chunk', 'kg_entity_alias', 'kg_cross_corpus_bridge_corpus',
                             'kg_canonical_review', 'kg_canonical_decision', 'kg_canonical_rejection'] LOOP
        EXECUTE format('ALTER POLICY %I ON %I USING (corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[]))',
                       t || '_reader_scope', t);
    END LOOP;
END $$;
ALTER POLICY corpus_reader_scope ON corpus USING (id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[]));
ALTER POLICY kg_entity_canonical_reader_scope ON kg_entity_canonical
    USING (EXISTS (SELECT 1 FROM kg_entity_alias a
                   WHERE a.canonical_id = kg_entity_canonical.id
                     AND a.corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[])));
ALTER POLICY kg_cross_corpus_bridge_reader_scope ON kg_cross_corpus_bridge
    USING (EXISTS (SELECT 1
                   FROM kg_cross_corpus_bridge_corpus s
                   JOIN kg_cross_corpus_bridge_corpus t
                     ON t.bridge_id = s.bridge_id AND t.role = 'target' AND t.corpus_id <> s.corpus_id
                   WHERE s.bridge_id = kg_cross_corpus_bridge.id AND s.role = 'source'
                     AND s.corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[])
                     AND t.corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[])));
