package io.rediacc.gpu.inventory.dashboard;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** Settings of the browser dashboard ({@code dashboard.*}). */
@ConfigMapping(prefix = "dashboard")
public interface DashboardConfig {

    /** Grant events and refusals kept per machine and repo; older ones are deleted as new ones arrive. */
    @WithDefault("50")
    int recentPerRepo();

    /**
     * How often the live stream sends a {@code ping}: below {@code quarkus.http.idle-timeout} (30 s),
     * which would otherwise close a quiet stream.
     */
    @WithDefault("15s")
    Duration keepalive();

    /** Machines per page of the fleet view. */
    @WithDefault("100")
    int fleetPageSize();
}
