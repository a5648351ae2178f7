package io.rediacc.gpu.gate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The newest API version the gate tells a client that the daemon behind it serves: the daemon's
 * own, capped at {@link DockerRouteTable#MAX_API_VERSION}. Clients negotiate the version they use
 * from the {@code Api-Version} header (the docker CLI reads it from {@code /_ping}) or from
 * {@code GET /version}'s {@code ApiVersion}; a daemon newer than the gate's route table would
 * otherwise talk them into a version every later request of theirs is refused for (400
 * {@value RefusalMessages#RULE_API_VERSION}).
 */
public final class AdvertisedApiVersion {

    /** The response header moby's version middleware sets on every answer. */
    public static final String HEADER = "Api-Version";

    private static final ObjectMapper JSON = new ObjectMapper();

    private AdvertisedApiVersion() {
    }

    /** The value of the {@value #HEADER} header to pass on in place of the daemon's {@code daemonValue}. */
    public static String header(String daemonValue) {
        return DockerRouteTable.capped(daemonValue.trim());
    }

    /** Whether the daemon's answer to this request is a {@code GET /version} body whose versions are capped. */
    public static boolean isVersionRequest(String method, String uri) {
        if (!"GET".equals(method) || uri == null) {
            return false;
        }
        try {
            return DockerRoute.classify(method, uri).path().equals("/version");
        } catch (RuntimeException unreadable) {
            return false; // refused before it reaches the daemon
        }
    }

    /**
     * A {@code GET /version} body with its {@code ApiVersion} (and the Engine component's) capped;
     * the body as given when nothing is above the cap or it is no JSON object (then no client can
     * learn a version from it either).
     */
    public static byte[] versionBody(byte[] body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException notJson) {
            return body;
        }
        if (!(root instanceof ObjectNode object)) {
            return body;
        }
        boolean changed = cap(object);
        for (JsonNode component : object.path("Components")) {
            if (component.path("Details") instanceof ObjectNode details) {
                changed |= cap(details);
            }
        }
        if (!changed) {
            return body;
        }
        try {
            // The daemon's encoder ends the body with a newline; keep that shape.
            return (JSON.writeValueAsString(object) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean cap(ObjectNode node) {
        JsonNode version = node.get("ApiVersion");
        if (version == null || !version.isTextual() || !DockerRouteTable.above(version.asText())) {
            return false;
        }
        node.put("ApiVersion", DockerRouteTable.MAX_API_VERSION);
        return true;
    }
}
