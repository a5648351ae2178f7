package io.rediacc.gpu.inventory.dashboard;

/**
 * The fix a gate refusal names, for the refusals table: the {@code rdc repo gpu grant ...} command of a
 * missing grant, or the "write ... instead" of a refused spelling. The gate's messages
 * (docker-gate's RefusalMessages) always end with one of the two; the full message is shown too.
 */
public final class FixCommand {

    private static final String GRANT = "rdc repo gpu grant ";
    private static final String WRITE = "write ";

    private FixCommand() {
    }

    /** The fix in {@code message}, or null when it names none. */
    public static String of(String message) {
        if (message == null) {
            return null;
        }
        int grant = message.indexOf(GRANT);
        if (grant >= 0) {
            return untilNote(message.substring(grant));
        }
        int write = message.lastIndexOf("; " + WRITE);
        if (write >= 0) {
            return message.substring(write + 2);
        }
        return null;
    }

    /** The command without the note the gate may append in parentheses. */
    private static String untilNote(String command) {
        int note = command.indexOf(" (");
        return (note >= 0 ? command.substring(0, note) : command).strip();
    }
}
