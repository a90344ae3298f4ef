-- Idempotency keys are scoped: by the conversation when the request names one, else by
-- the user, so a retried request without a conversation id finds its first turn.
ALTER TABLE idempotency_keys RENAME COLUMN conversation_id TO scope;

-- When the reconciler last compared an open turn with its workflow: the sweep checks
-- the least recently checked turns first, so none is starved.
ALTER TABLE turns ADD COLUMN swept_at timestamptz;
