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

    static byte[] write(JsonValue value) {
        StringBuilder out = new StringBuilder(256);
        write(value, out);
        return out.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static void write(JsonValue value, StringBuilder out) {
        if (value instanceof JsonObject o) {
            out.append('{');
            boolean first = true;
            for (Member m : o.members()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(m.key(), out);
                out.append(':');
                write(m.value(), out);
            }
            out.append('}');
        } else if (value instanceof JsonArray a) {
            out.append('[');
            for (int i = 0; i < a.elements().size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(a.elements().get(i), out);
            }
            out.append(']');
        } else if (value instanceof JsonString s) {
            string(s.value(), out);
        } else if (value instanceof JsonNumber n) {
            out.append(n.text());
        } else if (value instanceof JsonBool b) {
            out.append(b.value());
        } else {
            out.append("null");
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        out.append('"');
    }
}
