package io.rediacc.gpu.contracts.events;

import java.time.Instant;
import java.util.List;

/**
 * A machine's complete grant set on {@link Topics#GRANTS} (key = machine). {@code version} rises
 * strictly per machine; a consumer applies a snapshot only when its version is higher than the one
 * it holds, which makes replays and duplicates harmless.
 */
public record GrantSnapshot(String machine, long version, Instant updatedAt, List<Grant> grants) {
    public GrantSnapshot {
        grants = grants == null ? List.of() : List.copyOf(grants);
    }
}
