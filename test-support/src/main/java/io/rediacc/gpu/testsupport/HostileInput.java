package io.rediacc.gpu.testsupport;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Seeded generator of hostile request parts for REST fuzzing: path segments and query values
 * (already URL-encoded), and JSON bodies that are malformed, of the wrong types, full of unicode
 * and injection strings, deeply nested or huge. Same seed, same sequence: a failure replays.
 */
public final class HostileInput {

    /** Strings that have broken services before: injections, traversal, CRLF, format strings, odd unicode. */
    public static final List<String> NASTY = List.of(
            "", " ", "'", "\"", "' OR '1'='1", "'; DROP TABLE grants;--", "1; SELECT pg_sleep(10)", "\\", "\\\\'",
            "../../../../etc/passwd", "..", ".", "%2e%2e%2f", "..%2f..%2f", "/", "//", "a/b", "a\\b", "a@b@c", "@", "a@",
            "line\r\nX-Injected: yes", "\r\n\r\n", "\u0000", "nul\u0000byte", "${jndi:ldap://x/a}", "#{7*7}", "{{7*7}}",
            "%s%s%s%n", "%00", "<script>alert(1)</script>", "nvidia.com/gpu=0", "nvidia.com/gpu=all", "nvidia.com/gpu=",
            "=", "nvidia.com/=0", "ſ", "\u212a", "\u0130", "ı", "Ｎvidia.com/gpu=０", "\u202etxt.exe", "\u200b",
            "\ud83d\ude80", "\ufeff", "\uffff", "\u00e9t\u00e9", "漢字", "-1", "0", "9223372036854775808", "1e309", "NaN",
            "true", "null", "[]", "{}", "x".repeat(300), "y".repeat(5000));

    private static final List<String> JSON_VALUES = List.of(
            "null", "true", "false", "0", "-0", "1.5e308", "1e99999", "-1", "9223372036854775808", "[]", "{}", "[1,2]",
            "{\"a\":1}", "\"\"", "\"nvidia.com/gpu=0\"", "[\"nvidia.com/gpu=0\"]", "{\"device\":\"nvidia.com/gpu=0\"}");

    private static final String JSONISH = "{}[]\":,\\ ntrue0-.e";

    private final Random random;

    public HostileInput(long seed) {
        this.random = new Random(seed);
    }

    public Random random() {
        return random;
    }

    public <T> T pick(List<T> items) {
        return items.get(random.nextInt(items.size()));
    }

    /** A hostile string, sometimes glued to a valid-looking one. */
    public String string() {
        String s = pick(NASTY);
        return switch (random.nextInt(4)) {
            case 0 -> "train" + s;
            case 1 -> s + "@m1";
            default -> s;
        };
    }

    /** A path segment, URL-encoded (so it stays one segment), or one of the classic pre-encoded tricks. */
    public String segment() {
        if (random.nextInt(6) == 0) {
            return pick(List.of("%2e%2e", "%2E%2E%2F%2E%2E", "..%2F", "%00", "%0d%0aX:1", "%252F", "%C0%AE%C0%AE", "%ff%fe",
                    "a%2Fb", "nvidia.com%2Fgpu%3D0", ";jsessionid=1", "a;b=c", "%3Bx", "~", "*", "%20"));
        }
        return encode(string());
    }

    /** A query value, URL-encoded. */
    public String queryValue() {
        return encode(random.nextInt(4) == 0 ? pick(List.of("5s", "0", "-1s", "1d", "99999999999s", "PT5S", "1e3", "0x10",
                "500", "abc", "", "1.5", "2147483648")) : string());
    }

    /** A request body: malformed, mistyped, unicode, injection, nested or truncated JSON. */
    public String body() {
        return switch (random.nextInt(9)) {
            case 0 -> "{\"device\":" + jsonString(string()) + ",\"exclusive\":" + pick(JSON_VALUES) + "}";
            case 1 -> "{\"device\":" + pick(JSON_VALUES) + "}";
            case 2 -> "{\"device\":\"nvidia.com/gpu=0\",\"machine\":" + (random.nextBoolean() ? pick(JSON_VALUES) : jsonString(string())) + "}";
            case 3 -> "{" + jsonString(string()) + ":" + pick(JSON_VALUES) + "}";
            case 4 -> truncate("{\"device\":\"nvidia.com/gpu=0\",\"exclusive\":true,\"machine\":\"m1\"}");
            case 5 -> pick(List.of("", "null", "[]", "\"x\"", "1", "{", "}", "{{}}", "{\"device\"}", "{'device':'x'}",
                    "{\"device\":\"a\",}", "{\"device\":\"a\"}{}", "\u0000", "{\"device\":\"\\ud800\"}", "{\"device\":\"\\u0000\"}",
                    "{\"device\":NaN}", "/* c */{}", "\ufeff{}", "{\"device\":\"nvidia.com/gpu=0\",\"device\":\"nvidia.com/gpu=1\"}"));
            case 6 -> "[".repeat(2000 + random.nextInt(20000)) + "]".repeat(random.nextInt(3));
            case 7 -> "{\"device\":\"nvidia.com/gpu=0\",\"exclusive\":" + pick(JSON_VALUES) + ",\"extra\":" + pick(JSON_VALUES) + "}";
            default -> randomText();
        };
    }

    /** A JSON document of about {@code bytes} bytes: one string member. */
    public static byte[] huge(int bytes) {
        StringBuilder b = new StringBuilder(bytes + 32).append("{\"device\":\"");
        while (b.length() < bytes) {
            b.append("nvidia.com/gpu=0");
        }
        return b.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private String truncate(String s) {
        return s.substring(0, random.nextInt(s.length()));
    }

    private String randomText() {
        StringBuilder b = new StringBuilder();
        int n = random.nextInt(200);
        for (int i = 0; i < n; i++) {
            b.append(random.nextInt(4) == 0 ? (char) random.nextInt(0x3000) : JSONISH.charAt(random.nextInt(JSONISH.length())));
        }
        return b.toString();
    }

    private static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
