-- Conversations, turns and messages. The API allocates `seq` atomically and decides
-- 404/409 from `turns`; activities write results idempotently (retries never duplicate).
CREATE TABLE conversations (
    conversation_id  text PRIMARY KEY,
    user_id          text,
    last_seq         integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE turns (
    turn_id          text PRIMARY KEY,
    conversation_id  text NOT NULL REFERENCES conversations (conversation_id),
    seq              integer NOT NULL,
    status           text NOT NULL,
    question         text NOT NULL,
    result           jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (conversation_id, seq)
);
CREATE INDEX turns_open ON turns (conversation_id) WHERE status IN ('running', 'needs_clarification');

CREATE TABLE messages (
    message_id       bigserial PRIMARY KEY,
    conversation_id  text NOT NULL REFERENCES conversations (conversation_id),
    turn_id          text NOT NULL REFERENCES turns (turn_id),
    role             text NOT NULL CHECK (role IN ('user', 'assistant')),
    content          text NOT NULL,
    resolved         text,
    status           text NOT NULL,
    citations        jsonb NOT NULL DEFAULT '[]',
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (turn_id, role)
);
CREATE INDEX messages_conversation ON messages (conversation_id, message_id);

CREATE TABLE idempotency_keys (
    conversation_id  text NOT NULL,
    key              text NOT NULL,
    request_hash     text NOT NULL,
    turn_id          text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (conversation_id, key)
);
