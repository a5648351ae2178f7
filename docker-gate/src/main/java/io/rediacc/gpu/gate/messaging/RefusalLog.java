package io.rediacc.gpu.gate.messaging;

import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.gate.metrics.GateMetrics;
import io.rediacc.gpu.gate.policy.Refusal;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.RequestHead;
import io.rediacc.gpu.gate.proxy.RefusalRecorder;
import org.jboss.logging.Logger;

import java.time.Instant;

/** Records every refusal: a log line, a metric, and (rate-limited) a decision event. */
public final class RefusalLog implements RefusalRecorder {

    private static final Logger LOG = Logger.getLogger(RefusalLog.class);
    private static final int MAX_ENDPOINT = 512;

    private final String gateId;
    private final GateMetrics metrics;
    private final DecisionPublisher decisions;

    public RefusalLog(String gateId, GateMetrics metrics, DecisionPublisher decisions) {
        this.gateId = gateId;
        this.metrics = metrics;
        this.decisions = decisions;
    }

    @Override
    public void refused(RepoIdentity repo, RequestHead head, Refusal refusal) {
        String endpoint = endpoint(head.uri());
        LOG.infof("refused %s %s for repo %s: %s (%d %s)", head.method(), endpoint, repo.name(), refusal.message(),
                refusal.status(), refusal.rule());
        metrics.refused(refusal.rule(), repo.name());
        GateDecision decision = new GateDecision(repo.machine(), gateId, repo.name(), repo.guid(), head.method(), endpoint,
                refusal.rule(), refusal.device(), refusal.message(), refusal.fix(), Instant.now());
        if (!decisions.publish(decision)) {
            metrics.decisionNotPublished();
        }
    }

    /** The path without the query (which can carry large filters), bounded in size. */
    static String endpoint(String uri) {
        if (uri == null) {
            return "";
        }
        int q = uri.indexOf('?');
        String path = q >= 0 ? uri.substring(0, q) : uri;
        return path.length() > MAX_ENDPOINT ? path.substring(0, MAX_ENDPOINT) + "…" : path;
    }
}
