package io.rediacc.gpu.gate.policy;

/**
 * Where the gate pins the host paths a request binds (the pinning package implements it): each
 * host path the policy admitted is opened beneath its {@code hostPaths} root, judged again as the
 * object opened, and bind-mounted onto a gate-owned directory; the request is rewritten so the
 * daemon mounts that directory ({@link PinRewrite}). Pins of one request share a token, which
 * labels the container or volume that owns them ({@link #TOKEN_LABEL}).
 */
public interface BindPins {

    /** The gate's labels; a request may not set any label under this prefix. */
    String LABEL_PREFIX = "io.rediacc.gate.";

    /** Label with the token of the pins a container or volume owns. */
    String TOKEN_LABEL = LABEL_PREFIX + "pins";

    /** Label prefix with the host path a pinned bind came from ({@code io.rediacc.gate.bind.0=/srv/repo/data}). */
    String BIND_LABEL_PREFIX = LABEL_PREFIX + "bind.";

    /** What a pin is kept for: it goes when its owner goes. */
    enum Owner { CONTAINER, VOLUME }

    /** A new token for one request's pins. */
    String newToken();

    /**
     * Pins {@code hostPath} (absolute, cleaned as the daemon cleans it) for {@code repo}; returns the
     * path the daemon must mount instead. With {@code createMissing}, missing directories are made
     * beneath the root first. Throws {@link Refused} when the path cannot be pinned.
     */
    String pin(RepoIdentity repo, String token, Owner owner, String hostPath, boolean createMissing);

    /**
     * {@link #pin(RepoIdentity, String, Owner, String, boolean)} within one request whose roots the policy
     * resolved once ({@link RepoRoots}): the root the path lies beneath is chosen from them and the object
     * opened is judged against them, instead of resolving every root again for each bind.
     */
    default String pin(RepoIdentity repo, String token, Owner owner, String hostPath, boolean createMissing, RepoRoots roots) {
        return pin(repo, token, owner, hostPath, createMissing);
    }

    /** Persists the repo's pins (written atomically, off the request path). */
    void save(RepoIdentity repo);

    /** The daemon created the container or volume: its pins stay until it goes. */
    void commit(RepoIdentity repo, String token);

    /** The request failed: its pins go. */
    void release(RepoIdentity repo, String token);

    /** The directory holding this repo's pins: a stored bind or volume device under it is a pin of this repo. */
    String pinDirectory(RepoIdentity repo);

    /** A path the gate cannot pin, in words the user can act on. */
    final class Refused extends RuntimeException {
        private final int status;

        public Refused(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
