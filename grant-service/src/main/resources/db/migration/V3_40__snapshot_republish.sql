-- Issue 31: grant-service re-signs and re-publishes each machine's newest grant snapshot every
-- grants.republish-interval, so compaction can never leave a replayed older record as a machine's newest
-- offset for long, and a gate can tell a frozen feed (its snapshot's signature grows old). published_at is
-- when the machine's newest snapshot last went into the outbox: set by every change of its grants and by
-- each re-publication. Numbered above every migration before it (Flyway refuses a version below one applied).
ALTER TABLE machine_versions ADD COLUMN IF NOT EXISTS published_at timestamptz;
CREATE INDEX IF NOT EXISTS machine_versions_by_published_at ON machine_versions (published_at NULLS FIRST);
