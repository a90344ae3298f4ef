-- Golden probes: one row per slice per recorded run, and an incident only after two
-- consecutive breaches of a slice (calibrated on the binomial). Runs are ordered by
-- `seq` (never by a clock) within their `scope` (the schedule's task queue), so two
-- stacks sharing a database never read each other's runs as "the run before".
CREATE TABLE probe_runs (
    seq             bigserial   UNIQUE,
    scope           text        NOT NULL,
    run_id          text        NOT NULL,
    slice           text        NOT NULL,
    cases           integer     NOT NULL,
    passed          integer     NOT NULL,
    threshold       integer     NOT NULL,
    breached        boolean     NOT NULL,
    failed          jsonb       NOT NULL DEFAULT '[]',
    corpus_version  text,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, slice)
);
CREATE INDEX probe_runs_scope_slice_seq ON probe_runs (scope, slice, seq DESC);

CREATE TABLE probe_incidents (
    id              bigserial   PRIMARY KEY,
    scope           text        NOT NULL,
    slice           text        NOT NULL,
    run_id          text        NOT NULL,
    previous_run_id text        NOT NULL,
    category        text        NOT NULL,
    severity        text        NOT NULL,
    summary         text        NOT NULL,
    opened_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (run_id, slice)
);
