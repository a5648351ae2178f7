package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonBool;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNumber;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;
import io.rediacc.gpu.gate.policy.JsonValue.Member;
import java.nio.charset.StandardCharsets;

/**
 * Writes a {@link JsonValue} back as JSON that Go reads to the same values: numbers as written,
 * keys and strings decoded and escaped again with every character outside printable ASCII as a
 * {@code \\u} escape (a lone surrogate stays the escape it was, which Go reads as U+FFFD, as it
 * read the original).
 */
final class JsonWriter {

    private JsonWriter() {
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    /** The output is printable ASCII only, so it is built as bytes directly (no StringBuilder, no second copy). */
    static byte[] write(JsonValue value) {
        Out out = new Out();
        write(value, out);
        return java.util.Arrays.copyOf(out.bytes, out.size);
    }

    /** A growing byte buffer. */
    private static final class Out {
        byte[] bytes = new byte[4096];
        int size;

        void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }

        void put(char c) {
            ensure(1);
            bytes[size++] = (byte) c;
        }

        void put(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, bytes, size, b.length);
            size += b.length;
        }

        void ascii(String s) {
            ensure(s.length());
            for (int i = 0; i < s.length(); i++) {
                bytes[size++] = (byte) s.charAt(i); // ASCII only: a number's text, as read
            }
        }
    }

    private static void write(JsonValue value, Out out) {
        if (value instanceof JsonObject o) {
            out.put('{');
            boolean first = true;
            for (Member m : o.members()) {
                if (!first) {
                    out.put(',');
                }
                first = false;
                string(m.key(), out);
                out.put(':');
                write(m.value(), out);
            }
            out.put('}');
        } else if (value instanceof JsonArray a) {
            out.put('[');
            for (int i = 0; i < a.elements().size(); i++) {
                if (i > 0) {
                    out.put(',');
                }
                write(a.elements().get(i), out);
            }
            out.put(']');
        } else if (value instanceof JsonString s) {
            string(s.value(), out);
        } else if (value instanceof JsonNumber n) {
            out.ascii(n.text());
        } else if (value instanceof JsonBool b) {
            out.put(b.value() ? TRUE : FALSE);
        } else {
            out.put(NULL);
        }
    }

    private static void string(String s, Out out) {
        int n = s.length();
        out.ensure(n + 2); // room for the usual case, a string with nothing to escape
        byte[] b = out.bytes;
        int at = out.size;
        b[at++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                b[at++] = (byte) c;
                continue;
            }
            out.size = at;
            out.ensure(6 + (n - i) + 1);
            b = out.bytes;
            if (c == '"' || c == '\\') {
                b[at++] = '\\';
                b[at++] = (byte) c;
            } else {
                b[at++] = '\\';
                b[at++] = 'u';
                b[at++] = HEX[(c >> 12) & 0xf];
                b[at++] = HEX[(c >> 8) & 0xf];
                b[at++] = HEX[(c >> 4) & 0xf];
                b[at++] = HEX[c & 0xf];
            }
        }
        b[at++] = '"';
        out.size = at;
    }
}
