package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code ?wait=} parameter: {@code 0}, {@code 500ms}, {@code 5s}, {@code 1m} (a bare number is seconds). */
final class WaitParameter {

    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m)?");

    private WaitParameter() {
    }

    static Duration parse(String raw, Duration byDefault, Duration max) {
        if (raw == null || raw.isBlank()) {
            return byDefault;
        }
        Matcher m = FORM.matcher(raw.strip());
        if (!m.matches()) {
            throw new ApiProblem(ProblemType.INVALID_WAIT, "wait \"" + raw + "\" is not a duration",
                    "use 0 (do not wait), a number of milliseconds, seconds or minutes such as 500ms, 5s or 1m");
        }
        long amount = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        Duration wait = switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofSeconds(amount);
        };
        return wait.compareTo(max) > 0 ? max : wait;
    }
}
