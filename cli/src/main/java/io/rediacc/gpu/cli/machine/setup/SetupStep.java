package io.rediacc.gpu.cli.machine.setup;

/**
 * One step of {@code rdc machine setup}, run in order ({@link SetupSteps#all}); it prints its own
 * progress line ({@code <step>: changed|unchanged - why}) and throws a
 * {@link io.rediacc.gpu.cli.failure.Failure} when the setup cannot go on.
 */
public interface SetupStep {

    void run(SetupRun run);
}
