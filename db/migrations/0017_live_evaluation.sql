-- Live evaluation. A failing probe's turn is a candidate regression case, so each slice
-- run keeps the turn of each failed probe beside its failure (`failed_turns[i]` is the
-- turn of `failed[i]`), and the healthy rate its threshold was computed at, which comes
-- from the slice's own history.
ALTER TABLE probe_runs ADD COLUMN failed_turns jsonb NOT NULL DEFAULT '[]';
ALTER TABLE probe_runs ADD COLUMN healthy_rate double precision;
CREATE INDEX feedback_by_rating ON feedback (rating, feedback_id DESC);

-- Shadow runs: a second engine configuration answers a sample of live questions on its
-- own task queue; its outcome is kept here beside the live one, for the A/B report, and
-- nowhere else (never in the conversation, the answer cache or the decision record).
-- No foreign key to `turns`: the shadow's record outlives nothing and blocks no expiry.
CREATE TABLE shadow_runs (
    turn_id          text        PRIMARY KEY,
    conversation_id  text        NOT NULL,
    tenant_id        text        NOT NULL,
    live_config      text        NOT NULL,
    shadow_config    text        NOT NULL,
    live             jsonb       NOT NULL,
    shadow           jsonb       NOT NULL,
    recorded_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shadow_runs_recorded ON shadow_runs (recorded_at DESC);
