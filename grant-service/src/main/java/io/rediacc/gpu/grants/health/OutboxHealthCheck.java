package io.rediacc.gpu.grants.health;

import io.rediacc.gpu.grants.messaging.OutboxRelay;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Reports what the outbox relay last did. Always UP: while Kafka is away the service keeps
 * accepting grants and publishes them later, so a broker outage must not take it out of a load
 * balancer; the data shows the backlog and the last error for whoever looks.
 */
@Readiness
@ApplicationScoped
public class OutboxHealthCheck implements HealthCheck {

    private final OutboxRelay relay;

    public OutboxHealthCheck(OutboxRelay relay) {
        this.relay = relay;
    }

    @Override
    public HealthCheckResponse call() {
        OutboxRelay.RelayState state = relay.state();
        HealthCheckResponseBuilder builder = HealthCheckResponse.named("outbox-relay").up()
                .withData("pendingSeen", state.pendingSeen());
        if (state.lastPassAt() != null) {
            builder.withData("lastPassAt", state.lastPassAt().toString());
        }
        if (state.lastPublishedAt() != null) {
            builder.withData("lastPublishedAt", state.lastPublishedAt().toString());
        }
        if (state.lastError() != null) {
            builder.withData("lastError", state.lastError());
        }
        return builder.build();
    }
}
