package io.rediacc.gpu.gate.policy;

/** What the data plane does with a request once its head has been read. */
public sealed interface HeadVerdict permits HeadVerdict.Pass, HeadVerdict.InspectBody,
        HeadVerdict.InspectStoredContainer, HeadVerdict.Refuse {

    /** Stream the request through untouched (including upgrades to raw streams). */
    record Pass() implements HeadVerdict {
    }

    /**
     * Buffer the whole body (at most {@link GatePolicy#maxBodyBytes()}; more is a 413, never a skip)
     * and call {@link GatePolicy#onBody}. {@code route} names the endpoint, for logs and metrics.
     */
    record InspectBody(String route) implements HeadVerdict {
    }

    /**
     * The request starts an existing container: GET {@code /containers/{containerId}/json} from
     * the daemon (path-escape the id) and call {@link GatePolicy#onStoredContainer}. What is
     * forwarded is the start of the container that was judged, by its full ID
     * ({@link #targetFor}), never the name or short ID the client sent: a rename between the
     * check and the start must not make the daemon start another container.
     *
     * <p>Besides start and restart, the routes where the daemon mounts the container's sources
     * without starting it are judged the same way: {@code docker cp} ({@code archive}), {@code export}
     * and {@code commit} (whose container is named in the query, {@code container=}).
     *
     * @param apiVersion the request's API version prefix ({@code 1.50}), null when it had none
     * @param action     the last path segment: {@code start}, {@code restart}, {@code archive},
     *                   {@code export}; or {@code commit} for {@code POST /commit}
     * @param rawQuery   the request's query string as sent (empty when none)
     * @param streamBody the body is an upload to stream through {@link io.rediacc.gpu.gate.policy.TarStreamCheck}
     *                   once the container is judged (never buffered)
     */
    record InspectStoredContainer(String containerId, String apiVersion, String action, String rawQuery, boolean streamBody)
            implements HeadVerdict {

        private static final java.util.regex.Pattern FULL_ID = java.util.regex.Pattern.compile("[0-9a-f]{64}");

        public InspectStoredContainer(String containerId, String apiVersion, String action, String rawQuery) {
            this(containerId, apiVersion, action, rawQuery, false);
        }

        private static boolean isContainerKey(String key) {
            try {
                return RequestTarget.unescape(key, true, key).equals("container");
            } catch (RuntimeException badEscape) {
                return false; // Go skips the pair; so does the daemon
            }
        }

        /** The request target to forward for the container whose full ID is {@code fullId}. */
        public String targetFor(String fullId) {
            if (!FULL_ID.matcher(fullId).matches()) {
                throw new IllegalArgumentException("not a full container ID: " + fullId);
            }
            String version = apiVersion == null ? "" : "/v" + apiVersion;
            if (action.equals("commit")) {
                StringBuilder query = new StringBuilder("container=").append(fullId);
                for (String pair : rawQuery.split("&")) {
                    String key = pair.split("=", 2)[0];
                    if (!pair.isEmpty() && !isContainerKey(key)) {
                        query.append('&').append(pair);
                    }
                }
                return version + "/commit?" + query;
            }
            return version + "/containers/" + fullId + "/" + action + (rawQuery.isEmpty() ? "" : "?" + rawQuery);
        }
    }

    /** Answer with the refusal; nothing reaches the daemon. */
    record Refuse(Refusal refusal) implements HeadVerdict {
    }
}
