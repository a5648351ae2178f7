package io.rediacc.gpu.contracts.identity;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The rules for machine names, repo names and repo GUIDs, in one place.
 *
 * <p>A repo's identity is its GUID: names and paths can be copied by a fork, a GUID cannot, so
 * every grant is keyed by GUID and a name is only a way for people to point at one.
 */
public final class Identifiers {

    /**
     * Host-name-like and in lower case: letters, digits, '.', '_', '-'; starts and ends with a letter or
     * digit; ≤ 63. One spelling per machine: host names are case-insensitive, so {@code RT-M2} beside
     * {@code rt-m2} would be a second machine (own grants, own key) for the same host.
     */
    private static final Pattern MACHINE = Pattern.compile("[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?");
    /** A gate id: the machine name's characters in either case (it is only ever a part of a key under a machine). */
    private static final Pattern GATE_ID = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");
    /** Like a machine name, up to 128 characters; never contains '@' or '/' so references stay unambiguous. */
    private static final Pattern REPO = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?");
    private static final Pattern GUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private Identifiers() {
    }

    public static String machine(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidIdentifierException("machine name is empty");
        }
        if (!MACHINE.matcher(name).matches() && GATE_ID.matcher(name).matches()) {
            throw new InvalidIdentifierException("machine name \"" + printable(name) + "\" has upper-case letters; machine"
                    + " names are lower case, one spelling per machine: use \"" + name.toLowerCase(Locale.ROOT) + "\"");
        }
        if (!MACHINE.matcher(name).matches()) {
            throw new InvalidIdentifierException("machine name \"" + printable(name)
                    + "\" is invalid: use 1-63 lower-case letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
        }
        return name;
    }

    /** A gate id (part of the gate status key {@code machine/gateId}): a machine name's rules, either case. */
    public static String gateId(String id) {
        if (!isGateId(id)) {
            throw new InvalidIdentifierException("gate id \"" + printable(id == null ? "" : id)
                    + "\" is invalid: use 1-63 letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
        }
        return id;
    }

    public static boolean isGateId(String id) {
        return id != null && GATE_ID.matcher(id).matches();
    }

    public static String repoName(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidIdentifierException("repo name is empty");
        }
        if (!REPO.matcher(name).matches()) {
            throw new InvalidIdentifierException("repo name \"" + printable(name)
                    + "\" is invalid: use 1-128 letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
        }
        return name;
    }

    /** Returns the canonical (lower-case) form of a repo GUID. */
    public static String repoGuid(String guid) {
        if (guid == null || guid.isEmpty()) {
            throw new InvalidIdentifierException("repo GUID is empty");
        }
        String lower = guid.toLowerCase(Locale.ROOT);
        if (!GUID.matcher(lower).matches()) {
            throw new InvalidIdentifierException("repo GUID \"" + printable(guid)
                    + "\" is invalid: expected a UUID such as 3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43");
        }
        return lower;
    }

    public static boolean isMachine(String name) {
        return name != null && MACHINE.matcher(name).matches();
    }

    public static boolean isRepoName(String name) {
        return name != null && REPO.matcher(name).matches();
    }

    static String printable(String s) {
        StringBuilder out = new StringBuilder();
        int limit = Math.min(s.length(), 80);
        for (int i = 0; i < limit; i++) {
            char c = s.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return s.length() > limit ? out + "…" : out.toString();
    }
}
