-- Issue 31: a machine removal is final. The removal revokes the machine's key in its own transaction (under
-- the machine's lock) and is recorded here; every removal of the machine raises its generation. Records the
-- machine signed before its next key registration (machine_keys.registered_at) change nothing afterwards.
CREATE TABLE IF NOT EXISTS machine_removals (
    machine     text PRIMARY KEY,
    generation  bigint NOT NULL,
    removed_at  timestamptz NOT NULL,
    removed_by  text NOT NULL
);
-- What each key history row is: registered (first key), rekeyed (another key replaced it), revoked (removal).
ALTER TABLE machine_key_history ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'registered';
UPDATE machine_key_history SET kind = 'rekeyed' WHERE previous_key_id IS NOT NULL AND kind = 'registered';
