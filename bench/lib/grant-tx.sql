-- The anchor of grant throughput: the write transaction of one grant as grant-service runs it
-- (advisory lock of the machine, insert the grant, bump the machine's version, insert the outbox
-- rows: the machine's snapshot and the audit event), on copies of grant-service's own tables
-- (CREATE TABLE bench_x (LIKE x INCLUDING ALL)) in the same database, so the service's outbox
-- relay never sees these rows. Each pgbench client is its own machine (distinct machines).
BEGIN;
SELECT set_config('lock_timeout', '5000ms', true);
SELECT pg_advisory_xact_lock(hashtextextended('grants:pgb-' || :client_id, 0));
INSERT INTO bench_grants (machine, repo_guid, repo_name, device, exclusive, granted_by, granted_at)
  VALUES ('pgb-' || :client_id, gen_random_uuid()::text, 'repo-0', 'nvidia.com/gpu=0', false, 'bench', now());
INSERT INTO bench_machine_versions (machine, version) VALUES ('pgb-' || :client_id, 1)
  ON CONFLICT (machine) DO UPDATE SET version = bench_machine_versions.version + 1;
INSERT INTO bench_outbox (topic, record_key, payload, headers, created_at)
  VALUES ('gpu.grants.v1', 'pgb-' || :client_id,
  '{"machine":"pgb","version":17,"updatedAt":"2026-11-29T18:00:00.123456Z","grants":[{"repoGuid":"6f1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName":"repo-0","device":"nvidia.com/gpu=0","exclusive":false,"grantedBy":"bench","grantedAt":"2026-11-29T18:00:00.123456Z"},{"repoGuid":"6f1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName":"repo-0","device":"nvidia.com/gpu=1","exclusive":false,"grantedBy":"bench","grantedAt":"2026-11-29T18:00:00.123456Z"},{"repoGuid":"7a1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName":"repo-1","device":"nvidia.com/gpu=2","exclusive":false,"grantedBy":"bench","grantedAt":"2026-11-29T18:00:00.123456Z"},{"repoGuid":"7a1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName":"repo-1","device":"nvidia.com/gpu=3","exclusive":false,"grantedBy":"bench","grantedAt":"2026-11-29T18:00:00.123456Z"}]}',
  '{"ce_specversion":"1.0","ce_type":"io.rediacc.gpu.grants.v1","ce_source":"/grant-service","ce_id":"pgb/v17","ce_time":"2026-11-29T18:00:00.123456Z","ce_subject":"pgb","content-type":"application/json"}',
  now());
INSERT INTO bench_outbox (topic, record_key, payload, headers, created_at)
  VALUES ('gpu.grant-events.v1', 'pgb-' || :client_id,
  '{"id":"0b9f3c1e-2f4d-4e4a-9c41-6f0e8d2b7a10","type":"GRANTED","machine":"pgb","repoGuid":"6f1c2d3e-4a5b-3c6d-8e7f-0a1b2c3d4e5f","repoName":"repo-0","device":"nvidia.com/gpu=0","exclusive":false,"actor":"bench","version":17,"at":"2026-11-29T18:00:00.123456Z"}',
  '{"ce_specversion":"1.0","ce_type":"io.rediacc.gpu.grant-event.v1","ce_source":"/grant-service","ce_id":"0b9f3c1e","ce_time":"2026-11-29T18:00:00.123456Z","ce_subject":"pgb","content-type":"application/json"}',
  now());
END;
