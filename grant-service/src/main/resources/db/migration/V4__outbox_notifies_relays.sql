-- Statements that give the relay something to publish notify the relays (channel grants_outbox; PostgreSQL
-- delivers it at commit, once per transaction): rows added to the outbox, and parked rows dropped or retried
-- (their machine's held rows flow again). Every replica's relay LISTENs (OutboxWakeups) and wakes at once, so
-- none polls the outbox for rows another replica committed. Statement level: a change of many rows rings once.
CREATE OR REPLACE FUNCTION outbox_notify_relays() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('grants_outbox', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_notifies_relays AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify_relays();

CREATE TRIGGER outbox_parked_notifies_relays AFTER DELETE ON outbox_parked
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify_relays();
