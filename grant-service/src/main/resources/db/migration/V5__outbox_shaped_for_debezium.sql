-- The outbox in the shape Debezium's outbox event router reads by default, so that moving from the polling
-- relay (OutboxRelay) to change-data-capture is a deployment change, not a rewrite:
--   id             the event's id (rising: the relay publishes in id order)
--   aggregatetype  the topic (the router routes by it: route.by.field, its value as the topic name)
--   aggregateid    the record key: the machine, or machine/gate for gpu.gate-status.v1
--   type           the CloudEvents type (ce_type) of the record
--   payload        the JSON value; null for a tombstone (a machine's removal)
-- headers (the CloudEvents headers, JSON) and created_at stay: the router places extra columns as headers
-- (table.fields.additional.placement). outbox_parked keeps the same columns, since rows move between the two
-- tables as they are. Rows already waiting keep their topic and key; their type is read from their headers.
ALTER TABLE outbox RENAME COLUMN topic TO aggregatetype;
ALTER TABLE outbox RENAME COLUMN record_key TO aggregateid;
ALTER TABLE outbox ADD COLUMN type text;
ALTER TABLE outbox_parked RENAME COLUMN topic TO aggregatetype;
ALTER TABLE outbox_parked RENAME COLUMN record_key TO aggregateid;
ALTER TABLE outbox_parked ADD COLUMN type text;

DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT 'outbox' AS t, id, headers FROM outbox UNION ALL SELECT 'outbox_parked', id, headers FROM outbox_parked LOOP
        BEGIN
            EXECUTE format('UPDATE %I SET type = $1 WHERE id = $2', r.t)
                USING coalesce(r.headers::jsonb ->> 'ce_type', ''), r.id;
        EXCEPTION WHEN invalid_text_representation THEN
            -- headers that are not JSON (a row written by hand): the relay parks such a row when it reaches it
            EXECUTE format('UPDATE %I SET type = '''' WHERE id = $1', r.t) USING r.id;
        END;
    END LOOP;
END
$$;

ALTER TABLE outbox ALTER COLUMN type SET NOT NULL;
ALTER TABLE outbox_parked ALTER COLUMN type SET NOT NULL;
