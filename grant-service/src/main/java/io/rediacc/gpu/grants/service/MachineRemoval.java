package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.Grant;

import java.util.List;

/**
 * The result of removing a machine from the fleet.
 *
 * @param revoked the grants revoked with it (each audited)
 * @param version the machine's grant version after the removal (unchanged when it held no grants)
 * @param gates   the gates whose status records were tombstoned
 */
public record MachineRemoval(String machine, List<Grant> revoked, long version, List<String> gates) {
}
