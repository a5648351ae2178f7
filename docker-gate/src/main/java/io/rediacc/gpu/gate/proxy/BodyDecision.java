package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.policy.GatePolicy;
import io.rediacc.gpu.gate.policy.StoredVolume;
import io.rediacc.gpu.gate.policy.Verdict;
import io.rediacc.gpu.gate.policy.VolumeAnswers;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides a request whose body the policy holds: judges the body, and what the daemon has stored
 * that the request names (the container a start or update acts on, the named volumes a create
 * mounts), read through the gate's lookup connections ({@link DaemonLookups}). What is allowed
 * is forwarded as it was judged (with its binds pinned, issue 30); everything else is answered here.
 */
final class BodyDecision {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private final ClientConnection conn;
    private final DaemonLookups lookups;
    private final VolumeAnswers volumeAnswers;
    private final SocketEndpoint daemonEndpoint;
    private DaemonLookups.Pool lookupPool;

    BodyDecision(ClientConnection conn, DaemonLookups lookups, VolumeAnswers volumeAnswers, SocketEndpoint daemonEndpoint) {
        this.conn = conn;
        this.lookups = lookups;
        this.volumeAnswers = volumeAnswers;
        this.daemonEndpoint = daemonEndpoint;
    }

    /** The whole body of {@code ex} (the current exchange) has arrived: judge it, forward or refuse it. */
    void decide(Exchange ex) {
        // read as JSON once, by the judgement, and reused by the pin step
        GatePolicy.Body body = new GatePolicy.Body(ByteBufUtil.getBytes(ex.body));
        conn.exchanges.dropBody(ex);
        GatePolicy policy = conn.plane.policy();
        if (ex.stored == null) {
            Verdict verdict;
            try {
                verdict = policy.onBody(ex.head, body, conn.repo, conn.plane.grants());
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(conn.exchanges.policyFailure(e));
            }
            conclude(ex, verdict, body);
            return;
        }
        if (ex.stored.action().equals("update")) {
            // An update's body is judged like any body; a restart policy also has its container judged like a start.
            Verdict verdict;
            boolean restarts;
            try {
                verdict = policy.onBody(ex.head, body, conn.repo, conn.plane.grants());
                restarts = verdict instanceof Verdict.Allow && policy.updateSetsRestartPolicy(body.bytes());
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(conn.exchanges.policyFailure(e));
                restarts = false;
            }
            if (!restarts) {
                conclude(ex, verdict, body);
                return;
            }
        }
        judgeStoredContainer(ex, false, "to re-check its devices", "start", (fullId, verdict) -> {
            // Start what was judged, by its full ID: a rename since the check cannot swap containers.
            ex.request.setUri(ex.stored.targetFor(fullId));
            conclude(ex, verdict, body);
        });
    }

    /** The stored container's full ID and the policy's verdict on it, judged like a start. */
    interface StoredContainerJudged {
        void accept(String fullId, Verdict verdict);
    }

    /**
     * Reads the stored container {@code decided} names from the daemon and judges it like a start (binds
     * pinned, devices granted). When the daemon cannot say, the client gets the answer here (502, or the
     * daemon's own error such as 404); otherwise {@code then} gets the full ID and the verdict. Nothing
     * happens when the connection ended or moved on meanwhile.
     *
     * @param resumeReads  whether the client's reads were paused for the lookup (an upload holds its body)
     * @param beforeWhat   why the gate read the container, for the 502 message
     * @param notForwarded what was not forwarded when the daemon gave no full ID
     */
    void judgeStoredContainer(Exchange decided, boolean resumeReads, String beforeWhat, String notForwarded,
                              StoredContainerJudged then) {
        String containerId = decided.stored.containerId();
        StoredContainerReader.read(lookupPool(), containerId).addListener(done -> {
            if (conn.closing() || conn.exchanges.current() != decided) {
                return;
            }
            if (resumeReads) {
                conn.reads.pause(ClientReads.Reason.LOOKUP, false);
            }
            if (!done.isSuccess()) {
                conn.exchanges.respondLocally(502, "the gate could not read the stored configuration of container "
                        + containerId + " from the Docker daemon of repo " + conn.repo.name()
                        + " " + beforeWhat + ": " + done.cause().getMessage());
                return;
            }
            DaemonLookups.Answer answer = (DaemonLookups.Answer) done.getNow();
            if (answer.status() != 200) {
                // Not found and the like: the daemon's own error is the truthful answer.
                conn.exchanges.respondLocally(answer.status() >= 400 ? answer.status() : 502, daemonMessage(answer));
                return;
            }
            String fullId = StoredContainerReader.fullId(answer.body());
            if (fullId == null) {
                conn.exchanges.respondLocally(502, "the Docker daemon of repo " + conn.repo.name()
                        + " described container " + containerId + " without a full container ID; the "
                        + notForwarded + " was not forwarded");
                return;
            }
            Verdict verdict;
            try {
                verdict = conn.plane.policy().onStoredContainer(answer.body(), conn.repo, conn.plane.grants());
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(conn.exchanges.policyFailure(e));
            }
            then.accept(fullId, verdict);
        });
    }

    private void conclude(Exchange ex, Verdict verdict, GatePolicy.Body judged) {
        byte[] body = judged.bytes();
        GatePolicy policy = conn.plane.policy();
        if (verdict instanceof Verdict.Allow && policy.pinsBody(ex.head)) {
            // The daemon mounts what the gate pinned, not the paths it judged (issue 30).
            GatePolicy.Pinned pinned;
            try {
                pinned = policy.pin(ex.head, judged, conn.repo);
            } catch (RuntimeException e) {
                pinned = new GatePolicy.Pinned(null, null, conn.exchanges.policyFailure(e));
            }
            if (pinned.refusal() != null) {
                conn.exchanges.refuse(pinned.refusal());
                return;
            }
            if (pinned.token() != null) {
                ex.pinToken = pinned.token();
                body = pinned.body();
                if (HttpUtil.isContentLengthSet(ex.request)) {
                    HttpUtil.setContentLength(ex.request, body.length);
                }
            }
        }
        if (verdict instanceof Verdict.Allow) {
            conn.exchanges.forward(ex, body.length == 0 ? LastHttpContent.EMPTY_LAST_CONTENT
                    : new DefaultLastHttpContent(Unpooled.wrappedBuffer(body)));
        } else if (verdict instanceof Verdict.Deny deny) {
            conn.exchanges.refuse(deny.refusal());
        } else if (verdict instanceof Verdict.InspectVolumes inspect) {
            inspectVolumes(ex, inspect.names(), 0, new ArrayList<>(), judged);
        } else {
            conn.exchanges.refuse(conn.exchanges.policyFailure(new IllegalStateException("unknown verdict " + verdict)));
        }
    }

    /**
     * Reads the named volumes a request uses from the daemon, one after the other, then lets the
     * policy judge how they are backed; the request goes on only if that allows it. A volume's answer
     * the daemon's event stream still vouches for is not read again ({@link VolumeAnswers}); the policy
     * judges it all the same.
     */
    private void inspectVolumes(Exchange decided, List<String> names, int next, List<StoredVolume> read,
                                GatePolicy.Body body) {
        if (next == names.size()) {
            Verdict verdict;
            try {
                verdict = conn.plane.policy().onVolumes(read, conn.repo);
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(conn.exchanges.policyFailure(e));
            }
            conclude(decided, verdict, body);
            return;
        }
        String name = names.get(next);
        StoredVolume kept = volumeAnswers.stored(daemonEndpoint, name);
        if (kept != null) {
            read.add(kept);
            inspectVolumes(decided, names, next + 1, read, body);
            return;
        }
        long token = volumeAnswers.beforeLookup(daemonEndpoint);
        StoredContainerReader.readVolume(lookupPool(), name).addListener(done -> {
            if (conn.closing() || conn.exchanges.current() != decided) {
                return;
            }
            if (!done.isSuccess()) {
                conn.exchanges.respondLocally(502, "the gate could not read volume " + name
                        + " from the Docker daemon of repo " + conn.repo.name()
                        + " to check how it is backed: " + done.cause().getMessage());
                return;
            }
            DaemonLookups.Answer answer = (DaemonLookups.Answer) done.getNow();
            if (answer.status() == 200) {
                volumeAnswers.keep(daemonEndpoint, name, answer.body(), token);
            }
            read.add(new StoredVolume(name, answer.status(), answer.body()));
            inspectVolumes(decided, names, next + 1, read, body);
        });
    }

    /**
     * A request the gate passes may remove volumes ({@link GatePolicy#removesVolumes}): their kept answers are
     * forgotten before the daemon acts, so a request behind it is judged on what the daemon says then.
     */
    void volumesMayGo(String removal) {
        if (removal == null) {
            return;
        }
        if (removal.equals(GatePolicy.ALL_VOLUMES)) {
            volumeAnswers.forgetAll(daemonEndpoint);
        } else {
            volumeAnswers.destroyed(daemonEndpoint, removal);
        }
    }

    /** This connection's lookups on its daemon: on its event loop, from the gate's pool. */
    private DaemonLookups.Pool lookupPool() {
        if (lookupPool == null) {
            lookupPool = lookups.pool(daemonEndpoint, conn.client().eventLoop());
        }
        return lookupPool;
    }

    private static String daemonMessage(DaemonLookups.Answer answer) {
        String text = new String(answer.body(), StandardCharsets.UTF_8);
        try {
            var node = JSON.readTree(text);
            if (node != null && node.hasNonNull("message")) {
                return node.get("message").asText();
            }
        } catch (Exception ignored) {
            // not Docker's error format; fall through
        }
        return "the Docker daemon answered " + answer.status() + " when the gate read the container's configuration";
    }
}
