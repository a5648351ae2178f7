package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.identity.RepoRef;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks what the command line names with the contracts' own rules before anything is sent: a
 * typo is a usage error (exit 2) on one line, and no device of the call is sent.
 */
public final class CommandInput {

    private static final Pattern WAIT = Pattern.compile("(\\d{1,9})(ms|s|m)?");

    private CommandInput() {
    }

    static RepoRef repo(String ref) {
        try {
            return RepoRef.parse(ref);
        } catch (InvalidIdentifierException e) {
            throw Failure.usage(e.getMessage());
        }
    }

    /** Every device parsed, duplicates dropped; every invalid one reported on its own line. */
    static List<CdiName> devices(List<String> raw, PrintWriter err) {
        List<String> problems = new ArrayList<>();
        LinkedHashSet<CdiName> devices = new LinkedHashSet<>();
        for (String device : raw) {
            try {
                devices.add(CdiName.parse(device));
            } catch (InvalidCdiNameException e) {
                problems.add("invalid --device " + device + ": " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            // all but the last on their own lines; the last ends the command
            problems.subList(0, problems.size() - 1).forEach(err::println);
            err.flush();
            throw new Failure(ExitCodes.USAGE, problems.get(problems.size() - 1));
        }
        return List.copyOf(devices);
    }

    /** {@code --wait}: 0, 500ms, 5s, 1m (a bare number is seconds); null when not given. */
    public static Duration wait(String raw) {
        if (raw == null) {
            return null;
        }
        Matcher m = WAIT.matcher(raw.strip());
        if (!m.matches()) {
            throw Failure.usage("--wait " + raw + " is not a duration; use e.g. 0, 500ms, 5s or 1m");
        }
        long amount = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofSeconds(amount);
        };
    }

    private static final Pattern EXPIRY = Pattern.compile("\\d{1,6}[smhd]");

    /** {@code --expires-in}: 30m, 8h, 7d; null when not given. */
    static String expiresIn(String raw) {
        if (raw == null) {
            return null;
        }
        if (!EXPIRY.matcher(raw.strip()).matches()) {
            throw Failure.usage("--expires-in " + raw + " is not a duration; use e.g. 30m, 8h or 7d");
        }
        return raw.strip();
    }

    /** An ISO-8601 instant option; null when not given. */
    static java.time.Instant instant(String option, String raw) {
        if (raw == null) {
            return null;
        }
        try {
            return java.time.Instant.parse(raw.strip());
        } catch (java.time.format.DateTimeParseException e) {
            throw Failure.usage(option + " " + raw + " is not an ISO-8601 instant; write e.g. 2026-12-01T18:00:00Z");
        }
    }
}
