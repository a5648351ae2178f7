package io.rediacc.gpu.gate.policy;

import java.util.Objects;

/**
 * The Docker API versions a daemon serves, as its {@code GET /version} reports them
 * ({@code MinAPIVersion}, {@code ApiVersion}): the daemon refuses a request whose {@code /vX.Y}
 * prefix lies outside them, and so does the gate, before the request reaches it. Versions compare
 * as the daemon compares them (moby {@code api/types/versions.compare}: parts split at '.', a part
 * that is not a number counts as 0, a missing part as 0).
 */
public record ApiVersions(String min, String max) {

    public ApiVersions {
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
    }

    /** Whether {@code version} is above {@link #max}. */
    public boolean aboveMax(String version) {
        return compare(version, max) > 0;
    }

    /** Whether {@code version} is below {@link #min}. */
    public boolean belowMin(String version) {
        return compare(version, min) < 0;
    }

    /** Negative, zero or positive as {@code a} is below, equal to or above {@code b}. */
    public static int compare(String a, String b) {
        int[] x = parse(a);
        int[] y = parse(b);
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int p = i < x.length ? x[i] : 0;
            int q = i < y.length ? y[i] : 0;
            if (p != q) {
                return Integer.compare(p, q);
            }
        }
        return 0;
    }

    private static int[] parse(String version) {
        String[] parts = version.split("\\.", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            boolean number = !parts[i].isEmpty() && parts[i].length() <= 9 && parts[i].chars().allMatch(c -> c >= '0' && c <= '9');
            out[i] = number ? Integer.parseInt(parts[i]) : 0;
        }
        return out;
    }
}
