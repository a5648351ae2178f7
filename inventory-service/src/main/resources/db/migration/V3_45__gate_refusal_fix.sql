-- A refusal's fix (gpu.gate-decisions.v1 "fix"): the command or setting that fixes it, as the gate sent it
-- beside the message, so the dashboard shows it without reading the message. Null for records of gates
-- before they sent it.
ALTER TABLE recent_refusal ADD COLUMN IF NOT EXISTS fix text;
