-- Read-only share links to one turn (POST /v1/turns/{turn_id}/share). The id is an
-- unguessable random token (its only protection: whoever holds it reads the turn); the
-- tenant that made it can revoke it, and a revoked or unknown id reads as not found. A
-- share goes with its turn when the conversation is deleted or expires (db.expiry).
CREATE TABLE shares (
    share_id    text PRIMARY KEY,
    turn_id     text NOT NULL REFERENCES turns (turn_id),
    tenant_id   text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX shares_by_turn ON shares (turn_id);
