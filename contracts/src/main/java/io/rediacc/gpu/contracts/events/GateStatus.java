package io.rediacc.gpu.contracts.events;

import java.time.Instant;
import java.util.List;

/**
 * What a gate enforces now, on {@link Topics#GATE_STATUS} (key = machine/gateId); published after
 * each applied version and on a heartbeat. A gate silent for 3 heartbeats counts as gone.
 *
 * @param state {@code loading} until the gate has read the grants topic to its end, then {@code synced}
 */
public record GateStatus(String machine, String gateId, long appliedVersion, String state, List<Grant> grants,
                         List<RepoInfo> repos, int heartbeatSeconds, Instant syncedAt) {

    public static final String LOADING = "loading";
    public static final String SYNCED = "synced";

    public GateStatus {
        grants = grants == null ? List.of() : List.copyOf(grants);
        repos = repos == null ? List.of() : List.copyOf(repos);
    }
}
