package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonBool;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNull;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNumber;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads inspected fields with the Go types the daemon decodes them into. Go leaves a field
 * untouched for JSON {@code null} (so it keeps its zero value) and fails the whole request on a
 * type mismatch; the gate mirrors the first and refuses the second with a 400, so it never judges
 * a value the daemon would have read differently. An absent value ({@code null} argument) reads as
 * the zero value.
 */
final class GoJsonTypes {

    private GoJsonTypes() {
    }

    /** A Go {@code bool}. */
    static boolean bool(JsonValue v, String path) {
        if (v == null || v instanceof JsonNull) {
            return false;
        }
        if (v instanceof JsonBool b) {
            return b.value();
        }
        throw typeError(path, "true or false", v);
    }

    /** A Go {@code string}. */
    static String string(JsonValue v, String path) {
        if (v == null || v instanceof JsonNull) {
            return "";
        }
        if (v instanceof JsonString s) {
            return s.value();
        }
        throw typeError(path, "a string", v);
    }

    /**
     * A Go {@code int} (64-bit): only an integer literal fits ({@code 1.0} and {@code 1e0} fail in
     * {@code strconv.ParseInt}, as in the daemon).
     */
    static long integer(JsonValue v, String path) {
        if (v == null || v instanceof JsonNull) {
            return 0;
        }
        if (v instanceof JsonNumber n) {
            String t = n.text();
            boolean integral = t.indexOf('.') < 0 && t.indexOf('e') < 0 && t.indexOf('E') < 0;
            if (integral) {
                try {
                    return Long.parseLong(t);
                } catch (NumberFormatException overflow) {
                    throw typeError(path, "an integer that fits in 64 bits", v);
                }
            }
            throw typeError(path, "an integer (Go does not accept " + t + " for an int field)", v);
        }
        throw typeError(path, "an integer", v);
    }

    /** A Go struct or struct pointer; null when absent or JSON null. */
    static JsonObject object(JsonValue v, String path) {
        if (v == null || v instanceof JsonNull) {
            return null;
        }
        if (v instanceof JsonObject o) {
            return o;
        }
        throw typeError(path, "an object", v);
    }

    /** A Go slice; empty when absent or JSON null. */
    static List<JsonValue> array(JsonValue v, String path) {
        if (v == null || v instanceof JsonNull) {
            return List.of();
        }
        if (v instanceof JsonArray a) {
            return a.elements();
        }
        throw typeError(path, "an array", v);
    }

    /** True when a slice or map field would be non-nil in Go (present and not JSON null). */
    static boolean present(JsonValue v) {
        return v != null && !(v instanceof JsonNull);
    }

    /** A Go {@code []string}; a JSON null element decodes to "". */
    static List<String> strings(JsonValue v, String path) {
        List<JsonValue> elements = array(v, path);
        List<String> out = new ArrayList<>(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            out.add(string(elements.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    /** A Go {@code map[string]string}; keys as sent (map keys are matched exactly, not folded). */
    static Map<String, String> stringMap(JsonValue v, String path) {
        JsonObject o = object(v, path);
        Map<String, String> out = new LinkedHashMap<>();
        if (o != null) {
            for (JsonValue.Member m : o.members()) {
                out.put(m.key(), string(m.value(), path + "." + m.key()));
            }
        }
        return out;
    }

    private static PolicyRefusal typeError(String path, String expected, JsonValue got) {
        return PolicyRefusal.badRequest(RefusalMessages.RULE_FIELD_TYPE, new RefusalText(
                path + " must be " + expected + ", got " + got.describe()
                        + "; the daemon would reject this body, so the gate does not judge it", "send " + path + " as " + expected));
    }
}
