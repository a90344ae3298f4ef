-- Conversation expiry (docs/memory.md, "Expiry"): the daily retention schedule deletes the
-- turns, messages, summaries and feedback of conversations idle for longer than
-- TURNSTILE_CONVERSATION_RETENTION_DAYS. The decision records stay (their own retention).
--
-- A conversation's last activity: its creation, or the latest change to one of its
-- turns (allocated, saved, a clarification reply claimed). A trigger on `turns` keeps it,
-- so every writer, the sweeper's and older code's included, moves it.
ALTER TABLE conversations ADD COLUMN last_active_at timestamptz;
UPDATE conversations c SET last_active_at = greatest(
    c.created_at,
    (SELECT max(t.updated_at) FROM turns t WHERE t.conversation_id = c.conversation_id)
);
ALTER TABLE conversations
    ALTER COLUMN last_active_at SET DEFAULT now(),
    ALTER COLUMN last_active_at SET NOT NULL;

-- An expired conversation keeps its row as a tombstone (id, tenant and `last_seq`; the
-- user id is cleared): turn ids are `turn-<conversation>-<seq>`, and a conversation id
-- sent again after expiry must not start at seq 1 and reuse a turn id that a kept
-- decision record (or a Temporal workflow id) already names. A new turn in it clears
-- `expired_at`: the conversation goes on, without what expired.
ALTER TABLE conversations ADD COLUMN expired_at timestamptz;
CREATE INDEX conversations_idle ON conversations (last_active_at) WHERE expired_at IS NULL;

CREATE FUNCTION conversations_touch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE conversations
       SET last_active_at = greatest(last_active_at, NEW.updated_at), expired_at = NULL
     WHERE conversation_id = NEW.conversation_id;
    RETURN NULL;
END;
$$;

-- Not on `swept_at`: the reconciler looking at a turn is not activity.
CREATE TRIGGER turns_touch_conversation
    AFTER INSERT OR UPDATE OF status, result, updated_at ON turns
    FOR EACH ROW EXECUTE FUNCTION conversations_touch();
