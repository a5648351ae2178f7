package io.rediacc.gpu.gate.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The facts of a repo daemon's {@code GET /info} the gate relies on.
 *
 * @param defaultRuntime the runtime a container gets without {@code --runtime} (API 1.24+)
 * @param runtimePaths   each configured runtime's {@code path} (empty string when the daemon reports none)
 * @param cdiSpecDirs    where the daemon reads CDI specs; null when it does not report them (before API
 *                       1.44, Docker 25.0), empty when CDI is disabled
 * @param dockerRootDir  the daemon's data root ({@code --data-root}); a host path no repo may bind
 */
public record DaemonInfo(String defaultRuntime, Map<String, String> runtimePaths, List<String> cdiSpecDirs,
                         String dockerRootDir, String serverVersion) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public DaemonInfo {
        runtimePaths = Map.copyOf(runtimePaths);
        cdiSpecDirs = cdiSpecDirs == null ? null : List.copyOf(cdiSpecDirs);
    }

    /** Reads the daemon's answer; a body that is not an object with the expected types is an error. */
    public static DaemonInfo parse(byte[] body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("GET /info did not answer JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("GET /info did not answer a JSON object");
        }
        Map<String, String> runtimes = new LinkedHashMap<>();
        JsonNode rt = root.path("Runtimes");
        if (rt.isObject()) {
            rt.fields().forEachRemaining(e -> runtimes.put(e.getKey(), e.getValue().path("path").asText("")));
        }
        List<String> dirs = null;
        JsonNode cdi = root.get("CDISpecDirs");
        if (cdi != null && !cdi.isNull()) {
            if (!cdi.isArray()) {
                throw new IllegalArgumentException("GET /info CDISpecDirs is not an array");
            }
            dirs = new ArrayList<>();
            for (JsonNode d : cdi) {
                dirs.add(d.asText());
            }
        }
        return new DaemonInfo(text(root, "DefaultRuntime"), runtimes, dirs, text(root, "DockerRootDir"),
                text(root, "ServerVersion"));
    }

    private static String text(JsonNode root, String field) {
        JsonNode v = root.get(field);
        return v == null || !v.isTextual() ? null : v.asText();
    }

    /**
     * The API versions of a {@code GET /version} answer ({@code MinAPIVersion}, {@code ApiVersion});
     * an answer without both, or with a version that is not digits and dots, is an error: the gate
     * then cannot bound request versions and refuses versioned requests (fail closed).
     */
    public static io.rediacc.gpu.gate.policy.ApiVersions apiVersions(byte[] body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("GET /version did not answer JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("GET /version did not answer a JSON object");
        }
        String max = text(root, "ApiVersion");
        String min = text(root, "MinAPIVersion");
        for (String[] v : new String[][] {{"ApiVersion", max}, {"MinAPIVersion", min}}) {
            if (v[1] == null || !v[1].matches("[0-9]+(\\.[0-9]+)*")) {
                throw new IllegalArgumentException("GET /version has no " + v[0] + " the gate can read ("
                        + (v[1] == null ? "none" : "\"" + v[1] + "\"") + ")");
            }
        }
        return new io.rediacc.gpu.gate.policy.ApiVersions(min, max);
    }
}
