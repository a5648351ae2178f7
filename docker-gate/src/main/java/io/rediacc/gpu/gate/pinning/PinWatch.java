package io.rediacc.gpu.gate.pinning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.contracts.manifest.RepoEntry;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.policy.BindPins;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Follows each repo daemon so pins go with their owners: one thread per repo reads the daemon's
 * {@code destroy} events of containers and volumes ({@code GET /events}: also the removals the
 * daemon does itself, {@code --rm}/AutoRemove and removals at its boot) and sweeps the repo's pins
 * against the daemon's lists ({@code GET /containers/json?all=1}, {@code GET /volumes}, filtered by
 * the gate's token label) on each such event and on every (re)connection; each stream asks the
 * daemon to end it after {@link #SWEEP_INTERVAL}, so a quiet repo is swept that often too.
 */
public final class PinWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PinWatch.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Between sweeps of a repo while its event stream is quiet. */
    public static final Duration SWEEP_INTERVAL = Duration.ofMinutes(10);
    /** Before reconnecting to a daemon that did not answer. */
    static final Duration RETRY = Duration.ofSeconds(5);

    private static final String EVENTS = "/events?filters=" + URLEncoder.encode(
            "{\"type\":[\"container\",\"volume\"],\"event\":[\"destroy\"]}", StandardCharsets.UTF_8);
    private static final String LABEL_FILTER = URLEncoder.encode("{\"label\":[\"" + BindPins.TOKEN_LABEL + "\"]}",
            StandardCharsets.UTF_8);

    private final Pins pins;
    private final Function<RepoEntry, RepoIdentity> identity;
    private final Map<String, Watcher> watchers = new HashMap<>();
    private volatile boolean closed;

    public PinWatch(Pins pins, Function<RepoEntry, RepoIdentity> identity) {
        this.pins = pins;
        this.identity = identity;
    }

    /** Watches the daemons of {@code manifest}'s repos (started, stopped, restarted on a change). */
    public synchronized void serve(ReposManifest manifest) {
        Set<String> wanted = new HashSet<>();
        for (RepoEntry repo : manifest.repos()) {
            String key = repo.guid() + " " + repo.daemon();
            wanted.add(key);
            watchers.computeIfAbsent(key, k -> new Watcher(identity.apply(repo), repo.daemon()));
        }
        watchers.entrySet().removeIf(e -> {
            if (!wanted.contains(e.getKey())) {
                e.getValue().stop();
                return true;
            }
            return false;
        });
    }

    /** Sweeps one repo now against its daemon's lists; returns the pins removed. */
    public int sweep(RepoIdentity repo, SocketEndpoint daemon) throws IOException {
        long listedAfter = pins.commitMark();
        Set<String> containers = tokens(DaemonHttp.get(daemon, "/containers/json?all=1&filters=" + LABEL_FILTER), false);
        Set<String> volumes = tokens(DaemonHttp.get(daemon, "/volumes?filters=" + LABEL_FILTER), true);
        return pins.sweep(repo.guid(), containers, volumes, System.currentTimeMillis(), listedAfter);
    }

    private static Set<String> tokens(DaemonHttp.Answer answer, boolean volumes) throws IOException {
        if (answer.status() != 200) {
            throw new IOException("the daemon answered " + answer.status());
        }
        JsonNode root = JSON.readTree(answer.body());
        JsonNode list = volumes ? root.path("Volumes") : root;
        if (!list.isArray() && !(volumes && list.isNull())) {
            throw new IOException("the daemon's list is not an array");
        }
        Set<String> tokens = new HashSet<>();
        for (JsonNode item : list) {
            JsonNode token = item.path("Labels").path(BindPins.TOKEN_LABEL);
            if (token.isTextual()) {
                tokens.add(token.asText());
            }
        }
        return tokens;
    }

    /** A {@code destroy} event of a container or volume (the daemon filters; the gate checks again). */
    private static boolean isDestroy(String line) {
        if (line.isBlank()) {
            return false;
        }
        try {
            JsonNode event = JSON.readTree(line);
            return "destroy".equals(event.path("Action").asText(event.path("status").asText()));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        watchers.values().forEach(Watcher::stop);
        watchers.clear();
    }

    /** One repo daemon's event stream, on a thread of its own. */
    private final class Watcher implements Runnable {
        private final RepoIdentity repo;
        private final SocketEndpoint daemon;
        private final Thread thread;
        private volatile boolean stopped;
        private volatile DaemonHttp stream;

        Watcher(RepoIdentity repo, SocketEndpoint daemon) {
            this.repo = repo;
            this.daemon = daemon;
            this.thread = new Thread(this, "gate-pins-" + repo.name());
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            boolean warned = false;
            long backoff = RETRY.toMillis();
            while (!stopped && !closed) {
                long connectedAt = System.currentTimeMillis();
                try (DaemonHttp http = DaemonHttp.connect(daemon, (int) SWEEP_INTERVAL.toMillis())) {
                    stream = http;
                    sweepNow();
                    // until: the daemon ends the stream then, and the next connection sweeps again (the periodic sweep).
                    long until = System.currentTimeMillis() / 1000 + SWEEP_INTERVAL.toSeconds();
                    int status = http.stream(EVENTS + "&until=" + until, line -> {
                        if (isDestroy(line)) {
                            sweepNow();
                        }
                    });
                    if (status != 200) {
                        throw new IOException("GET /events answered " + status);
                    }
                    warned = false;
                    if (System.currentTimeMillis() - connectedAt > SWEEP_INTERVAL.toMillis() / 2) {
                        backoff = RETRY.toMillis();
                        continue; // the daemon ended the stream at `until`, as asked
                    }
                    // ended early: a daemon that does not stream events; back off rather than spin
                } catch (IOException | RuntimeException e) {
                    if (stopped || closed) {
                        return;
                    }
                    if (!warned) {
                        LOG.warnf("pins of repo %s: following its daemon %s failed (%s); retrying every %d s", repo.name(),
                                daemon, e.getMessage(), RETRY.toSeconds());
                        warned = true;
                    }
                }
                try {
                    Thread.sleep(backoff); // a reconnect delay, not a test wait
                } catch (InterruptedException e) {
                    return;
                }
                backoff = Math.min(backoff * 2, SWEEP_INTERVAL.toMillis());
            }
        }

        private void sweepNow() {
            try {
                int removed = sweep(repo, daemon);
                if (removed > 0) {
                    LOG.debugf("removed %d pin(s) of repo %s", removed, repo.name());
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        void stop() {
            stopped = true;
            DaemonHttp s = stream;
            if (s != null) {
                s.close();
            }
            thread.interrupt();
        }
    }
}
