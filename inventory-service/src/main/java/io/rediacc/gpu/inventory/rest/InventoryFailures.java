package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.DatabaseOutage;
import io.rediacc.gpu.api.problem.FailureClassifier;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * inventory-service's own failures, for api-security's one error model: only a database that cannot be
 * reached is a 503 to retry ({@link DatabaseOutage} decides, by type and SQLSTATE). Any other database
 * error (a wrong statement, a constraint) is a bug and stays a 500, so that no client retries it.
 */
@ApplicationScoped
public class InventoryFailures implements FailureClassifier {

    @Override
    public Optional<ApiProblem> classify(Throwable e) {
        return DatabaseOutage.is(e) ? Optional.of(DatabaseOutage.problem("the inventory database", e)) : Optional.empty();
    }
}
