package io.rediacc.gpu.dockerd;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A dotted version as the tools print it ({@code 28.5.2+dfsg4}, {@code 2.40.3-3}): major, minor, patch. */
public record Version(int major, int minor, int patch, String text) implements Comparable<Version> {

    private static final Pattern DOTTED = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?[^\\s,;)]*");

    /** The first dotted version in {@code output}, e.g. of {@code dockerd --version}. */
    public static Optional<Version> find(String output) {
        Matcher m = DOTTED.matcher(output == null ? "" : output);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new Version(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3)), m.group()));
    }

    public static Version of(int major, int minor) {
        return new Version(major, minor, 0, major + "." + minor);
    }

    public boolean atLeast(Version minimum) {
        return compareTo(minimum) >= 0;
    }

    @Override
    public int compareTo(Version o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return text;
    }
}
