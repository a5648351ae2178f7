package io.rediacc.gpu.gate.policy;

import java.util.List;

/** The answer for a buffered body or a stored container configuration. */
public sealed interface Verdict permits Verdict.Allow, Verdict.Deny, Verdict.InspectVolumes {

    /** Forward the request, byte for byte as inspected. */
    record Allow() implements Verdict {
    }

    /** Answer with the refusal; nothing reaches the daemon. */
    record Deny(Refusal refusal) implements Verdict {
    }

    /**
     * Everything else passed, but the request uses named volumes that may already exist with options
     * (a local volume created outside the gate can be a bind of any host path): GET
     * {@code /volumes/{name}} for each from the repo's daemon (path-escape the name) and call
     * {@link GatePolicy#onVolumes}; forward the request only if that allows it.
     */
    record InspectVolumes(List<String> names) implements Verdict {
        public InspectVolumes {
            names = List.copyOf(names);
        }
    }
}
