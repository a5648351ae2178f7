package io.rediacc.gpu.contracts.text;

import io.rediacc.gpu.contracts.events.Grant;

/**
 * One grant a setup would orphan, in the operator's terms, with the {@code rdc repo gpu revoke} that frees it: the
 * same line whether rdc says it (from grant-service) or the machine's setup does (from the gate's copy).
 */
public final class RevokeHint {

    private RevokeHint() {
    }

    /** {@code gpu-a@m1 holds nvidia.com/gpu=0 (exclusive): rdc repo gpu revoke gpu-a@m1 --device nvidia.com/gpu=0}. */
    public static String line(Grant grant, String machine) {
        String repo = grant.repoName() + "@" + machine;
        return repo + " holds " + grant.device() + (grant.exclusive() ? " (exclusive)" : "") + ": rdc repo gpu revoke "
                + repo + " --device " + grant.device();
    }
}
