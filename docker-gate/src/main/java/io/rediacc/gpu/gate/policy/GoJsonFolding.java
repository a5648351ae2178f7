package io.rediacc.gpu.gate.policy;

import java.nio.charset.StandardCharsets;

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
        // Keys are nearly always ASCII, where folding is plain upper-casing; one pass decides.
        int n = key.length();
        int firstLower = -1;
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c >= 0x80) {
                return foldUnicode(key);
            }
            if (firstLower < 0 && c >= 'a' && c <= 'z') {
                firstLower = i;
            }
        }
        if (firstLower < 0) {
            return key;
        }
        byte[] upper = new byte[n];
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            upper[i] = (byte) (c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c);
        }
        return new String(upper, StandardCharsets.ISO_8859_1);
    }

    /**
     * {@code fold(key).hashCode()}, without the folded copy for an ASCII key (String's hash of the
     * upper-cased characters, computed in place).
     */
    static int foldedHash(String key) {
        int h = 0;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c >= 0x80) {
                return fold(key).hashCode();
            }
            h = 31 * h + (c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c);
        }
        return h;
    }

    private static String foldUnicode(String key) {
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
        // Folding maps each code point to one code point, so while both keys are ASCII the first
        // differing folded character decides; anything non-ASCII takes the full fold.
        if (a.length() == b.length()) {
            int i = 0;
            for (; i < a.length(); i++) {
                char x = a.charAt(i);
                char y = b.charAt(i);
                if ((x | y) >= 0x80) {
                    break;
                }
                if (x != y && upperAscii(x) != upperAscii(y)) {
                    return false;
                }
            }
            if (i == a.length()) {
                return true;
            }
        } else if (isAscii(a) && isAscii(b)) {
            return false;
        }
        return fold(a).equals(fold(b));
    }

    private static char upperAscii(char c) {
        return c >= 'a' && c <= 'z' ? (char) (c - ('a' - 'A')) : c;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Go's {@code strings.ToUpper}: simple per-rune upper-casing (no {@code ß → SS} expansion). */
    static String goToUpper(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> out.appendCodePoint(Character.toUpperCase(cp)));
        return out.toString();
    }
}
