package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;

import java.time.Duration;

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
        ObjectNode body = Json.mapper().createObjectNode()
                .put("device", device.qualified())
                .put("exclusive", exclusive);
        return http.post(repoPath(repo) + "/grants" + waitQuery(wait), body.toString(), timeout(wait));
    }

    public Reply revoke(RepoRef repo, CdiName device, Duration wait) {
        // '/' must not split the path segment; the rest of a CDI name's characters are safe in a path
        String segment = device.qualified().replace("/", "%2F");
        return http.delete(repoPath(repo) + "/grants/" + segment + waitQuery(wait), timeout(wait));
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
