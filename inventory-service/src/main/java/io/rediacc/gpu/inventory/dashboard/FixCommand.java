package io.rediacc.gpu.inventory.dashboard;

/**
 * The fix a gate refusal names, for the refusals table: the {@code rdc repo gpu grant ...} command of a
 * missing grant, the {@code rdc machine setup ...} (or revoke) of an orphaned one, or the clause after the reason that says what to do — "write ... instead" of a refused
 * spelling, "remove --privileged ...", "remove --runtime nvidia and write ...", "remove --cap-add ...",
 * "request the device by its granted CDI name ...", "run exec without --privileged". The gate's messages
 * (docker-gate's RefusalMessages) end with one of these; the full message is shown too.
 */
public final class FixCommand {

    private static final String GRANT = "rdc repo gpu grant ";
    /** An orphaned grant's fix (docker-gate's cdi-orphaned): setup brings the device back, or revoke frees it. */
    private static final String SETUP = "rdc machine setup ";
    /** The verbs a refusal's fix starts with, after the "; " that ends its reason. */
    private static final java.util.regex.Pattern FIX = java.util.regex.Pattern.compile(
            "; ((?:write|remove|request|run|recreate|use) .*)$");

    private FixCommand() {
    }

    /** The fix in {@code message}, or null when it names none. */
    public static String of(String message) {
        if (message == null) {
            return null;
        }
        int setup = message.indexOf(SETUP);
        if (setup >= 0) {
            return message.substring(setup).strip();
        }
        int grant = message.indexOf(GRANT);
        if (grant >= 0) {
            return untilNote(message.substring(grant));
        }
        // the last clause that starts with a fix's verb: a reason may itself contain "; "
        java.util.regex.Matcher m = FIX.matcher(message);
        String fix = null;
        int from = 0;
        while (m.find(from)) {
            fix = m.group(1);
            from = m.start() + 1;
        }
        return fix;
    }

    /** The command without the note the gate may append in parentheses. */
    private static String untilNote(String command) {
        int note = command.indexOf(" (");
        return (note >= 0 ? command.substring(0, note) : command).strip();
    }
}
