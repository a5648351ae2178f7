package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A service's hint in rdc's terms. The services write hints for any REST client ("DELETE its grant",
 * "GET /api/v1/repos/…/grants lists them"); at the CLI the same advice names the rdc command that does
 * it. Only the REST phrases change; the rest of the hint, and the hint in {@code -o json}, stay as the
 * service wrote them. The problem's own fields ({@code machine}, {@code holders}) supply what a
 * command needs.
 */
final class RdcHints {

    private static final Pattern REPO_GRANTS = Pattern.compile("GET /api/v1/repos/([^/\\s]+)/grants");
    private static final Pattern MACHINES_LIST = Pattern.compile(
            "\\(GET /api/v1/machines on the inventory service lists them\\)|'rdc machine list' \\(GET /api/v1/machines\\)"
                    + "|GET /api/v1/machines(?![/\\w])");
    private static final Pattern MACHINE_DETAIL = Pattern.compile("GET /api/v1/machines/([^/\\s?)]+)(?![/\\w?])");
    /**
     * A REST call in parentheses beside the rdc command that does the same ("rdc machine setup m --rekey
     * (PUT ...?rekey=true)", "rdc machine remove m --revoke-grants (DELETE /api/v1/machines/m?revokeGrants=true)"):
     * at the CLI the rdc command alone is the advice.
     */
    private static final Pattern REST_ASIDE = Pattern.compile(" \\((?:or )?(?:GET|PUT|POST|DELETE|PATCH) (?:/|\\.\\.\\.)[^)]*\\)");
    private static final String DELETE_ITS_GRANT = "(DELETE its grant)";

    private RdcHints() {
    }

    /** The hint with its REST phrases replaced by rdc commands; null stays null. */
    static String of(String hint, JsonNode problem) {
        if (hint == null) {
            return null;
        }
        String out = REPO_GRANTS.matcher(hint).replaceAll(m -> Matcher.quoteReplacement("rdc repo gpu list " + m.group(1)));
        out = MACHINE_DETAIL.matcher(out).replaceAll(m -> Matcher.quoteReplacement("rdc machine gpu list " + m.group(1)));
        out = MACHINES_LIST.matcher(out).replaceAll(m -> m.group().startsWith("(") ? "(rdc machine list lists them)" : "rdc machine list");
        out = REST_ASIDE.matcher(out).replaceAll("");
        if (out.contains(DELETE_ITS_GRANT)) {
            String machine = problem == null ? null : text(problem.get("machine"));
            JsonNode holder = problem == null ? null : problem.path("holders").path(0);
            String repo = holder == null ? null : text(holder.get("repo"));
            String device = holder == null ? null : text(holder.get("device"));
            out = out.replace(DELETE_ITS_GRANT, machine != null && repo != null && device != null
                    ? "(rdc repo gpu revoke " + repo + "@" + machine + " --device " + device + ")"
                    : "(rdc repo gpu revoke)");
        }
        return out;
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() || !node.isValueNode() ? null : node.asText();
    }
}
