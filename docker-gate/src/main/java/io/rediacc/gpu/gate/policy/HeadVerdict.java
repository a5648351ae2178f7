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
     * the daemon (path-escape the id) and call {@link GatePolicy#onStoredContainer}.
     */
    record InspectStoredContainer(String containerId) implements HeadVerdict {
    }

    /** Answer with the refusal; nothing reaches the daemon. */
    record Refuse(Refusal refusal) implements HeadVerdict {
    }
}
