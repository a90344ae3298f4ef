-- Hardening: /healthz reads the worker of its own task queue from that worker's own
-- heartbeat (a killed worker's pollers stay listed by Temporal for minutes), and
-- rate-limit buckets that have refilled are purged by the daily retention schedule.
ALTER TABLE worker_heartbeats ADD COLUMN task_queue text;
CREATE INDEX worker_heartbeats_queue_seen ON worker_heartbeats (task_queue, seen_at DESC);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated_at);
