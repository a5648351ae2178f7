-- grant-service's own changes announce their outbox rows after they commit (OutboxWakeups), not inside their
-- transaction: a NOTIFY inside a transaction takes PostgreSQL's cluster-wide notify lock at commit and holds it
-- until the commit record is flushed, so every change's commit waited for the previous one's flush, one at a
-- time, on every replica (issue 34: grants/s against pgbench of the same transaction). Such a change sets
-- grants.outbox_notify to 'after-commit' for its transaction (set_config(..., true)), and the trigger stays quiet
-- for it; a row written by anything else (a replica of an older version during an upgrade, by hand) still
-- notifies here at its commit, as V4 made it.
CREATE OR REPLACE FUNCTION outbox_notify_relays() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('grants.outbox_notify', true) IS DISTINCT FROM 'after-commit' THEN
        PERFORM pg_notify('grants_outbox', '');
    END IF;
    RETURN NULL;
END
$$;
