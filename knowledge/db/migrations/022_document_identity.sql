-- Document identity (issue 44): a document is its source URI within a corpus. A chunk belongs to every document
-- whose text contains it (kb_document_chunk; a chunk row is still stored once per corpus by content hash) and is
-- removed, with its share of the graph, when no document holds it any more. A relation remembers what each chunk
-- gave it (kg_relation_chunk), so removing a chunk takes its weight away and a relation no chunk supports goes.
CREATE TABLE kb_document (
    id            bigserial PRIMARY KEY,
    corpus_id     uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    source_uri    text NOT NULL,
    title         text NOT NULL DEFAULT '',
    document_hash text NOT NULL DEFAULT '',
    -- false while an ingest is still storing the document's chunks: the next ingest finishes it
    complete      boolean NOT NULL DEFAULT false,
    origin        text NOT NULL DEFAULT '',  -- the folder it was last ingested from (what `--sync` compares)
    chunk_count   int NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus_id, source_uri)
);

CREATE TABLE kb_document_chunk (
    document_id bigint NOT NULL REFERENCES kb_document(id) ON DELETE CASCADE,
    chunk_id    bigint NOT NULL REFERENCES knowledge(id) ON DELETE CASCADE,
    corpus_id   uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    PRIMARY KEY (document_id, chunk_id)
);
CREATE INDEX kb_document_chunk_chunk_idx ON kb_document_chunk (chunk_id);

-- The type the extractor gave each mention (NULL before this migration: the entity's own), so an entity that
-- loses the mentions it took its name and type from takes them from the mentions left.
ALTER TABLE kg_entity_mention ADD COLUMN entity_type text;

CREATE TABLE kg_relation_chunk (
    relation_id bigint NOT NULL REFERENCES kg_relation(id) ON DELETE CASCADE,
    chunk_id    bigint NOT NULL REFERENCES knowledge(id) ON DELETE CASCADE,
    corpus_id   uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    weight      float8 NOT NULL,
    evidence    text NOT NULL DEFAULT '',
    PRIMARY KEY (relation_id, chunk_id)
);
CREATE INDEX kg_relation_chunk_chunk_idx ON kg_relation_chunk (chunk_id);

-- Existing chunks: one document per (corpus, source URI). A source whose chunks carry one document hash is that
-- version; one with several (a changed file ingested again before this migration) gets an empty hash, so the next
-- ingest of it replaces every old version with the current one.
INSERT INTO kb_document (corpus_id, source_uri, title, document_hash, complete, chunk_count)
    SELECT corpus_id, source_uri, coalesce(max(metadata->>'title'), ''),
           CASE WHEN count(DISTINCT document_hash) = 1 THEN min(document_hash) ELSE '' END, true, count(*)
    FROM knowledge GROUP BY corpus_id, source_uri;
INSERT INTO kb_document_chunk (document_id, chunk_id, corpus_id)
    SELECT d.id, k.id, k.corpus_id FROM knowledge k
    JOIN kb_document d ON d.corpus_id = k.corpus_id AND d.source_uri = k.source_uri;
-- Existing relations: their weight is shared out over the chunks naming both ends (their evidence chunk when none
-- does), the best this schema's rows can say about where it came from; `negentropy graph build` makes it exact.
INSERT INTO kg_relation_chunk (relation_id, chunk_id, corpus_id, weight, evidence)
    SELECT r.id, c.chunk_id, r.corpus_id, r.weight / count(*) OVER (PARTITION BY r.id),
           CASE WHEN c.chunk_id = r.evidence_chunk_id THEN r.evidence ELSE '' END
    FROM kg_relation r
    CROSS JOIN LATERAL (
        SELECT s.chunk_id FROM kg_entity_mention s JOIN kg_entity_mention t ON t.chunk_id = s.chunk_id
        WHERE s.entity_id = r.source_entity_id AND t.entity_id = r.target_entity_id
        UNION
        SELECT r.evidence_chunk_id WHERE r.evidence_chunk_id IS NOT NULL
    ) c;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['kb_document', 'kb_document_chunk', 'kg_relation_chunk'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY %I ON %I FOR SELECT TO negentropy_reader '
                       'USING (corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[]))', t || '_reader_scope', t);
        EXECUTE format('GRANT SELECT ON %I TO negentropy_reader', t);
    END LOOP;
END $$;

-- `negentropy document delete`, `corpus delete` and `ingest --sync` audit their deletions like the gateway's tools.
ALTER TABLE gateway_audit DROP CONSTRAINT gateway_audit_channel_check;
ALTER TABLE gateway_audit ADD CONSTRAINT gateway_audit_channel_check CHECK (channel IN ('mcp', 'adk', 'cli'));
