package io.rediacc.gpu.api.params;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;

import java.util.Map;

/**
 * The one reading of a boolean query flag ({@code rekey}, {@code revokeGrants}, {@code freeDevices}) in
 * every service: absent is false, exactly {@code true} or {@code false} is that value, anything else —
 * {@code TRUE}, {@code 1}, {@code yes}, an empty value, surrounding blanks — is 400 {@code invalid-parameter}
 * naming the parameter. Exact, because two services reading one flag differently disagree on what was
 * asked: {@code rekey=TRUE} once re-keyed a machine in inventory-service and was refused by grant-service,
 * which kept the old key. JAX-RS's own {@code boolean} would read {@code yes} as false without a word.
 */
public final class QueryFlag {

    private QueryFlag() {
    }

    /** The flag's value; {@code name} is the parameter's name, for the answer. */
    public static boolean parse(String name, String raw) {
        if (raw == null) {
            return false;
        }
        return switch (raw) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ApiProblem(ProblemType.INVALID_PARAMETER,
                    name + "=" + printable(raw) + " is not a boolean: only true or false (lower case) is accepted",
                    "use " + name + "=true or " + name + "=false, or leave " + name + " out (false)",
                    Map.of("parameter", name));
        };
    }

    private static String printable(String raw) {
        String s = raw.length() > 32 ? raw.substring(0, 32) + "…" : raw;
        return "\"" + s.replaceAll("[^\\x20-\\x7e]", "?") + "\"";
    }
}
