-- The decision record: one append-only row per settled turn, hash-chained.
-- UPDATE, DELETE and TRUNCATE are refused by the database itself; the retention purge
-- alone may delete, and only the oldest rows (a prefix of the chain), recording in
-- decision_purges the hash of the last row it removed, so the chain still verifies.
CREATE TABLE decision_records (
    seq              bigint PRIMARY KEY,
    turn_id          text NOT NULL UNIQUE,
    conversation_id  text NOT NULL,
    recorded_at      timestamptz NOT NULL,
    record           jsonb NOT NULL,
    prev_hash        text NOT NULL,
    hash             text NOT NULL
);

CREATE TABLE decision_purges (
    purge_id         bigserial PRIMARY KEY,
    purged_at        timestamptz NOT NULL DEFAULT now(),
    through_seq      bigint NOT NULL,
    last_hash        text NOT NULL,
    rows_purged      integer NOT NULL,
    older_than       timestamptz NOT NULL
);

CREATE FUNCTION decision_records_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('turnstile.retention_purge', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'decision records are append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER decision_records_no_update_or_delete
    BEFORE UPDATE OR DELETE ON decision_records
    FOR EACH ROW EXECUTE FUNCTION decision_records_append_only();

CREATE TRIGGER decision_records_no_truncate
    BEFORE TRUNCATE ON decision_records
    FOR EACH STATEMENT EXECUTE FUNCTION decision_records_append_only();

CREATE FUNCTION decision_purges_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the purge log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER decision_purges_no_update_or_delete
    BEFORE UPDATE OR DELETE OR TRUNCATE ON decision_purges
    FOR EACH STATEMENT EXECUTE FUNCTION decision_purges_append_only();
