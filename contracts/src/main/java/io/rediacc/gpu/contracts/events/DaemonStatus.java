package io.rediacc.gpu.contracts.events;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What a gate found when it last verified one repo's Docker daemon ({@code GET /info}): the
 * default runtime must be runc and the CDI spec directories exactly the product's. While a daemon
 * is anything but {@code ok}, the gate refuses that repo's device requests (503); other requests pass.
 *
 * @param state     {@link #OK}, {@link #MISCONFIGURED}, {@link #UNREACHABLE} or {@link #UNCHECKED}
 * @param detail    what is wrong and the daemon.json fix (misconfigured), the connection error
 *                  (unreachable); null when ok
 * @param checkedAt when the gate last asked the daemon; null before the first answer
 */
public record DaemonStatus(String repoName, String repoGuid, String state, String detail, Instant checkedAt) {

    public static final String OK = "ok";
    public static final String MISCONFIGURED = "misconfigured";
    public static final String UNREACHABLE = "unreachable";
    public static final String UNCHECKED = "unchecked";

    /** {@code ok}, or {@code misconfigured: <detail>} / {@code unreachable: <detail>} / {@code unchecked}. */
    public String line() {
        return detail == null || detail.isBlank() ? state : state + ": " + detail;
    }

    /**
     * One word or list for a table cell: {@code ok} when every daemon is verified (or the gate
     * reported none: a record from before the check existed says {@code -}), else each repo whose
     * daemon is not, with its state ({@code gpu-a misconfigured, gpu-b unreachable}).
     */
    public static String summary(List<DaemonStatus> daemons) {
        if (daemons == null || daemons.isEmpty()) {
            return "-";
        }
        List<DaemonStatus> bad = daemons.stream().filter(d -> !OK.equals(d.state())).toList();
        if (bad.isEmpty()) {
            return OK;
        }
        return bad.stream().map(d -> d.repoName() + " " + d.state()).collect(Collectors.joining(", "));
    }
}
