package io.rediacc.gpu.contracts.api;

import io.rediacc.gpu.contracts.events.Grant;

import java.util.List;

/**
 * What a machine's removal did ({@code DELETE /api/v1/machines/{machine}} on grant-service): the grants
 * it revoked, the machine's grant version after it, and the gates whose status it tombstoned.
 */
public record RemovalView(String machine, int revokedCount, List<Grant> revoked, long version,
                          List<String> tombstonedGates) {

    public RemovalView {
        revoked = revoked == null ? List.of() : revoked;
        tombstonedGates = tombstonedGates == null ? List.of() : tombstonedGates;
    }
}
