package io.rediacc.gpu.cli.client;

import java.time.Instant;
import java.util.List;

/**
 * What rdc reads from grant-service's answers (fields it does not show are ignored) where no shared
 * record exists; grant, revoke, a repo's grants, a machine's grants and a removal are read with the
 * service's own records (contracts.api).
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
}
