package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonBool;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNull;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNumber;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;
import io.rediacc.gpu.gate.policy.JsonValue.Member;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A strict JSON reader that sees a body the way the Docker daemon (Go's {@code encoding/json})
 * will, and refuses whatever it cannot read exactly: invalid UTF-8, comments, NaN, single quotes,
 * trailing content, control characters in strings, numbers outside JSON's grammar. Keys are
 * decoded (&#92;u escapes count) before they are compared. Go would let a later duplicate key
 * overwrite an earlier one and merge duplicate objects; the gate refuses instead, so it never
 * has to guess which value the daemon keeps.
 */
final class GoJsonReader {

    /** How keys of one object may repeat. */
    enum Duplicates {
        /** No two keys may fold to the same name (request bodies: a client controls every byte). */
        REFUSE_FOLDED,
        /** No two identical keys; folded twins are refused only when a rule looks the field up (daemon output). */
        REFUSE_EXACT
    }

    /** Deeper than any Docker API body; Go allows 10000, refusing earlier only fails closed. */
    static final int MAX_DEPTH = 256;

    private static final JsonBool TRUE = new JsonBool(true);
    private static final JsonBool FALSE = new JsonBool(false);

    private final byte[] in;
    private final Duplicates duplicates;
    private int pos;
    /**
     * Where the reader is, for messages only: the key (or, when null, the index in {@link #indexes})
     * at each depth. Rendered by {@link #path(int)} when a message needs it, so a body that reads
     * cleanly builds no path strings at all.
     */
    private String[] keys = new String[16];
    private int[] indexes = new int[16];
    /** Reused for the rare string that holds an escape; strings without one are copied in one go. */
    private StringBuilder escaped;
    /** {@link GoJsonFolding#foldedHash} of the key {@link #key} read last. */
    private int keyHash;

    private GoJsonReader(byte[] in, Duplicates duplicates) {
        this.in = in;
        this.duplicates = duplicates;
    }

    /** Reads one complete JSON document; throws a 400 {@link PolicyRefusal} saying what is wrong and where. */
    static JsonValue read(byte[] body, Duplicates duplicates) {
        GoJsonReader reader = new GoJsonReader(body, duplicates);
        reader.skipWhitespace();
        if (reader.pos >= body.length) {
            throw reader.error("the body is empty");
        }
        JsonValue value = reader.value(0);
        reader.skipWhitespace();
        if (reader.pos < body.length) {
            throw reader.error("unexpected content after the JSON value");
        }
        return value;
    }

    /**
     * The path of the value at {@code depth} as messages name it: {@code body}, then {@code key},
     * {@code key.inner}, {@code key[2]} (a key directly under the body is named alone).
     */
    private String path(int depth) {
        String path = "body";
        for (int d = 0; d < depth; d++) {
            path = keys[d] == null ? path + "[" + indexes[d] + "]"
                    : path.equals("body") ? keys[d] : path + "." + keys[d];
        }
        return path;
    }

    private JsonValue value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH + " levels");
        }
        if (depth >= keys.length) {
            keys = Arrays.copyOf(keys, keys.length * 2);
            indexes = Arrays.copyOf(indexes, indexes.length * 2);
        }
        if (pos >= in.length) {
            throw error("the body ends in the middle of a value");
        }
        byte b = in[pos];
        return switch (b) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> new JsonString(string());
            case 't' -> literal("true", TRUE);
            case 'f' -> literal("false", FALSE);
            case 'n' -> literal("null", JsonNull.INSTANCE);
            default -> {
                if (b == '-' || (b >= '0' && b <= '9')) {
                    yield number();
                }
                throw error("unexpected " + describeByte(b) + " where a value should start");
            }
        };
    }

    private JsonObject object(int depth) {
        JsonObject object = new JsonObject();
        pos++; // '{'
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return object;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("expected a quoted object key in " + path(depth));
            }
            int keyStart = pos;
            String key = key();
            int hash = keyHash; // before the value, whose own keys set it again
            skipWhitespace();
            if (peek() != ':') {
                throw error("expected ':' after key \"" + key + "\" in " + path(depth));
            }
            pos++;
            skipWhitespace();
            keys[depth] = key;
            JsonValue value = value(depth + 1);
            List<Member> earlier = object.add(new Member(key, value), hash);
            for (Member twin : earlier) {
                if (duplicates == Duplicates.REFUSE_FOLDED || twin.key().equals(key)) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_DUPLICATE_KEY,
                            RefusalMessages.duplicateKey(path(depth), twin.key(), key).appended(" (byte " + keyStart + ")"));
                }
            }
            skipWhitespace();
            byte next = peek();
            if (next == ',') {
                pos++;
            } else if (next == '}') {
                pos++;
                return object;
            } else {
                throw error("expected ',' or '}' in " + path(depth));
            }
        }
    }

    private JsonArray array(int depth) {
        List<JsonValue> elements = new ArrayList<>();
        pos++; // '['
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return new JsonArray(List.of());
        }
        keys[depth] = null;
        while (true) {
            skipWhitespace();
            indexes[depth] = elements.size();
            elements.add(value(depth + 1));
            skipWhitespace();
            byte next = peek();
            if (next == ',') {
                pos++;
            } else if (next == ']') {
                pos++;
                return new JsonArray(Collections.unmodifiableList(elements));
            } else {
                throw error("expected ',' or ']' in " + path(depth));
            }
        }
    }

    private JsonValue literal(String word, JsonValue value) {
        for (int i = 0; i < word.length(); i++) {
            if (pos + i >= in.length || in[pos + i] != word.charAt(i)) {
                throw error("invalid literal (only true, false and null are JSON literals)");
            }
        }
        pos += word.length();
        return value;
    }

    // JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    private JsonNumber number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            while (isDigit(peek())) {
                pos++;
            }
        } else {
            throw error("invalid number");
        }
        if (peek() == '.') {
            pos++;
            if (!isDigit(peek())) {
                throw error("invalid number: digits must follow '.'");
            }
            while (isDigit(peek())) {
                pos++;
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!isDigit(peek())) {
                throw error("invalid number: digits must follow the exponent");
            }
            while (isDigit(peek())) {
                pos++;
            }
        }
        return new JsonNumber(new String(in, start, pos - start, StandardCharsets.ISO_8859_1));
    }

    /**
     * An object key, read as {@link #string} reads it, with its folded hash ({@link #keyHash}) computed in the
     * same pass when it is plain ASCII (nearly every key): hashing each key again to index it was a tenth of a
     * create's CPU (issue 34). Anything else is read by {@link #string} from the opening quote and hashed after.
     */
    private String key() {
        int start = pos + 1;
        int hash = 0;
        for (int p = start; p < in.length; p++) {
            int b = in[p];
            if (b == '"') {
                pos = p + 1;
                keyHash = hash;
                return new String(in, start, p - start, StandardCharsets.ISO_8859_1);
            }
            if (b < 0x20 || b == '\\') {
                break; // negative too: a byte of a UTF-8 sequence
            }
            hash = 31 * hash + (b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b);
        }
        String key = string();
        keyHash = GoJsonFolding.foldedHash(key);
        return key;
    }

    /**
     * A string without escapes (nearly all of them) is validated byte by byte and then decoded from
     * its byte range in one copy; the first backslash hands over to {@link #escapedString}.
     */
    private String string() {
        int start = ++pos; // after the opening quote
        boolean ascii = true;
        while (true) {
            if (pos >= in.length) {
                throw error("unterminated string");
            }
            int b = in[pos] & 0xff;
            if (b == '"') {
                // Every byte was checked: ASCII is Latin-1, and strict UTF-8 decodes to exactly the code points read.
                String s = new String(in, start, pos - start, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
                pos++;
                return s;
            }
            if (b == '\\') {
                return escapedString(start, ascii);
            }
            if (b < 0x20) {
                throw error("control character " + describeByte((byte) b) + " inside a string (escape it)");
            }
            if (b < 0x80) {
                pos++;
            } else {
                utf8();
                ascii = false;
            }
        }
    }

    /** The rest of a string from its first escape at {@code pos}; {@code start..pos} was already validated. */
    private String escapedString(int start, boolean ascii) {
        StringBuilder out = escaped == null ? (escaped = new StringBuilder(64)) : escaped;
        out.setLength(0);
        out.append(new String(in, start, pos - start, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
        while (true) {
            if (pos >= in.length) {
                throw error("unterminated string");
            }
            int b = in[pos] & 0xff;
            if (b == '"') {
                pos++;
                return out.toString();
            }
            if (b == '\\') {
                escape(out);
            } else if (b < 0x20) {
                throw error("control character " + describeByte((byte) b) + " inside a string (escape it)");
            } else if (b < 0x80) {
                out.append((char) b);
                pos++;
            } else {
                out.appendCodePoint(utf8());
            }
        }
    }

    private void escape(StringBuilder out) {
        pos++; // backslash
        if (pos >= in.length) {
            throw error("unterminated escape");
        }
        byte e = in[pos++];
        switch (e) {
            case '"' -> out.append('"');
            case '\\' -> out.append('\\');
            case '/' -> out.append('/');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'u' -> {
                int unit = hex4();
                if (Character.isHighSurrogate((char) unit)) {
                    // Go pairs a high surrogate only with an immediately following \\u low surrogate;
                    // anything else decodes to U+FFFD, exactly like a lone low surrogate.
                    if (pos + 1 < in.length && in[pos] == '\\' && in[pos + 1] == 'u') {
                        int save = pos;
                        pos += 2;
                        int low = hex4();
                        if (Character.isLowSurrogate((char) low)) {
                            out.appendCodePoint(Character.toCodePoint((char) unit, (char) low));
                            return;
                        }
                        pos = save;
                    }
                    out.append('\uFFFD');
                } else if (Character.isLowSurrogate((char) unit)) {
                    out.append('\uFFFD');
                } else {
                    out.append((char) unit);
                }
            }
            default -> {
                pos--;
                throw error("invalid escape \\" + (char) (e & 0x7f) + " inside a string");
            }
        }
    }

    private int hex4() {
        if (pos + 4 > in.length) {
            throw error("truncated \\u escape");
        }
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(in[pos + i], 16);
            if (d < 0 || in[pos + i] > 'f') {
                throw error("invalid \\u escape");
            }
            value = value * 16 + d;
        }
        pos += 4;
        return value;
    }

    // Strict UTF-8: no overlong forms, no encoded surrogates, nothing above U+10FFFF.
    private int utf8() {
        int b0 = in[pos] & 0xff;
        int need;
        int min;
        int cp;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            need = 1;
            cp = b0 & 0x1f;
            min = 0x80;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            need = 2;
            cp = b0 & 0x0f;
            min = 0x800;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            need = 3;
            cp = b0 & 0x07;
            min = 0x10000;
        } else {
            throw error("invalid UTF-8");
        }
        if (pos + need >= in.length) {
            throw error("invalid UTF-8 (truncated sequence)");
        }
        for (int i = 1; i <= need; i++) {
            int b = in[pos + i] & 0xff;
            if ((b & 0xC0) != 0x80) {
                throw error("invalid UTF-8");
            }
            cp = (cp << 6) | (b & 0x3f);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            throw error("invalid UTF-8");
        }
        pos += need + 1;
        return cp;
    }

    private void skipWhitespace() {
        while (pos < in.length) {
            byte b = in[pos];
            if (b == ' ' || b == '\t' || b == '\n' || b == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private byte peek() {
        return pos < in.length ? in[pos] : 0;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static String describeByte(byte b) {
        int v = b & 0xff;
        if (v >= 0x21 && v < 0x7f) {
            return "'" + (char) v + "'";
        }
        return String.format("byte 0x%02X", v);
    }

    private PolicyRefusal error(String what) {
        return PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE, RefusalMessages.unreadableBody(what, pos));
    }
}
