package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.service.ManifestHostAccess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Shared fixtures: repo gpu-a on machine m1, grant tables, request heads. The policy is built the
 * way the gate builds it: from a repos manifest ({@link #MANIFEST_YAML}) through
 * {@link ManifestHostAccess}, with the production paths of the manifest and the state directory.
 */
final class PolicyTestKit {

    static final int MAX_BODY = 64 * 1024;
    static final String GUID = "7f3c2a90-0000-4000-8000-00000000000a";
    /** The repo's own mount, as on a Rediacc machine: allowed, except its daemon's data root and configuration. */
    static final String REPO_MOUNT = "/mnt/rediacc/mounts/" + GUID;
    static final String MANIFEST_YAML = """
            machine: m1
            repos:
              - name: gpu-a
                guid: %s
                listen: unix:///run/rediacc/gate/gpu-a.sock
                daemon: unix:///var/run/rediacc/docker-gpu-a.sock
                hostPaths: [%s, /data, /srv, /home/gpu-a, /var/lib/app, /devices, /dev2, /process, /system]
                volumeDrivers: [team-nfs]
                logDrivers: [team-logs]
                daemonConfigDir: %s/.rediacc/docker/config
                daemonDataRoot: %s/.rediacc/docker/data
              - name: gpu-b
                guid: 7f3c2a90-0000-4000-8000-00000000000b
                listen: unix:///run/rediacc/gate/gpu-b.sock
                daemon: unix:///var/run/rediacc/docker-gpu-b.sock
            """.formatted(GUID, REPO_MOUNT, REPO_MOUNT, REPO_MOUNT);
    static final ManifestHostAccess HOST_ACCESS = new ManifestHostAccess(Path.of("/etc/rediacc/gate/repos.yaml"),
            Path.of("/var/lib/rediacc/gate"), ManifestLoader.parse(MANIFEST_YAML.getBytes(StandardCharsets.UTF_8)));
    static final RepoIdentity REPO = new RepoIdentity("gpu-a", GUID, "m1", false);
    static final RepoIdentity BUILDKIT_SAFE_REPO = new RepoIdentity("gpu-a", REPO.guid(), "m1", true);
    static final GatePolicy POLICY = new GatePolicy(MAX_BODY, HOST_ACCESS);

    private PolicyTestKit() {
    }

    /** Grants held by {@link #REPO}, by exact string. */
    static GrantLookup grants(String... names) {
        Set<String> held = Set.of(names);
        return new GrantLookup() {
            @Override
            public boolean loaded() {
                return true;
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                return repoGuid.equals(REPO.guid()) && held.contains(cdiName);
            }
        };
    }

    static GrantLookup grantsNotLoaded() {
        return new GrantLookup() {
            @Override
            public boolean loaded() {
                return false;
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                throw new AssertionError("must not be asked before grants are loaded");
            }
        };
    }

    static RequestHead post(String uri, byte[] body) {
        Map<String, List<String>> headers = new HashMap<>();
        headers.put("content-type", List.of("application/json"));
        headers.put("content-length", List.of(Integer.toString(body.length)));
        return new RequestHead("POST", uri, headers);
    }

    static RequestHead head(String method, String uri, Map<String, List<String>> headers) {
        return new RequestHead(method, uri, headers);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** onHead then onBody, as the data plane calls them. */
    static Verdict send(String uri, String body, GrantLookup grants) {
        return send(uri, utf8(body), grants);
    }

    static Verdict send(String uri, byte[] body, GrantLookup grants) {
        RequestHead head = post(uri, body);
        HeadVerdict atHead = POLICY.onHead(head, REPO);
        if (atHead instanceof HeadVerdict.Refuse refuse) {
            return new Verdict.Deny(refuse.refusal());
        }
        boolean update = atHead instanceof HeadVerdict.InspectStoredContainer stored && stored.action().equals("update");
        if (!(atHead instanceof HeadVerdict.InspectBody) && !update) {
            throw new AssertionError("expected the body of " + uri + " to be inspected, got " + atHead);
        }
        return noVolumesExist(POLICY.onBody(head, body, REPO, grants));
    }

    /** What the data plane does after {@link Verdict.InspectVolumes} when none of the volumes exists yet (404). */
    static Verdict noVolumesExist(Verdict verdict) {
        if (verdict instanceof Verdict.InspectVolumes inspect) {
            return POLICY.onVolumes(inspect.names().stream()
                    .map(n -> new StoredVolume(n, 404, utf8("{\"message\":\"get " + n + ": no such volume\"}"))).toList(), REPO);
        }
        return verdict;
    }

    static Verdict create(String body, GrantLookup grants) {
        return send("/v1.50/containers/create", body, grants);
    }

    static Verdict create(String body) {
        return create(body, grants());
    }

    /** The refusal of a verdict that must be a Deny. */
    static Refusal refusal(Verdict verdict) {
        if (verdict instanceof Verdict.Deny deny) {
            return deny.refusal();
        }
        throw new AssertionError("expected a refusal, got " + verdict);
    }

    static Refusal refusal(HeadVerdict verdict) {
        if (verdict instanceof HeadVerdict.Refuse refuse) {
            return refuse.refusal();
        }
        throw new AssertionError("expected a refusal, got " + verdict);
    }

    /** {"HostConfig": {...}} around a HostConfig fragment. */
    static String withHostConfig(String hostConfigMembers) {
        return "{\"Image\":\"ubuntu\",\"HostConfig\":{" + hostConfigMembers + "}}";
    }
}
