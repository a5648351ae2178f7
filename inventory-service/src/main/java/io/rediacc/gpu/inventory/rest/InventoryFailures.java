package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.FailureClassifier;
import io.rediacc.gpu.api.problem.ProblemType;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.enterprise.context.ApplicationScoped;

import java.net.ConnectException;
import java.net.SocketException;
import java.util.Optional;

/**
 * inventory-service's own failures, for api-security's one error model: only a database that cannot be
 * reached is a 503 to retry. Any other database error (a wrong statement, a constraint) is a bug and
 * stays a 500, so that no client retries it.
 */
@ApplicationScoped
public class InventoryFailures implements FailureClassifier {

    @Override
    public Optional<ApiProblem> classify(Throwable e) {
        return unreachable(e) ? Optional.of(new ApiProblem(ProblemType.DATABASE_UNAVAILABLE,
                "the inventory database cannot be reached (" + e.getClass().getSimpleName() + ")",
                "retry shortly; if it persists check PostgreSQL and /q/health/ready")) : Optional.empty();
    }

    static boolean unreachable(Throwable e) {
        if (e instanceof ConnectException || e instanceof SocketException || e instanceof ClosedConnectionException) {
            return true;
        }
        if (e instanceof PgException pg && pg.getSqlState() != null) {
            String state = pg.getSqlState();
            return state.startsWith("08") || state.startsWith("53") || state.startsWith("57");
        }
        String message = String.valueOf(e.getMessage());
        return e instanceof io.vertx.core.impl.NoStackTraceThrowable && message.contains("Timeout")
                || message.contains("Connection refused") || message.contains("Pool closed");
    }
}
