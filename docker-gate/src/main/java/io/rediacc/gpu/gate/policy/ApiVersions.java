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

    /**
     * Negative, zero or positive as {@code a} is below, equal to or above {@code b}. Read part by part in
     * place: every request's version and every answer's {@code Api-Version} header are compared, and
     * splitting them into arrays was a visible share of a {@code /_ping} (issue 34).
     */
    public static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i <= a.length() || j <= b.length()) {
            int aEnd = i > a.length() ? i : end(a, i);
            int bEnd = j > b.length() ? j : end(b, j);
            int p = i > a.length() ? 0 : part(a, i, aEnd);
            int q = j > b.length() ? 0 : part(b, j, bEnd);
            if (p != q) {
                return Integer.compare(p, q);
            }
            i = aEnd + 1;
            j = bEnd + 1;
        }
        return 0;
    }

    /** Where the part starting at {@code from} ends: the next '.', or the end. */
    private static int end(String version, int from) {
        int dot = version.indexOf('.', from);
        return dot < 0 ? version.length() : dot;
    }

    /** A part's number: its digits (at most 9, ASCII only), or 0 for anything else, as moby reads it. */
    private static int part(String version, int from, int to) {
        if (to == from || to - from > 9) {
            return 0;
        }
        int n = 0;
        for (int k = from; k < to; k++) {
            char c = version.charAt(k);
            if (c < '0' || c > '9') {
                return 0;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
