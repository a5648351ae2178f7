package io.rediacc.gpu.gate.policy;

/**
 * How Go's {@code encoding/json} compares object keys with struct field names: an exact match, or
 * else equal after folding every rune to {@code unicode.ToUpper(unicode.ToLower(r))} (Go 1.21+;
 * older Go's {@code bytes.EqualFold} folds a subset of these pairs). So {@code "ſ"} (U+017F) matches
 * {@code s}, the Kelvin sign (U+212A) matches {@code k}, and {@code "pRiViLeGeD"} is {@code Privileged}.
 * Java's {@link Character} simple case mappings are the same Unicode tables Go uses.
 */
final class GoJsonFolding {

    private GoJsonFolding() {
    }

    /** The folded form: two keys reach the same struct field exactly when their folded forms are equal. */
    static String fold(String key) {
        StringBuilder out = null;
        for (int i = 0; i < key.length(); ) {
            int cp = key.codePointAt(i);
            int folded = Character.toUpperCase(Character.toLowerCase(cp));
            if (folded != cp && out == null) {
                out = new StringBuilder(key.length());
                out.append(key, 0, i);
            }
            if (out != null) {
                out.appendCodePoint(folded);
            }
            i += Character.charCount(cp);
        }
        return out == null ? key : out.toString();
    }

    /** True when Go would decode a key spelled {@code a} into a field named {@code b}. */
    static boolean equalFold(String a, String b) {
        return fold(a).equals(fold(b));
    }

    /** Go's {@code strings.ToUpper}: simple per-rune upper-casing (no {@code ß → SS} expansion). */
    static String goToUpper(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> out.appendCodePoint(Character.toUpperCase(cp)));
        return out.toString();
    }
}
