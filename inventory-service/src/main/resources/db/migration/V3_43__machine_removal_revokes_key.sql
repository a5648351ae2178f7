-- Issue 31: a machine's removal (grant-service's signed tombstone on gpu.inventory.v1) revokes the machine's key
-- here too, in the transaction that removes the machine; the machine speaks again only after a new registration,
-- and records it signed before the later of its last removal and that registration change nothing.
CREATE TABLE IF NOT EXISTS machine_removals (
    machine     text PRIMARY KEY,
    removed_at  timestamptz NOT NULL
);
-- What each key history row is: registered (first key), rekeyed (another key replaced it), revoked (removal).
ALTER TABLE machine_key_history ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'registered';
UPDATE machine_key_history SET kind = 'rekeyed' WHERE previous_key_id IS NOT NULL AND kind = 'registered';
