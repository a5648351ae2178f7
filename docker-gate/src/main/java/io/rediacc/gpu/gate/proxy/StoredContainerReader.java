package io.rediacc.gpu.gate.proxy;

import io.netty.util.concurrent.Promise;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Asks a repo's daemon for a container's stored configuration ({@code GET /containers/{id}/json}),
 * so that a start can be re-checked against the grants held now, or for a named volume
 * ({@code GET /volumes/{name}}), through the gate's pool of lookup connections ({@link DaemonLookups}).
 */
final class StoredContainerReader {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final java.util.regex.Pattern FULL_ID = java.util.regex.Pattern.compile("[0-9a-f]{64}");

    private StoredContainerReader() {
    }

    /**
     * The container's full ID from the daemon's inspect answer (its {@code Id}: 64 lower-case hex
     * digits), or null when the answer has none, has it twice, or is not JSON.
     */
    static String fullId(byte[] inspectAnswer) {
        try {
            com.fasterxml.jackson.databind.JsonNode id = JSON.readTree(inspectAnswer).get("Id");
            return id != null && id.isTextual() && FULL_ID.matcher(id.asText()).matches() ? id.asText() : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    static Promise<DaemonLookups.Answer> read(DaemonLookups.Pool daemon, String containerId) {
        // The id comes percent-decoded from the policy; encode it again as one path segment.
        return daemon.get("/containers/" + segment(containerId) + "/json");
    }

    /** {@code GET /volumes/{name}}: how a named volume a request uses is backed. */
    static Promise<DaemonLookups.Answer> readVolume(DaemonLookups.Pool daemon, String name) {
        return daemon.get("/volumes/" + segment(name));
    }

    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
