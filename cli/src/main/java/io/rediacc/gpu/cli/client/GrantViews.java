package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.contracts.events.Grant;

import java.time.Instant;
import java.util.List;

/**
 * What rdc reads from grant-service's answers (fields it does not show are ignored) where no shared
 * record exists; grant, revoke and a repo's grants are read with the service's own records (contracts.api).
 */
public final class GrantViews {

    private GrantViews() {
    }

    /** One entry of {@code GET /api/v1/audit}. */
    public record AuditEntry(long id, Instant at, String event, String machine, String repo, String device,
                             boolean exclusive, String actor, Long version, String reason, String requestReason,
                             Instant expiresAt) {
    }

    /** One page of {@code GET /api/v1/audit}; {@code next} null on the last. */
    public record AuditPage(List<AuditEntry> entries, String next) {
        public AuditPage {
            entries = entries == null ? List.of() : entries;
        }
    }

    /** {@code DELETE /api/v1/machines/{machine}}. */
    public record Removal(String machine, int revokedCount, List<Grant> revoked, long version, List<String> tombstonedGates) {
        public Removal {
            revoked = revoked == null ? List.of() : revoked;
            tombstonedGates = tombstonedGates == null ? List.of() : tombstonedGates;
        }
    }

    /**
     * {@code GET /api/v1/machines/{machine}/grants}: the database's view of a machine's grants.
     *
     * @param orphaned the granted names grant-service reports the machine's last inventory no longer defines (a setup
     *                 removed their devices); empty from a service that does not report them
     */
    public record MachineGrants(String machine, long version, List<Grant> grants, List<String> orphaned) {
        public MachineGrants {
            grants = grants == null ? List.of() : grants;
            orphaned = orphaned == null ? List.of() : orphaned;
        }
    }
}
