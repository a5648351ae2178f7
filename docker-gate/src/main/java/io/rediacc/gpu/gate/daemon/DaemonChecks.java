package io.rediacc.gpu.gate.daemon;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.manifest.RepoEntry;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.gate.policy.ApiVersions;
import io.rediacc.gpu.gate.proxy.NettyTransport;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Verifies every served repo's daemon ({@code GET /info}, {@link DaemonRules}) when the repo is
 * first served, every {@code interval} while it is fit and every {@code retryInterval} while it is
 * not (so a daemon that comes back is checked on reconnect). Keeps each repo's last
 * {@link DaemonStatus} for the policy (device requests wait while it is not {@code ok}), the status
 * record and the metrics, and calls {@code onChange} whenever a state changes.
 */
public final class DaemonChecks implements DaemonFacts, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DaemonChecks.class);

    /** One served repo: what it is, what was found, and its next scheduled check. */
    private record Tracked(RepoEntry repo, DaemonStatus status, String dockerRootDir, ApiVersions apiVersions,
                           ScheduledFuture<?> next, Gauge gauge, Object chain) {
    }

    private final DaemonInfoReader reader;
    private final DaemonCheckSettings settings;
    private final MeterRegistry registry;
    private final Runnable onChange;
    private final Clock clock;
    private final ScheduledExecutorService timer;
    private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
    private volatile List<String> order = List.of();

    public DaemonChecks(NettyTransport transport, DaemonCheckSettings settings, Duration connectTimeout,
                        Duration readTimeout, MeterRegistry registry, Runnable onChange) {
        this.reader = new DaemonInfoReader(transport, connectTimeout, readTimeout);
        this.settings = settings;
        this.registry = registry;
        this.onChange = onChange;
        this.clock = Clock.systemUTC();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gate-daemon-check");
            t.setDaemon(true);
            return t;
        });
        Gauge.builder("gate.daemons.unverified", this, c -> c.statuses().stream()
                        .filter(s -> !DaemonStatus.OK.equals(s.state())).count())
                .description("Repo daemons not verified now (unchecked, unreachable or misconfigured); their device requests get 503")
                .register(registry);
    }

    /** Follows the manifest: new repos (or a changed daemon address) are checked at once, removed ones forgotten. */
    public synchronized void serve(ReposManifest manifest) {
        Map<String, RepoEntry> wanted = new LinkedHashMap<>();
        for (RepoEntry repo : manifest.repos()) {
            wanted.put(repo.guid(), repo);
        }
        for (String guid : new ArrayList<>(tracked.keySet())) {
            RepoEntry next = wanted.get(guid);
            Tracked held = tracked.get(guid);
            if (next == null || !next.daemon().equals(held.repo().daemon()) || !next.name().equals(held.repo().name())) {
                forget(guid);
            }
        }
        for (RepoEntry repo : wanted.values()) {
            if (!tracked.containsKey(repo.guid())) {
                Gauge gauge = Gauge.builder("gate.daemon.verified", this, c -> c.verified(repo.guid()) ? 1 : 0)
                        .description("1 when the repo's daemon was verified (runc default, exact CDI spec dirs), else 0")
                        .tag("repo", repo.name())
                        .register(registry);
                Object chain = new Object();
                tracked.put(repo.guid(), new Tracked(repo, new DaemonStatus(repo.name(), repo.guid(),
                        DaemonStatus.UNCHECKED, null, null), null, null, null, gauge, chain));
                schedule(repo.guid(), chain, 0);
            }
        }
        order = List.copyOf(wanted.keySet());
    }

    private void forget(String guid) {
        Tracked gone = tracked.remove(guid);
        if (gone != null) {
            if (gone.next() != null) {
                gone.next().cancel(false);
            }
            registry.remove(gone.gauge());
        }
    }

    /** Checks the repo's daemon now (also what the timer runs); completes with the state found. */
    public CompletableFuture<DaemonStatus> checkNow(String guid) {
        Tracked held = tracked.get(guid);
        if (held == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no served repo has GUID " + guid));
        }
        RepoEntry repo = held.repo();
        return reader.read(repo.daemon()).handle((answer, error) -> record(repo, answer, error));
    }

    private synchronized DaemonStatus record(RepoEntry repo, DaemonInfoReader.DaemonAnswer answer, Throwable error) {
        DaemonStatus found;
        String rootDir = null;
        ApiVersions versions = null;
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            found = new DaemonStatus(repo.name(), repo.guid(), DaemonStatus.UNREACHABLE,
                    repo.daemon() + ": " + describe(cause), clock.instant());
        } else {
            DaemonInfo info = answer.info();
            rootDir = info.dockerRootDir();
            versions = answer.apiVersions();
            List<String> problems = DaemonRules.problems(info, settings.cdiSpecDirs());
            found = problems.isEmpty()
                    ? new DaemonStatus(repo.name(), repo.guid(), DaemonStatus.OK, null, clock.instant())
                    : new DaemonStatus(repo.name(), repo.guid(), DaemonStatus.MISCONFIGURED,
                    String.join("; ", problems) + " (daemon " + repo.daemon() + ")", clock.instant());
        }
        Tracked held = tracked.get(repo.guid());
        if (held == null || !held.repo().equals(repo)) {
            return found; // the repo left the manifest (or changed) while its daemon answered
        }
        String keptRoot = rootDir != null ? rootDir : held.dockerRootDir();
        // Kept while the daemon is unreachable: a daemon that comes back is read again before it is trusted anew.
        ApiVersions keptVersions = versions != null ? versions : held.apiVersions();
        boolean changed = !held.status().state().equals(found.state()) || !Objects.equals(held.status().detail(), found.detail());
        tracked.put(repo.guid(), new Tracked(repo, found, keptRoot, keptVersions, held.next(), held.gauge(), held.chain()));
        // Every answer, scheduled or asked for, sets the next check: soon while the daemon is not fit.
        if (held.next() != null) {
            held.next().cancel(false);
        }
        boolean fit = DaemonStatus.OK.equals(found.state());
        schedule(repo.guid(), held.chain(), (fit ? settings.interval() : settings.retryInterval()).toMillis());
        if (changed) {
            if (DaemonStatus.OK.equals(found.state())) {
                LOG.infof("daemon of repo %s (%s) verified: default runtime runc, CDI spec dirs %s", repo.name(),
                        repo.daemon(), settings.cdiSpecDirs());
            } else {
                LOG.errorf("daemon of repo %s %s; device requests of %s are refused (503) until it is fixed",
                        repo.name(), found.line(), repo.name());
            }
            if (!timer.isShutdown()) {
                timer.execute(onChange); // publishing may wait on Kafka: never on a data-plane thread
            }
        }
        return found;
    }

    private static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.toString() : message;
    }

    /**
     * One chain of checks per served repo: each check schedules the next. {@code chain} identifies
     * the repo's current chain, so a chain of a repo that was removed (or re-added) ends.
     */
    private synchronized void schedule(String guid, Object chain, long delayMillis) {
        Tracked held = tracked.get(guid);
        if (held == null || held.chain() != chain || timer.isShutdown()) {
            return;
        }
        ScheduledFuture<?> next;
        try {
            next = timer.schedule(() -> runScheduled(guid, chain), delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            return;
        }
        tracked.put(guid, new Tracked(held.repo(), held.status(), held.dockerRootDir(), held.apiVersions(), next, held.gauge(), chain));
    }

    private void runScheduled(String guid, Object chain) {
        Tracked held = tracked.get(guid);
        if (held == null || held.chain() != chain) {
            return;
        }
        checkNow(guid); // its answer schedules the next check
    }

    /** The last state of the repo's daemon; {@code unchecked} for a GUID the gate does not serve. */
    public DaemonStatus status(String guid) {
        Tracked t = tracked.get(guid);
        return t != null ? t.status() : new DaemonStatus(null, guid, DaemonStatus.UNCHECKED, "not a served repo", null);
    }

    /** Every served repo's daemon, in manifest order. */
    public List<DaemonStatus> statuses() {
        List<DaemonStatus> out = new ArrayList<>();
        for (String guid : order) {
            Tracked t = tracked.get(guid);
            if (t != null) {
                out.add(t.status());
            }
        }
        return out;
    }

    private boolean verified(String guid) {
        Tracked t = tracked.get(guid);
        return t != null && DaemonStatus.OK.equals(t.status().state());
    }

    @Override
    public Optional<String> dockerRootDir(String repoGuid) {
        Tracked t = tracked.get(repoGuid);
        return Optional.ofNullable(t == null ? null : t.dockerRootDir());
    }

    /**
     * The API versions the repo's daemon serves ({@code GET /version}), once it has answered; the
     * last answer is kept while the daemon is unreachable.
     */
    public Optional<ApiVersions> apiVersions(String repoGuid) {
        Tracked t = tracked.get(repoGuid);
        return Optional.ofNullable(t == null ? null : t.apiVersions());
    }

    /**
     * Waits up to {@code limit} until every served repo's daemon has answered once (or failed to):
     * the gate opens its listeners knowing which API versions each daemon serves, so the first
     * requests are not refused for want of them.
     */
    public void awaitFirstChecks(Duration limit) {
        CompletableFuture<?>[] first = tracked.keySet().stream()
                .filter(guid -> DaemonStatus.UNCHECKED.equals(status(guid).state()))
                .map(this::checkNow).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(first).get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException slow) {
            // a daemon that does not answer in time stays unchecked: its versioned requests wait (503)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Map<String, String> dockerRootDirs() {
        Map<String, String> out = new LinkedHashMap<>();
        tracked.forEach((guid, t) -> {
            if (t.dockerRootDir() != null) {
                out.put(guid, t.dockerRootDir());
            }
        });
        return out;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        for (String guid : new ArrayList<>(tracked.keySet())) {
            forget(guid);
        }
    }
}
