package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.events.DaemonStatus;

/** The grants this gate enforces now; answers by exact string, the way the runtime resolves CDI names. */
public interface GrantLookup {

    /** False until the gate has read the grants topic to its end (or loaded its saved snapshot). */
    boolean loaded();

    /** True when the repo with this GUID holds a grant for exactly this qualified CDI name. */
    boolean holds(String repoGuid, String cdiName);

    /**
     * True when this name is granted on the machine but its inventory (written by setup, beside the gate's
     * directory) no longer defines it: a setup removed the CDI device (--force), and the runtime cannot resolve
     * it. False when it is defined, or when no inventory can say (the daemon then resolves it or refuses).
     */
    default boolean orphaned(String cdiName) {
        return false;
    }

    /**
     * What the gate last found about the daemon of the repo with this GUID ({@code GET /info}); device
     * requests wait (503) unless it is {@code ok}. Null when nothing verifies daemons (policy tests).
     */
    default DaemonStatus daemon(String repoGuid) {
        return null;
    }

    /**
     * The API versions the daemon of the repo with this GUID serves ({@code GET /version}); null
     * while the gate has not read them. Only asked where {@link #daemon} is not null (the gate
     * verifies daemons): a request naming a version is then refused until they are known.
     */
    default ApiVersions apiVersions(String repoGuid) {
        return null;
    }
}
