package io.rediacc.gpu.cli.failure;

import java.util.List;

/**
 * rdc's exit codes. With several devices in one call, rdc exits with the most severe code of
 * all of them, in this order: 1 error, 2 usage, 4 conflict, 3 not found, 5 not yet enforced, 0.
 */
public final class ExitCodes {

    public static final int OK = 0;
    /** Anything that is not the caller's input: server unreachable, server failure, bad configuration. */
    public static final int ERROR = 1;
    /** The command line was wrong: unknown option, invalid CDI name or repo reference. */
    public static final int USAGE = 2;
    /** The machine, repo, device or grant named does not exist. */
    public static final int NOT_FOUND = 3;
    /** An exclusive reservation stands in the way. */
    public static final int CONFLICT = 4;
    /** The change is recorded but the machine's gates do not enforce it yet. */
    public static final int NOT_ENFORCED = 5;
    /** SSH refused: the machine's host key is unknown or changed, or the login was refused. */
    public static final int SSH_REFUSED = 6;
    /** Machine setup ran but a step on the machine failed or refused to go on. */
    public static final int MACHINE_FAILED = 7;

    private static final List<Integer> MOST_SEVERE_FIRST = List.of(ERROR, USAGE, CONFLICT, NOT_FOUND, NOT_ENFORCED, OK);

    private ExitCodes() {
    }

    /** The exit code for an HTTP status a service answered with. */
    public static int forStatus(int status) {
        if (status >= 200 && status < 300) {
            return status == 202 ? NOT_ENFORCED : OK;
        }
        return switch (status) {
            case 400 -> USAGE;
            case 404, 422 -> NOT_FOUND; // 422: the machine defines no such device
            case 409 -> CONFLICT;
            default -> ERROR;
        };
    }

    /**
     * The exit code for a refusal, using the service's error code where a status covers several
     * cases: a 409 is a conflict when an exclusive reservation stands in the way, but a usage
     * error when a repo name is ambiguous (name the machine) and "not found" when the machine
     * has sent no inventory yet.
     */
    public static int forError(int status, String error) {
        if (status == 409 && error != null) {
            return switch (error) {
                case "ambiguous-repo" -> USAGE;
                case "no-inventory" -> NOT_FOUND;
                default -> CONFLICT;
            };
        }
        return forStatus(status);
    }

    /** The more severe of two exit codes. */
    public static int worst(int a, int b) {
        return rank(a) <= rank(b) ? a : b;
    }

    private static int rank(int code) {
        int i = MOST_SEVERE_FIRST.indexOf(code);
        return i < 0 ? 0 : i;
    }
}
