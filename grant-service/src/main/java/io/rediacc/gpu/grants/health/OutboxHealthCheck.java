package io.rediacc.gpu.grants.health;

import io.rediacc.gpu.grants.messaging.OutboxRelay;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Reports what the outbox relay last did. UP while Kafka is away: the service keeps accepting
 * grants and publishes them later, so a broker outage must not take it out of a load balancer; the
 * data shows the backlog and the last error for whoever looks. DOWN while a record is parked
 * ({@code outbox_parked}): its machine's grants stop reaching the gates until an operator acts, and
 * that must not stay unnoticed (docs/RELIABILITY.md).
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
        HealthCheckResponseBuilder builder = HealthCheckResponse.named("outbox-relay").status(state.parked() == 0)
                .withData("pendingSeen", state.pendingSeen());
        if (state.parked() > 0) {
            builder.withData("parked", state.parked())
                    .withData("reason", state.parked() + " outbox record(s) refused by Kafka are parked and hold back"
                            + " their machine's later records; oldest: " + state.oldestParked())
                    .withData("fix", "GET /api/v1/outbox/parked (operator) shows them; DELETE /api/v1/outbox/parked/{id}"
                            + " drops one, POST /api/v1/outbox/parked/{id}/retry sends it again");
        }
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
