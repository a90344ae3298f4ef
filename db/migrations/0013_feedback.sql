-- Feedback on a settled turn from the person who read it: a rating and an optional
-- comment, redacted as every stored text is (personal values as tokens). Appended, never
-- updated: a changed mind is a second row, and the latest is the turn's current rating.
CREATE TABLE feedback (
    feedback_id  bigserial PRIMARY KEY,
    turn_id      text NOT NULL REFERENCES turns (turn_id),
    tenant_id    text NOT NULL,
    user_id      text,
    rating       text NOT NULL CHECK (rating IN ('helpful', 'wrong_figure', 'other')),
    comment      text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_by_tenant ON feedback (tenant_id, feedback_id DESC);
CREATE INDEX feedback_by_turn ON feedback (turn_id, feedback_id);
