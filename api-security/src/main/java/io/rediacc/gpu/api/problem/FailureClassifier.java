package io.rediacc.gpu.api.problem;

import java.util.Optional;

/**
 * A service's knowledge of its own failures (a database that cannot be reached, a lock that stays
 * busy, a name its parser refused): {@link ProblemMappers} asks every such bean about each cause of
 * an exception before it answers 500.
 */
public interface FailureClassifier {

    /** The problem {@code failure} stands for, or empty when this classifier does not know it. */
    Optional<ApiProblem> classify(Throwable failure);
}
