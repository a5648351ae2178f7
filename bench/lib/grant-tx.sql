-- The anchor of grant throughput: the write transaction of one grant as grant-service runs it
-- (advisory lock of the machine (key 'grants:' || machine; chr(58) is the colon, which pgbench would read as a variable), insert the grant, bump the machine's version, insert the outbox
-- rows, in the shape Debezium's outbox router reads (aggregatetype = topic, aggregateid = key, type = ce_type; grant-service
-- migration V5): the machine's snapshot and the audit event), on copies of grant-service's own tables
-- (CREATE TABLE bench_x (LIKE x INCLUDING ALL)) in the same database, so the service's outbox
-- relay never sees these rows. Each pgbench client is its own machine (distinct machines).
-- The JSON values spell ':' as \x3a (E'' strings): pgbench would take ':00' for a variable.
BEGIN;
SELECT set_config('lock_timeout', '5000ms', true);
SELECT pg_advisory_xact_lock(hashtextextended('grants' || chr(58) || 'pgb-' || :client_id::text, 0));
INSERT INTO bench_grants (machine, repo_guid, repo_name, device, exclusive, granted_by, granted_at)
  VALUES ('pgb-' || :client_id::text, gen_random_uuid()::text, 'repo-0', 'nvidia.com/gpu=0', false, 'bench', now());
INSERT INTO bench_machine_versions (machine, version) VALUES ('pgb-' || :client_id::text, 1)
  ON CONFLICT (machine) DO UPDATE SET version = bench_machine_versions.version + 1;
INSERT INTO bench_outbox (aggregatetype, aggregateid, type, payload, headers, created_at)
  VALUES ('gpu.grants.v1', 'pgb-' || :client_id::text, 'io.rediacc.gpu.grants.v1',
  E'{"machine"\x3a"pgb","version"\x3a17,"updatedAt"\x3a"2026-11-29T18\x3a00\x3a00.123456Z","grants"\x3a[{"repoGuid"\x3a"6f1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName"\x3a"repo-0","device"\x3a"nvidia.com/gpu=0","exclusive"\x3afalse,"grantedBy"\x3a"bench","grantedAt"\x3a"2026-11-29T18\x3a00\x3a00.123456Z"},{"repoGuid"\x3a"6f1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName"\x3a"repo-0","device"\x3a"nvidia.com/gpu=1","exclusive"\x3afalse,"grantedBy"\x3a"bench","grantedAt"\x3a"2026-11-29T18\x3a00\x3a00.123456Z"},{"repoGuid"\x3a"7a1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName"\x3a"repo-1","device"\x3a"nvidia.com/gpu=2","exclusive"\x3afalse,"grantedBy"\x3a"bench","grantedAt"\x3a"2026-11-29T18\x3a00\x3a00.123456Z"},{"repoGuid"\x3a"7a1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName"\x3a"repo-1","device"\x3a"nvidia.com/gpu=3","exclusive"\x3afalse,"grantedBy"\x3a"bench","grantedAt"\x3a"2026-11-29T18\x3a00\x3a00.123456Z"}]}',
  E'{"ce_specversion"\x3a"1.0","ce_type"\x3a"io.rediacc.gpu.grants.v1","ce_source"\x3a"/grant-service","ce_id"\x3a"pgb/v17","ce_time"\x3a"2026-11-29T18\x3a00\x3a00.123456Z","ce_subject"\x3a"pgb","content-type"\x3a"application/json"}',
  now());
INSERT INTO bench_outbox (aggregatetype, aggregateid, type, payload, headers, created_at)
  VALUES ('gpu.grant-events.v1', 'pgb-' || :client_id::text, 'io.rediacc.gpu.grant-event.v1',
  E'{"id"\x3a"0b9f3c1e-2f4d-4e4a-9c41-6f0e8d2b7a10","type"\x3a"GRANTED","machine"\x3a"pgb","repoGuid"\x3a"6f1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName"\x3a"repo-0","device"\x3a"nvidia.com/gpu=0","exclusive"\x3afalse,"actor"\x3a"bench","version"\x3a17,"at"\x3a"2026-11-29T18\x3a00\x3a00.123456Z"}',
  E'{"ce_specversion"\x3a"1.0","ce_type"\x3a"io.rediacc.gpu.grant-event.v1","ce_source"\x3a"/grant-service","ce_id"\x3a"0b9f3c1e","ce_time"\x3a"2026-11-29T18\x3a00\x3a00.123456Z","ce_subject"\x3a"pgb","content-type"\x3a"application/json"}',
  now());
END;
