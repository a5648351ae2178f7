package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.Grant;

import java.util.List;

/** A machine's grant set as the database holds it, with its version. */
public record MachineGrants(String machine, long version, List<Grant> grants) {
}
