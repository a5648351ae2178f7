-- Issue 34: the digest of each list a machine's inventory holds, so that a new inventory rewrites only the lists
-- it changed (a driver upgrade: the GPU rows, not the CDI devices or repos). Null on rows written before this:
-- such a list is rewritten by the next inventory that changes anything; the next one of any kind records them.
ALTER TABLE machine ADD COLUMN IF NOT EXISTS gpus_digest text,
                    ADD COLUMN IF NOT EXISTS devices_digest text,
                    ADD COLUMN IF NOT EXISTS repos_digest text;
