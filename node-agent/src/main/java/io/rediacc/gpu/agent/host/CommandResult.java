package io.rediacc.gpu.agent.host;

/** What one run of a host executable produced. */
public record CommandResult(String commandLine, int exitCode, String stdout, String stderr, boolean timedOut) {

    public boolean ok() {
        return exitCode == 0 && !timedOut;
    }

    /** A one-line account of a failure for logs and the inventory's detail fields. */
    public String failureSummary() {
        if (timedOut) {
            return commandLine + " did not finish in time and was stopped";
        }
        String out = (stderr.isBlank() ? stdout : stderr).strip();
        if (out.length() > 400) {
            out = "…" + out.substring(out.length() - 400);
        }
        return commandLine + " exited with " + exitCode + (out.isEmpty() ? "" : ": " + out.replace('\n', ' '));
    }
}
