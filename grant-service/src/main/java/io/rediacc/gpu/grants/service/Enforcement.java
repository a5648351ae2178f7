package io.rediacc.gpu.grants.service;

import java.util.List;

/**
 * Whether the machine's gates enforce a version yet.
 *
 * @param enforced     every live gate of the machine applies the version (or a newer one)
 * @param sentence     the answer in words, for people
 * @param laggingGates live gates still below the version, as {@code gateId (at version N)}
 */
public record Enforcement(boolean enforced, String sentence, List<String> laggingGates) {
}
