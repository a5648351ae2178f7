-- Issue 31: a removed machine's Kafka user is deleted by this service when it reads the removal's signed tombstone
-- (only with inventory.kafka-users.enabled). The deletion is remembered here, in the transaction that applies the
-- removal, and tried until the broker's admin API does it: neither a broker outage nor a restart forgets it. A new
-- Kafka user for the machine (rdc machine setup, PUT .../kafka-user) cancels it: the machine rejoined.
CREATE TABLE IF NOT EXISTS kafka_user_removals (
    machine          text PRIMARY KEY,
    removed_at       timestamptz NOT NULL,
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    last_error       text
);
CREATE INDEX IF NOT EXISTS kafka_user_removals_due ON kafka_user_removals (next_attempt_at);
