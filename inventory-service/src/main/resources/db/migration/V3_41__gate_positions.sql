-- Issue 31: each gate's highest accepted status position (epoch rising per gate start, seq per status, both
-- inside the signed value). A status at or below it is a replay: dropped and counted, it changes nothing.
ALTER TABLE gate ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE gate ADD COLUMN IF NOT EXISTS seq bigint NOT NULL DEFAULT 0;
