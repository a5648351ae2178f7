-- Issue 31: a gate status's signed position (epoch rising per gate start, seq per status). The row keeps the
-- highest position accepted per gate; a status at or below it is a replay and changes nothing, and
-- published_at is the status's signed ce_time (no longer the Kafka record timestamp, which is unsigned).
ALTER TABLE gate_status ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE gate_status ADD COLUMN IF NOT EXISTS seq bigint NOT NULL DEFAULT 0;
