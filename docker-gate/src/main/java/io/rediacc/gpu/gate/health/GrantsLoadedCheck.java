package io.rediacc.gpu.gate.health;

import io.rediacc.gpu.gate.grants.GrantStore;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.service.GateLifecycle;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** Ready once grants are loaded (read from Kafka to the end, or restored from disk). */
@Readiness
@ApplicationScoped
public class GrantsLoadedCheck implements HealthCheck {

    private final GateLifecycle lifecycle;

    public GrantsLoadedCheck(GateLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("grants");
        Gate gate = lifecycle.gate();
        if (gate == null) {
            return response.down().withData("reason", "gate not started").build();
        }
        GrantStore.State state = gate.grants().state();
        return response.status(gate.grants().loaded())
                .withData("machine", gate.grants().machine())
                .withData("appliedVersion", state.version())
                .withData("synced", state.caughtUp())
                .withData("fromDisk", state.fromDisk())
                .withData("grantsSignedAt", String.valueOf(state.signedAt()))
                .withData("grantsFrozen", state.frozen(java.time.Instant.now(), gate.config().grantsFreezeAfter()))
                .withData("listeners", gate.listenerCount())
                .build();
    }
}
