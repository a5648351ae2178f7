package io.rediacc.gpu.dockerd;

/** Why no real Docker daemon can run here (not root, packages unreachable, a version below the minimum). */
public final class DockerdUnavailable extends RuntimeException {

    public DockerdUnavailable(String reason) {
        super(reason);
    }
}
