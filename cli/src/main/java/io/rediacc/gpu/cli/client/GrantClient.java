package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.contracts.api.MachineKeyRegistration;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** grant-service's API, as rdc uses it. */
public final class GrantClient {

    public static final String SERVICE = "grant-service";
    /** How much longer than the requested wait rdc gives the service to answer. */
    private static final Duration ANSWER_MARGIN = Duration.ofSeconds(30);

    private final ServiceClient http;

    public GrantClient(ServiceClient http) {
        this.http = http;
    }

    public Reply grant(RepoRef repo, CdiName device, boolean exclusive, Duration wait) {
        return grant(repo, device, exclusive, wait, null, null, null);
    }

    /** A grant with the operator's reason and an expiry ({@code expiresIn} such as 8h, or {@code expiresAt}); null: none. */
    public Reply grant(RepoRef repo, CdiName device, boolean exclusive, Duration wait, String reason, String expiresIn,
                       Instant expiresAt) {
        ObjectNode body = Json.mapper().createObjectNode()
                .put("device", device.qualified())
                .put("exclusive", exclusive);
        if (reason != null) {
            body.put("reason", reason);
        }
        if (expiresIn != null) {
            body.put("expiresIn", expiresIn);
        }
        if (expiresAt != null) {
            body.put("expiresAt", expiresAt.toString());
        }
        return http.post(repoPath(repo) + "/grants" + waitQuery(wait), body.toString(), timeout(wait));
    }

    public Reply revoke(RepoRef repo, CdiName device, Duration wait) {
        return revoke(repo, device, wait, null);
    }

    public Reply revoke(RepoRef repo, CdiName device, Duration wait, String reason) {
        // '/' must not split the path segment; the rest of a CDI name's characters are safe in a path
        String segment = device.qualified().replace("/", "%2F");
        return http.delete(repoPath(repo) + "/grants/" + segment + query(waitParam(wait), param("reason", reason)),
                timeout(wait));
    }

    /** {@code DELETE /api/v1/machines/{machine}}: a machine leaving the fleet. */
    public Reply removeMachine(String machine, boolean revokeGrants, String reason) {
        return http.delete("/api/v1/machines/" + machine
                + query(revokeGrants ? "revokeGrants=true" : null, param("reason", reason)), Duration.ofSeconds(35));
    }

    /**
     * {@code PUT /api/v1/machines/{machine}/key}: registers the machine's public key (PEM or base64 DER);
     * {@code rekey} replaces another key registered before.
     */
    public Reply registerKey(String machine, String publicKey, boolean rekey, String reason) {
        return http.put("/api/v1/machines/" + machine + "/key" + (rekey ? "?rekey=true" : ""),
                Json.write(new MachineKeyRegistration(publicKey, reason)), Duration.ofSeconds(30));
    }

    /** {@code GET /api/v1/signing-key}: grant-service's public key, which gates verify grant snapshots with. */
    public Reply signingKey() {
        return http.get("/api/v1/signing-key");
    }

    /** {@code GET /api/v1/machines/{machine}/key}. */
    public Reply machineKey(String machine) {
        return http.get("/api/v1/machines/" + machine + "/key");
    }

    /** One page of {@code GET /api/v1/audit}; null arguments do not filter. */
    public Reply audit(String machine, String repo, String device, Instant since, Instant until, String after, int limit) {
        return http.get("/api/v1/audit" + query(param("machine", machine), param("repo", repo), param("device", device),
                param("since", since == null ? null : since.toString()), param("until", until == null ? null : until.toString()),
                param("after", after), "limit=" + limit));
    }

    private static String param(String name, String value) {
        return value == null ? null : name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String waitParam(Duration wait) {
        return wait == null ? null : "wait=" + wait.toMillis() + "ms";
    }

    private static String query(String... params) {
        String joined = Stream.of(params).filter(Objects::nonNull).collect(Collectors.joining("&"));
        return joined.isEmpty() ? "" : "?" + joined;
    }

    public Reply repoGrants(RepoRef repo) {
        return http.get(repoPath(repo) + "/grants");
    }

    public Reply machineGrants(String machine) {
        return http.get("/api/v1/machines/" + machine + "/grants");
    }

    /** {@code name} or {@code name@machine}: both are safe path characters once validated. */
    private static String repoPath(RepoRef repo) {
        return "/api/v1/repos/" + repo;
    }

    private static String waitQuery(Duration wait) {
        return wait == null ? "" : "?wait=" + wait.toMillis() + "ms";
    }

    private static Duration timeout(Duration wait) {
        return (wait == null ? Duration.ofSeconds(5) : wait).plus(ANSWER_MARGIN);
    }
}
