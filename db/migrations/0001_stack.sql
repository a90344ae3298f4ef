-- Worker liveness as seen by the API: the worker owns Qdrant (local mode allows one
-- process), so it reports Qdrant health and the corpus version here for /healthz.
CREATE TABLE worker_heartbeats (
    worker_id       text PRIMARY KEY,
    qdrant_ok       boolean NOT NULL,
    corpus_version  text NOT NULL,
    chunks          integer NOT NULL,
    seen_at         timestamptz NOT NULL DEFAULT now()
);
