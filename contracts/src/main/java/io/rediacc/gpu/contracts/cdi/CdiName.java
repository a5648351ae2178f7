package io.rediacc.gpu.contracts.cdi;

import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException.Part;

/**
 * A qualified Container Device Interface device name, {@code vendor/class=device}, validated with
 * the CDI specification's own grammar (the same rules as {@code pkg/parser} of the reference
 * implementation). Every component downstream takes this type, never a raw string; comparison is
 * exact and case-sensitive, because the container runtime resolves names that way.
 */
public record CdiName(String vendor, String deviceClass, String device) implements Comparable<CdiName> {

    /** Longest name accepted; real names are far shorter, and a bound keeps hostile input cheap. */
    public static final int MAX_LENGTH = 512;

    public CdiName {
        validateVendor(vendor, null);
        validateClass(deviceClass, null);
        validateDevice(device, null);
    }

    /** Parses {@code vendor/class=device}: split at the first {@code =}, then at the first {@code /}. */
    public static CdiName parse(String qualified) {
        if (qualified == null || qualified.isEmpty()) {
            throw new InvalidCdiNameException(Part.NAME, qualified,
                    "device name is empty; expected vendor/class=device, e.g. nvidia.com/gpu=0");
        }
        if (qualified.length() > MAX_LENGTH) {
            throw new InvalidCdiNameException(Part.NAME, abbreviate(qualified),
                    "device name is " + qualified.length() + " characters long; at most " + MAX_LENGTH + " are allowed");
        }
        if (qualified.startsWith("/")) {
            throw new InvalidCdiNameException(Part.NAME, qualified, "\"" + qualified
                    + "\" is a path, not a CDI device name; name the device as vendor/class=device, e.g. rediacc.io/dri=renderD128");
        }
        int eq = qualified.indexOf('=');
        if (eq < 0) {
            throw new InvalidCdiNameException(Part.NAME, qualified, "\"" + qualified
                    + "\" is not a qualified CDI device name: missing \"=\"; expected vendor/class=device, e.g. nvidia.com/gpu=0");
        }
        String kind = qualified.substring(0, eq);
        String device = qualified.substring(eq + 1);
        int slash = kind.indexOf('/');
        if (slash < 0) {
            throw new InvalidCdiNameException(Part.NAME, qualified, "\"" + qualified
                    + "\" is not a qualified CDI device name: missing \"/\" between vendor and class; expected vendor/class=device, e.g. nvidia.com/gpu=0");
        }
        String vendor = kind.substring(0, slash);
        String deviceClass = kind.substring(slash + 1);
        validateVendor(vendor, qualified);
        validateClass(deviceClass, qualified);
        validateDevice(device, qualified);
        return new CdiName(vendor, deviceClass, device);
    }

    /** True when {@code candidate} parses as a qualified CDI name. */
    public static boolean isValid(String candidate) {
        try {
            parse(candidate);
            return true;
        } catch (InvalidCdiNameException e) {
            return false;
        }
    }

    /** {@code vendor/class}, the spec's {@code kind}. */
    public String kind() {
        return vendor + "/" + deviceClass;
    }

    /** The qualified form, {@code vendor/class=device}. */
    public String qualified() {
        return kind() + "=" + device;
    }

    @Override
    public String toString() {
        return qualified();
    }

    @Override
    public int compareTo(CdiName other) {
        return qualified().compareTo(other.qualified());
    }

    /** Validates a spec's {@code kind} ({@code vendor/class}) on its own. */
    public static void validateKind(String kind) {
        if (kind == null || kind.indexOf('/') < 0) {
            throw new InvalidCdiNameException(Part.NAME, kind,
                    "kind \"" + kind + "\" must be vendor/class, e.g. nvidia.com/gpu");
        }
        int slash = kind.indexOf('/');
        validateVendor(kind.substring(0, slash), kind);
        validateClass(kind.substring(slash + 1), kind);
    }

    static void validateVendor(String vendor, String input) {
        checkName(Part.VENDOR, "vendor", vendor, input, false);
    }

    static void validateClass(String deviceClass, String input) {
        checkName(Part.CLASS, "class", deviceClass, input, false);
    }

    /** Validates an unqualified device name as a spec file's {@code devices[].name} must be. */
    public static void validateDevice(String device, String input) {
        checkName(Part.DEVICE, "device", device, input, true);
    }

    // vendor and class: letters, digits, '_', '.', '-'; start with a letter, end with a letter or digit.
    // device: letters, digits, '_', '.', ':', '-'; start and end with a letter or digit.
    private static void checkName(Part part, String label, String value, String input, boolean device) {
        String whole = input == null ? value : input;
        if (value == null || value.isEmpty()) {
            throw new InvalidCdiNameException(part, whole, label + " is empty in \"" + whole + "\"; expected vendor/class=device, e.g. nvidia.com/gpu=0");
        }
        char first = value.charAt(0);
        if (device ? !isAlphaNumeric(first) : !isLetter(first)) {
            throw new InvalidCdiNameException(part, whole, label + " \"" + value + "\" must start with "
                    + (device ? "a letter or digit" : "a letter"));
        }
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = isAlphaNumeric(c) || c == '_' || c == '.' || c == '-' || (device && c == ':');
            if (!ok) {
                throw new InvalidCdiNameException(part, whole, label + " \"" + value + "\" contains invalid character "
                        + describe(c) + " at position " + (i + 1) + "; allowed are letters, digits, '_', '.', '-'"
                        + (device ? ", ':'" : ""));
            }
        }
        char last = value.charAt(value.length() - 1);
        if (!isAlphaNumeric(last)) {
            throw new InvalidCdiNameException(part, whole, label + " \"" + value + "\" must end with a letter or digit");
        }
    }

    private static boolean isLetter(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static boolean isAlphaNumeric(char c) {
        return isLetter(c) || (c >= '0' && c <= '9');
    }

    private static String describe(char c) {
        if (c >= 0x20 && c < 0x7f) {
            return "'" + c + "'";
        }
        return String.format("U+%04X", (int) c);
    }

    private static String abbreviate(String s) {
        return s.substring(0, 40) + "…";
    }
}
