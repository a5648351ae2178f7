package io.rediacc.gpu.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The root README's "A session", read as what it is: a list of shell commands ({@code $ …}), each with
 * the output a terminal shows and the exit code ({@code [exit N]}; none written means 0). Output is
 * compared after {@link #normalise}: what differs from one fresh fleet to the next (times, ages, ports,
 * repo GUIDs, the simulated cards' UUIDs, container ids, where the state directory lies) is replaced by a placeholder, and a
 * {@code ...} in an expected line stands for any text (the session's elisions).
 */
final class ReadmeSession {

    /** One command of the session and what the README shows it printing. */
    record Step(String command, List<String> expected, int exit) {

        /** Needs a terminal (an interactive shell): shown in the README, not replayed. */
        boolean interactive() {
            return command.matches(".*\\s-(it|dit)\\s.*") || command.contains("docker attach");
        }
    }

    private ReadmeSession() {
    }

    /** The steps of the README's session block (the code block that starts with {@code $ ./fleet up}). */
    static List<Step> parse(String readme) {
        int section = readme.indexOf("\n## A session");
        if (section < 0) {
            throw new IllegalArgumentException("the README has no \"## A session\" section");
        }
        int start = readme.indexOf("```\n$ ./fleet up", section);
        if (start < 0) {
            throw new IllegalArgumentException("\"## A session\" has no code block that starts with $ ./fleet up");
        }
        int end = readme.indexOf("\n```", start + 4);
        List<Step> steps = new ArrayList<>();
        String command = null;
        List<String> expected = new ArrayList<>();
        int exit = 0;
        for (String line : readme.substring(start + 4, end).split("\n", -1)) {
            if (line.startsWith("$ ")) {
                if (command != null) {
                    steps.add(new Step(command, List.copyOf(expected), exit));
                }
                command = line.substring(2);
                expected = new ArrayList<>();
                exit = 0;
            } else if (line.matches("\\[exit \\d+]")) {
                exit = Integer.parseInt(line.substring(6, line.length() - 1));
            } else {
                expected.add(line);
            }
        }
        if (command != null) {
            steps.add(new Step(command, List.copyOf(expected), exit));
        }
        return steps;
    }

    private static final List<Replacement> VARIABLE = List.of(
            new Replacement("\\S*/\\.fleet/", "<fleet>/"),
            new Replacement("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z", "<time>"),
            new Replacement("\\b\\d{2}:\\d{2}:\\d{2}\\b", "<clock>"),
            new Replacement("\\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b", "<guid>"),
            new Replacement("(?<![\\w-])([0-9a-f]{64}|[0-9a-f]{12}(\\.\\.\\.)?)(?![\\w-])", "<id>"),
            new Replacement("(?<![\\w-])[0-9a-f]{32}(?![\\w-])", "<key-id>"), // a machine key's id (the audit's key events)
            // one unit or several (rdc prints 1m14s once a minute has passed: a loaded machine gets there)
            new Replacement("\\b(\\d+(ms|s|m|h|d))+\\b", "<age>"),
            new Replacement("\\bUp (Less than a second|About a minute|\\d+ \\w+)", "Up <uptime>"),
            new Replacement("127\\.0\\.0\\.1:\\d+", "127.0.0.1:<port>"),
            new Replacement("\\s+", " "));

    private record Replacement(String regex, String with) {
    }

    /** The line with what varies between fleets replaced, spaces folded (tables align to their widest cell). */
    static String normalise(String line) {
        String s = line.strip();
        for (Replacement r : VARIABLE) {
            s = s.replaceAll(r.regex(), r.with());
        }
        return s;
    }

    /**
     * Output lines as compared: normalised, blank lines and the daemons' {@code WARNING: IPv4 forwarding is
     * disabled} (the README leaves it out) dropped, and a run of clock-only lines ({@code docker logs -f} of
     * a loop printing the time) folded into one.
     */
    static List<String> comparable(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String n = normalise(line);
            if (n.isEmpty() || n.startsWith("WARNING: IPv4 forwarding is disabled")) {
                continue;
            }
            if (n.equals("<clock>") && !out.isEmpty() && out.get(out.size() - 1).equals("<clock>")) {
                continue;
            }
            out.add(n);
        }
        sortUuidNamedRuns(out);
        return out;
    }

    /**
     * The simulated cards get new UUIDs on every fleet, and listings sort names as text: the order of
     * consecutive {@code =GPU-<guid>} rows depends on the UUIDs drawn, so such a run is compared as sorted.
     */
    private static void sortUuidNamedRuns(List<String> lines) {
        int i = 0;
        while (i < lines.size()) {
            int j = i;
            while (j < lines.size() && lines.get(j).contains("=GPU-<guid>")) {
                j++;
            }
            if (j - i > 1) {
                java.util.Collections.sort(lines.subList(i, j));
            }
            i = Math.max(j, i + 1);
        }
    }

    /** Whether a normalised actual line is what the normalised expected line shows ({@code ...}: any text). */
    static boolean matches(String expected, String actual) {
        if (!expected.contains("...")) {
            return expected.equals(actual);
        }
        StringBuilder regex = new StringBuilder();
        for (String part : expected.split("\\.\\.\\.", -1)) {
            if (regex.length() > 0) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(part));
        }
        return actual.matches(regex.toString());
    }

    /**
     * What is wrong with {@code actual} as the output of a step that shows {@code expected}; null when nothing.
     * With {@code inOrder}, the expected lines need only appear in that order among the actual ones (the
     * fleet's start, whose output the README elides).
     */
    static String mismatch(List<String> expected, List<String> actual, boolean inOrder) {
        List<String> want = comparable(expected);
        List<String> got = comparable(actual);
        if (inOrder) {
            List<String> missing = new ArrayList<>();
            int at = 0;
            for (String w : want) {
                if (w.equals("...") || w.startsWith("... (")) {
                    continue; // an elision: "..." alone, or "... (what was left out)"
                }
                int found = at;
                while (found < got.size() && !matches(w, got.get(found))) {
                    found++;
                }
                if (found == got.size()) {
                    missing.add(w);
                } else {
                    at = found + 1;
                }
            }
            return missing.isEmpty() ? null : "no line, in order, like: " + String.join("\n  and no line like: ", missing);
        }
        if (want.size() != got.size()) {
            return "the README shows " + want.size() + " line(s), the fleet printed " + got.size();
        }
        for (int i = 0; i < want.size(); i++) {
            if (!matches(want.get(i), got.get(i))) {
                return "line " + (i + 1) + ": the README shows \"" + want.get(i) + "\", the fleet printed \"" + got.get(i) + "\"";
            }
        }
        return null;
    }
}
