package io.rediacc.gpu.gate.policy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A request-target read the way the daemon's Go HTTP server reads it ({@code url.ParseRequestURI}):
 * origin form or absolute form (any scheme, even without {@code //authority}), query cut at the
 * first {@code ?}, path percent-decoded once. A target Go would reject is refused with a 400.
 */
record RequestTarget(String path, String rawQuery) {

    static RequestTarget parse(String uri) {
        if (uri == null || uri.isEmpty()) {
            throw invalid(uri, "it is empty");
        }
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw invalid(uri, "it contains a control character");
            }
        }
        if (uri.equals("*")) {
            return new RequestTarget("*", "");
        }
        String scheme = "";
        String rest = uri;
        int colon = schemeEnd(uri);
        if (colon == 0) {
            throw invalid(uri, "missing protocol scheme");
        }
        if (colon > 0) {
            scheme = uri.substring(0, colon);
            rest = uri.substring(colon + 1);
        }
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        if (!rest.startsWith("/")) {
            if (!scheme.isEmpty()) {
                return new RequestTarget("", query); // opaque URI: no path, routes nowhere
            }
            throw invalid(uri, "it does not start with /");
        }
        if (!scheme.isEmpty() && rest.startsWith("//")) {
            String authorityAndPath = rest.substring(2);
            int slash = authorityAndPath.indexOf('/');
            rest = slash >= 0 ? authorityAndPath.substring(slash) : "";
        }
        return new RequestTarget(unescape(rest, false, uri), query);
    }

    /** Index of the ':' ending a scheme (Go's getScheme), -1 when there is none. */
    private static int schemeEnd(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
                continue;
            }
            if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
                if (i == 0) {
                    return -1;
                }
                continue;
            }
            if (c == ':') {
                return i;
            }
            return -1;
        }
        return -1;
    }

    /**
     * Go's percent-decoding: every {@code %XX} must be valid; in a query component {@code +} is a
     * space. Bytes are read as UTF-8 (invalid sequences become U+FFFD, which matches no route).
     */
    static String unescape(String s, boolean queryComponent, String whole) {
        if (s.indexOf('%') < 0 && !(queryComponent && s.indexOf('+') >= 0)) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            byte b = bytes[i];
            if (b == '%') {
                if (i + 2 >= bytes.length || hex(bytes[i + 1]) < 0 || hex(bytes[i + 2]) < 0) {
                    throw invalid(whole, "it has an invalid percent-escape");
                }
                out.write(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 2;
            } else if (b == '+' && queryComponent) {
                out.write(' ');
            } else {
                out.write(b);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * Every value of a query parameter, decoded; pairs are split at {@code &} and also at {@code ;}
     * (which Go refuses), so the gate sees at least every value the daemon could read.
     */
    List<String> queryValues(String name) {
        List<String> values = new ArrayList<>();
        if (rawQuery.isEmpty()) {
            return values;
        }
        for (String pair : rawQuery.split("[&;]")) {
            int eq = pair.indexOf('=');
            String key = eq >= 0 ? pair.substring(0, eq) : pair;
            String value = eq >= 0 ? pair.substring(eq + 1) : "";
            try {
                if (unescape(key, true, key).equals(name)) {
                    values.add(unescape(value, true, value));
                }
            } catch (PolicyRefusal badEscape) {
                // Go skips a pair it cannot decode (and the daemon then fails the request).
            }
        }
        return values;
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    private static PolicyRefusal invalid(String uri, String why) {
        String shown = uri == null ? "" : (uri.length() > 200 ? uri.substring(0, 200) + "…" : uri);
        return PolicyRefusal.badRequest(RefusalMessages.RULE_REQUEST_TARGET, new RefusalText(
                "request target \"" + shown.replaceAll("\\p{Cntrl}", "?") + "\" is not a valid Docker API path: " + why,
                "send an origin-form Docker API path, percent-encoded as a URL (the docker CLI and SDKs do)"));
    }
}
