package io.rediacc.gpu.gate.policy;

/** Go's {@code path.Clean}, ported line for line: the lexical form the daemon and mount(2) end up using. */
final class GoPath {

    private GoPath() {
    }

    static String clean(String path) {
        if (path.isEmpty()) {
            return ".";
        }
        boolean rooted = path.charAt(0) == '/';
        int n = path.length();
        StringBuilder out = new StringBuilder(n);
        int r = 0;
        int dotdot = 0;
        if (rooted) {
            out.append('/');
            r = 1;
            dotdot = 1;
        }
        while (r < n) {
            char c = path.charAt(r);
            if (c == '/') {
                r++;
            } else if (c == '.' && (r + 1 == n || path.charAt(r + 1) == '/')) {
                r++;
            } else if (c == '.' && path.charAt(r + 1) == '.' && (r + 2 == n || path.charAt(r + 2) == '/')) {
                r += 2;
                if (out.length() > dotdot) {
                    int w = out.length() - 1;
                    while (w > dotdot && out.charAt(w) != '/') {
                        w--;
                    }
                    out.setLength(w);
                } else if (!rooted) {
                    if (out.length() > 0) {
                        out.append('/');
                    }
                    out.append("..");
                    dotdot = out.length();
                }
            } else {
                if ((rooted && out.length() != 1) || (!rooted && out.length() != 0)) {
                    out.append('/');
                }
                while (r < n && path.charAt(r) != '/') {
                    out.append(path.charAt(r));
                    r++;
                }
            }
        }
        if (out.length() == 0) {
            return ".";
        }
        return out.toString();
    }
}
