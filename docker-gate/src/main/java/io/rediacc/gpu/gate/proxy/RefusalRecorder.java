package io.rediacc.gpu.gate.proxy;

import io.rediacc.gpu.gate.policy.Refusal;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.RequestHead;

/** Where the data plane reports each refused request (metrics and the decisions topic). */
@FunctionalInterface
public interface RefusalRecorder {

    RefusalRecorder NONE = (repo, head, refusal) -> { };

    /** Called on an event loop: must not block. */
    void refused(RepoIdentity repo, RequestHead head, Refusal refusal);
}
