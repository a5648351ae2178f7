package io.rediacc.gpu.agent.machine;

/**
 * One line of {@code node-agent prepare}'s progress: a step, what it did to the machine, and why.
 * {@code rdc machine setup} relays these lines as they arrive.
 */
public record Step(String name, Outcome outcome, String detail) {

    public enum Outcome {
        /** The step changed the machine. */
        changed,
        /** The machine already was as the step wants it. */
        unchanged,
        /** The step could not do its work; the machine is not ready. */
        failed,
        /** The step refuses to go on (e.g. a Docker daemon too old for CDI). */
        refused;

        public boolean bad() {
            return this == failed || this == refused;
        }
    }

    public static Step changed(String name, String detail) {
        return new Step(name, Outcome.changed, detail);
    }

    public static Step unchanged(String name, String detail) {
        return new Step(name, Outcome.unchanged, detail);
    }

    public static Step failed(String name, String detail) {
        return new Step(name, Outcome.failed, detail);
    }

    public static Step refused(String name, String detail) {
        return new Step(name, Outcome.refused, detail);
    }

    /** {@code name: outcome - detail}, the line rdc prints. */
    public String line() {
        return name + ": " + outcome + (detail == null || detail.isBlank() ? "" : " - " + detail);
    }
}
