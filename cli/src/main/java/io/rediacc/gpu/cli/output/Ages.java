package io.rediacc.gpu.cli.output;

/** Ages as people read them: 42s, 5m12s, 3h4m, 2d5h. */
public final class Ages {

    private Ages() {
    }

    public static String of(long seconds) {
        long s = Math.max(0, seconds);
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
        }
        if (s < 86400) {
            return s / 3600 + "h" + (s % 3600 / 60 == 0 ? "" : s % 3600 / 60 + "m");
        }
        return s / 86400 + "d" + (s % 86400 / 3600 == 0 ? "" : s % 86400 / 3600 + "h");
    }
}
