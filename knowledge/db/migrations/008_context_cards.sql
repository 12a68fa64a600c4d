-- Knowledge cards (DESIGN.md section 8): new knowledge from chat or `negentropy card submit` waits in
-- its author's inbox corpus (only the author can search it) until a reviewer of the target library
-- promotes it into the target corpus. inbox -> reviewed -> promoted | rejected (inbox -> rejected too).
CREATE TABLE knowledge_card (
    id               bigserial PRIMARY KEY,
    app_name         text NOT NULL,
    author           text NOT NULL,                 -- person id from the workspace topology
    title            text NOT NULL DEFAULT '',
    content          text NOT NULL CHECK (length(btrim(content)) > 0),
    content_hash     text NOT NULL,
    source           text NOT NULL CHECK (source IN ('chat', 'cli', 'api')),
    target_library   text NOT NULL,                 -- context library id
    target_corpus_id uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    inbox_corpus_id  uuid REFERENCES corpus(id) ON DELETE SET NULL,
    metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
    review_status    text NOT NULL DEFAULT 'inbox'
                     CHECK (review_status IN ('inbox', 'reviewed', 'promoted', 'rejected')),
    review_note      text NOT NULL DEFAULT '',
    reviewed_by      text,
    reviewed_at      timestamptz,
    decided_by       text,
    decided_at       timestamptz,
    decision_note    text NOT NULL DEFAULT '',
    promoted_chunk_count int NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- the same text from the same author for the same corpus is one card (re-submitting is idempotent)
    UNIQUE (app_name, author, target_corpus_id, content_hash),
    CHECK ((review_status IN ('inbox') AND reviewed_by IS NULL AND decided_by IS NULL)
        OR (review_status = 'reviewed' AND reviewed_by IS NOT NULL AND decided_by IS NULL)
        OR (review_status IN ('promoted', 'rejected') AND decided_by IS NOT NULL))
);
CREATE INDEX knowledge_card_queue_idx ON knowledge_card (app_name, target_library, review_status);
CREATE INDEX knowledge_card_author_idx ON knowledge_card (app_name, author, created_at DESC);

-- Every transition, for audit: who moved which card from what to what, and why.
CREATE TABLE knowledge_card_event (
    id          bigserial PRIMARY KEY,
    card_id     bigint NOT NULL REFERENCES knowledge_card(id) ON DELETE CASCADE,
    actor       text NOT NULL,
    from_status text,
    to_status   text NOT NULL,
    note        text NOT NULL DEFAULT '',
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_card_event_card_idx ON knowledge_card_event (card_id, at);
