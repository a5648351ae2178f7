package io.rediacc.gpu.gate.daemon;

/**
 * The {@code User-Agent} of the requests the gate sends to a repo daemon on its own schedule (the daemon
 * check's {@code GET /info}, the pin watcher's sweeps and event stream), so that daemon logs — and tests
 * counting what clients sent through the gate — can tell them from client requests.
 */
public final class GateUserAgent {
    public static final String VALUE = "rediacc-docker-gate";

    private GateUserAgent() {
    }
}
