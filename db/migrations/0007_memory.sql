-- Memory beyond the recent turns (docs/memory.md).
--
-- Facts about a user: claims the user made about themselves ("figures in billions",
-- "I only follow iron-ore miners"), versioned. A new value of a kind closes the current
-- row (valid_to) and opens a new one; closed rows are kept as history until the user's
-- memory is erased, which deletes every version.
CREATE TABLE user_facts (
    fact_id     bigserial PRIMARY KEY,
    tenant_id   text NOT NULL,
    user_id     text NOT NULL,
    kind        text NOT NULL,
    value       text NOT NULL,
    statement   text NOT NULL,
    turn_id     text,
    valid_from  timestamptz NOT NULL DEFAULT now(),
    valid_to    timestamptz
);
CREATE UNIQUE INDEX user_facts_current ON user_facts (tenant_id, user_id, kind)
    WHERE valid_to IS NULL;

-- Conversation summaries: older messages compressed into one note. The messages are never
-- deleted: they are marked with the summary that covers them (summary_id), and the newest
-- summary of a conversation covers everything up to `through_message_id`.
CREATE TABLE conversation_summaries (
    summary_id          bigserial PRIMARY KEY,
    conversation_id     text NOT NULL REFERENCES conversations (conversation_id),
    through_message_id  bigint NOT NULL,
    messages            integer NOT NULL,
    summary             text NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (conversation_id, through_message_id)
);
ALTER TABLE messages ADD COLUMN summary_id bigint
    REFERENCES conversation_summaries (summary_id) ON DELETE SET NULL;
