package io.rediacc.gpu.api.problem;

import io.quarkus.arc.Unremovable;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

/**
 * Every {@link FailureClassifier} bean of the service. The injection point keeps them all: without it,
 * Quarkus would remove a classifier that nothing injects, and a database outage would answer 500.
 */
@Singleton
@Unremovable
public class FailureClassifiers {

    private final Instance<FailureClassifier> all;

    public FailureClassifiers(Instance<FailureClassifier> all) {
        this.all = all;
    }

    public Iterable<FailureClassifier> all() {
        return all;
    }
}
