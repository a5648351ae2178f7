package io.rediacc.gpu.contracts.api;

import java.util.List;

/**
 * A CDI name the machine's live gates hold grants for but its inventory no longer defines: a setup removed the
 * device ({@code rdc machine setup --force}). The gate refuses it (rule {@code cdi-orphaned}) until setup
 * defines it again ({@code rdc machine setup <machine>}) or the grants are revoked ({@code rdc repo gpu revoke}).
 */
public record OrphanedDevice(String name, List<Holder> holders) {

    public OrphanedDevice {
        holders = holders == null ? List.of() : holders;
    }
}
