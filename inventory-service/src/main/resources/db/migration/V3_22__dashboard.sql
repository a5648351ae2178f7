-- The dashboard (issue 22): what it shows beyond the read model, and the change notifications that
-- make it live. Like the rest of this schema, everything here is rebuilt from the topics.

-- The latest grant version per machine (gpu.grants.v1, compacted): the gates' applied version is
-- compared with it. Only the version is kept; the grants themselves come from the live gates.
CREATE TABLE machine_grant_version (
    machine    varchar(63) PRIMARY KEY,
    version    bigint      NOT NULL,
    updated_at timestamptz
);

-- The latest grant events per repo (gpu.grant-events.v1), bounded: the newest
-- inventory.dashboard.recent-per-repo of each machine/repo are kept. grant-service's audit stays
-- the complete record (rdc audit).
CREATE TABLE recent_grant_event (
    id         bigserial    PRIMARY KEY,
    event_id   text         NOT NULL UNIQUE,
    type       text         NOT NULL,
    machine    varchar(63)  NOT NULL,
    repo_guid  text,
    repo_name  text         NOT NULL,
    device     text,
    exclusive  boolean      NOT NULL,
    actor      text,
    reason     text,
    version    bigint,
    at         timestamptz  NOT NULL
);
CREATE INDEX recent_grant_event_repo ON recent_grant_event (repo_name, machine, at DESC);

-- The latest refused Docker requests per repo (gpu.gate-decisions.v1), bounded the same way.
-- record_key (partition/offset) makes a replayed record change nothing.
CREATE TABLE recent_refusal (
    id         bigserial    PRIMARY KEY,
    record_key text         NOT NULL UNIQUE,
    machine    varchar(63)  NOT NULL,
    gate_id    text,
    repo_guid  text,
    repo_name  text         NOT NULL,
    method     text,
    endpoint   text,
    rule       text         NOT NULL,
    device     text,
    message    text         NOT NULL,
    at         timestamptz  NOT NULL
);
CREATE INDEX recent_refusal_repo ON recent_refusal (repo_name, machine, at DESC);
CREATE INDEX recent_refusal_at ON recent_refusal (at DESC);

-- Change notifications for the dashboard's server-sent events: pg_notify is delivered when the
-- writing transaction commits, to every replica that listens, so a browser connected to any replica
-- hears a change that any replica applied, and only once the change can be read. Payload:
-- "<kind>:<machine>". Heartbeats that change nothing a page shows do not notify.
CREATE FUNCTION dashboard_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
BEGIN
    PERFORM pg_notify('dashboard', TG_ARGV[0] || ':' || coalesce(changed ->> TG_ARGV[1], ''));
    RETURN NULL;
END $$;

CREATE TRIGGER machine_dashboard_changed AFTER INSERT OR DELETE ON machine
    FOR EACH ROW EXECUTE FUNCTION dashboard_notify('inventory', 'name');
CREATE TRIGGER machine_dashboard_updated AFTER UPDATE ON machine
    FOR EACH ROW WHEN (OLD.content_digest IS DISTINCT FROM NEW.content_digest)
    EXECUTE FUNCTION dashboard_notify('inventory', 'name');
CREATE TRIGGER gate_dashboard_changed AFTER INSERT OR DELETE ON gate
    FOR EACH ROW EXECUTE FUNCTION dashboard_notify('gate', 'machine');
CREATE TRIGGER gate_dashboard_updated AFTER UPDATE ON gate
    FOR EACH ROW WHEN ((OLD.applied_version, OLD.state, OLD.repos_json, OLD.daemons_json)
        IS DISTINCT FROM (NEW.applied_version, NEW.state, NEW.repos_json, NEW.daemons_json))
    EXECUTE FUNCTION dashboard_notify('gate', 'machine');
CREATE TRIGGER grant_version_dashboard_changed AFTER INSERT OR UPDATE ON machine_grant_version
    FOR EACH ROW EXECUTE FUNCTION dashboard_notify('grants', 'machine');
CREATE TRIGGER grant_event_dashboard_changed AFTER INSERT ON recent_grant_event
    FOR EACH ROW EXECUTE FUNCTION dashboard_notify('grant-event', 'machine');
CREATE TRIGGER refusal_dashboard_changed AFTER INSERT ON recent_refusal
    FOR EACH ROW EXECUTE FUNCTION dashboard_notify('refusal', 'machine');
