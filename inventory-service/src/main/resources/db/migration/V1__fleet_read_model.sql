-- The fleet read model. Everything here can be rebuilt from the compacted topics
-- gpu.inventory.v1 and gpu.gate-status.v1; nothing is authoritative.

CREATE TABLE machine (
    name                varchar(63)  PRIMARY KEY,
    platform            text,
    agent_version       text,
    schema_version      integer      NOT NULL,
    generated_at        timestamptz  NOT NULL,
    received_at         timestamptz  NOT NULL,
    toolkit_json        text,
    persistenced_socket text,
    spec_problems_json  text         NOT NULL DEFAULT '[]',
    -- digest of the inventory without generatedAt: a heartbeat that repeats it rewrites nothing
    content_digest      text         NOT NULL
);
CREATE INDEX machine_generated_at ON machine (generated_at);

CREATE TABLE machine_inventory_raw (
    machine varchar(63) PRIMARY KEY REFERENCES machine (name) ON DELETE CASCADE,
    json    text        NOT NULL
);

CREATE TABLE gpu (
    id             bigserial   PRIMARY KEY,
    machine        varchar(63) NOT NULL REFERENCES machine (name) ON DELETE CASCADE,
    gpu_index      integer     NOT NULL,
    vendor         text,
    name           text,
    uuid           text,
    pci_bus_id     text,
    driver_version text,
    memory_mib     bigint,
    render_node    text,
    mig_mode       text
);
CREATE INDEX gpu_machine ON gpu (machine, gpu_index);
CREATE INDEX gpu_vendor ON gpu (lower(vendor));

CREATE TABLE cdi_device (
    id                bigserial    PRIMARY KEY,
    machine           varchar(63)  NOT NULL REFERENCES machine (name) ON DELETE CASCADE,
    name              text NOT NULL,
    device_nodes_json text         NOT NULL DEFAULT '[]',
    spec_file         text,
    spec_digest       text
);
CREATE INDEX cdi_device_machine ON cdi_device (machine, name);

CREATE TABLE machine_repo (
    id      bigserial    PRIMARY KEY,
    machine varchar(63)  NOT NULL REFERENCES machine (name) ON DELETE CASCADE,
    name    text NOT NULL,
    guid    text,
    fork_of text
);
CREATE INDEX machine_repo_machine ON machine_repo (machine);

-- A gate may report before its machine's first inventory: no foreign key to machine.
CREATE TABLE gate (
    gate_key          text        PRIMARY KEY,
    machine           varchar(63) NOT NULL,
    gate_id           text        NOT NULL,
    applied_version   bigint      NOT NULL,
    state             text,
    heartbeat_seconds integer     NOT NULL,
    synced_at         timestamptz,
    reported_at       timestamptz NOT NULL,
    last_seen_at      timestamptz NOT NULL,
    live_until        timestamptz NOT NULL,
    repos_json        text        NOT NULL DEFAULT '[]'
);
CREATE INDEX gate_machine ON gate (machine);

CREATE TABLE gate_grant (
    id         bigserial    PRIMARY KEY,
    gate_key   text         NOT NULL REFERENCES gate (gate_key) ON DELETE CASCADE,
    machine    varchar(63)  NOT NULL,
    gate_id    text         NOT NULL,
    repo_guid  text,
    repo_name  text,
    device     text NOT NULL,
    exclusive  boolean      NOT NULL,
    granted_by text,
    granted_at timestamptz
);
CREATE INDEX gate_grant_machine_device ON gate_grant (machine, device);
CREATE INDEX gate_grant_gate ON gate_grant (gate_key);
