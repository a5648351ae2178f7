package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.grants.service.Problems;

import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The optional terms of a grant or revoke: the operator's reason and the grant's expiry. */
final class GrantTerms {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,6})(s|m|h|d)");
    /** Longest expiry: a grant meant to last longer is a grant without one. */
    static final Duration MAX_EXPIRY = Duration.ofDays(366);
    static final int MAX_REASON = 500;

    private GrantTerms() {
    }

    /** The reason as given (null when absent or blank); 400 when too long or with control characters. */
    static String reason(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        if (raw.length() > MAX_REASON) {
            throw Problems.invalidReason("the reason has " + raw.length() + " characters; at most " + MAX_REASON
                    + " are recorded");
        }
        // a reason is printed in tables and logs: no line breaks or escape sequences
        if (raw.chars().anyMatch(Character::isISOControl)) {
            throw Problems.invalidReason("the reason contains a control character (a line break, tab or escape)");
        }
        return raw.strip();
    }

    /** When the grant expires (null: never), from {@code expiresIn} or {@code expiresAt}. */
    static Instant expiry(String expiresIn, Instant expiresAt, Instant now) {
        boolean in = expiresIn != null && !expiresIn.isBlank();
        if (in && expiresAt != null) {
            throw Problems.invalidExpiry("both expiresIn and expiresAt are given");
        }
        if (in) {
            Matcher m = DURATION.matcher(expiresIn.strip());
            if (!m.matches()) {
                throw Problems.invalidExpiry("expiresIn \"" + expiresIn + "\" is not a duration");
            }
            long amount = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
            return bounded(now.plus(d), now, "expiresIn " + expiresIn);
        }
        return expiresAt == null ? null : bounded(expiresAt, now, "expiresAt " + expiresAt);
    }

    private static Instant bounded(Instant at, Instant now, String what) {
        if (!at.isAfter(now)) {
            throw Problems.invalidExpiry(what + " is not in the future");
        }
        if (at.isAfter(now.plus(MAX_EXPIRY))) {
            throw Problems.invalidExpiry(what + " is more than " + MAX_EXPIRY.toDays() + " days away");
        }
        return at;
    }
}
