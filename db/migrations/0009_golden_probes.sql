-- Golden probes: one row per slice per scheduled run, and an incident only after two
-- consecutive breaches of a slice (DESIGN: calibrated on the binomial). Append-only in
-- practice: rows are written once by the probe workflow's recording step.
CREATE TABLE probe_runs (
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
CREATE INDEX probe_runs_slice_time ON probe_runs (slice, recorded_at DESC);

CREATE TABLE probe_incidents (
    id              bigserial   PRIMARY KEY,
    slice           text        NOT NULL,
    run_id          text        NOT NULL,
    previous_run_id text        NOT NULL,
    category        text        NOT NULL,
    severity        text        NOT NULL,
    summary         text        NOT NULL,
    opened_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (run_id, slice)
);
