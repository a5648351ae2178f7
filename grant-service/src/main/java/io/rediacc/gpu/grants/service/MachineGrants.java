package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.Grant;

import java.util.List;

/**
 * A machine's grant set as the database holds it, with its version.
 *
 * @param orphaned the granted names the machine's last inventory no longer defines (a setup removed their CDI
 *                 devices): its gates refuse them until setup brings the device back or the grants are revoked
 */
public record MachineGrants(String machine, long version, List<Grant> grants, List<String> orphaned) {
}
