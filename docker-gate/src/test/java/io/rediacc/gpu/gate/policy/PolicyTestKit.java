package io.rediacc.gpu.gate.policy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Shared fixtures: repo gpu-a on machine m1, grant tables, request heads. */
final class PolicyTestKit {

    static final int MAX_BODY = 64 * 1024;
    static final RepoIdentity REPO = new RepoIdentity("gpu-a", "7f3c2a90-0000-4000-8000-00000000000a", "m1", false);
    static final RepoIdentity BUILDKIT_SAFE_REPO = new RepoIdentity("gpu-a", REPO.guid(), "m1", true);
    static final GatePolicy POLICY = new GatePolicy(MAX_BODY);

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
        if (!(atHead instanceof HeadVerdict.InspectBody)) {
            throw new AssertionError("expected the body of " + uri + " to be inspected, got " + atHead);
        }
        return POLICY.onBody(head, body, REPO, grants);
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
