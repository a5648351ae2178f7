package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.gate.policy.BindPins;
import io.rediacc.gpu.gate.policy.HostAccess;
import io.rediacc.gpu.gate.policy.PinnedObjectJudge;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.RepoRoots;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The gate's pins, per repo: made when a create is admitted ({@link #pin}), saved in the state
 * directory before the rewritten request leaves the gate, released when the create fails, swept
 * when their owner is gone ({@link #sweep}: the daemon's {@code destroy} events and its list of
 * containers and volumes, {@link PinWatch}), and pinned again at gate start from the record
 * ({@link #restore}) before the gate serves the repo. Pins live in
 * {@code <pin root>/<repo guid>/<id>}, outside every {@code hostPaths} root.
 */
public final class Pins implements BindPins {

    private static final Logger LOG = Logger.getLogger(Pins.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A pin of a create the gate did not see finish is kept this long before a sweep may take it. */
    public static final Duration PENDING_GRACE = Duration.ofMinutes(5);
    /** Commits made by this gate, in order (guarded by this monitor): see {@link #commitMark}. */
    private long commits;

    /** Where pins live when {@code gate.pin-root} names no other directory. */
    public static final Path DEFAULT_ROOT = Path.of("/run/rediacc/binds");

    /** Journal entries a repo's record may gather (beyond one per pin it holds) before it is written whole again. */
    static final int COMPACT_AFTER = 256;

    private final Path pinRoot;
    private final PinStore store;
    private final HostAccess access;
    private final PinnedObjectJudge judge;
    private final Map<String, RepoPins> byRepo = new HashMap<>();
    /**
     * Writes records and unmounts released pins off the request path (a record write or an unmount
     * takes milliseconds on a busy disk, a create's pins a fraction of one): one thread, in order.
     * A crash before a record is written leaves a pin the record lacks; the start-up sweep removes
     * it, and its container's start then fails (fail closed) until it is recreated.
     */
    private final java.util.concurrent.ExecutorService io = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gate-pins-io");
        t.setDaemon(true);
        return t;
    });
    private final Set<String> dirty = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public Pins(Path pinRoot, Path stateDir, HostAccess access) {
        this.pinRoot = pinRoot.toAbsolutePath().normalize();
        this.store = new PinStore(stateDir);
        this.access = access;
        this.judge = new PinnedObjectJudge(access);
    }

    public Path root() {
        return pinRoot;
    }

    @Override
    public String newToken() {
        byte[] b = new byte[12];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public String pinDirectory(RepoIdentity repo) {
        return pinRoot.resolve(repo.guid()).toString();
    }

    @Override
    public String pin(RepoIdentity repo, String token, Owner owner, String hostPath, boolean createMissing) {
        return pin(repo, token, owner, hostPath, createMissing, null);
    }

    @Override
    public String pin(RepoIdentity repo, String token, Owner owner, String hostPath, boolean createMissing, RepoRoots roots) {
        Beneath beneath = beneath(repo, hostPath, roots).orElseThrow(() -> new Refused(403, hostPath
                + " lies under none of the hostPaths roots of repo " + repo.name()));
        String id = newToken();
        Path dir = pinRoot.resolve(repo.guid());
        try {
            // one stat while it exists (it nearly always does), not a mkdir and its exception per bind
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir);
            }
        } catch (IOException e) {
            throw new Refused(500, "the gate cannot create its pin directory " + dir + ": " + e.getMessage());
        }
        BindPinner.Pin pin;
        try {
            pin = BindPinner.pin(beneath.root(), beneath.rel(), createMissing,
                    physical -> judge.judge(repo, hostPath, physical, roots), dir.resolve(id));
        } catch (BindPinner.Refused refused) {
            int status = switch (refused.kind()) {
                case CANNOT_PIN -> 500;
                case MISSING -> 400;
                default -> 403;
            };
            throw new Refused(status, refused.getMessage());
        }
        PinRecord record = new PinRecord(id, token, owner.name(), beneath.root().toString(), beneath.rel(), hostPath,
                pin.physicalPath(), pin.dev(), pin.ino(), pin.directory(), System.currentTimeMillis(), false);
        synchronized (this) {
            pins(repo.guid()).put(record);
        }
        return pin.target().toString();
    }

    @Override
    public void save(RepoIdentity repo) {
        saveLater(repo.guid());
    }

    /**
     * Writes the repo's changes soon, on the io thread (changes made meanwhile are one write): appended
     * to its journal, or as a new snapshot once the journal holds more changes than the record has pins.
     */
    private void saveLater(String guid) {
        if (dirty.add(guid)) {
            io.execute(() -> {
                dirty.remove(guid);
                List<PinStore.Change> changes;
                List<PinRecord> snapshot = null;
                RepoPins repo;
                synchronized (this) {
                    repo = pins(guid);
                    changes = repo.takeChanges();
                    if (changes.isEmpty()) {
                        return;
                    }
                    if (repo.journaled + changes.size() > Math.max(COMPACT_AFTER, repo.byId.size())) {
                        snapshot = List.copyOf(repo.byId.values());
                    }
                }
                try {
                    if (snapshot != null) {
                        store.save(guid, snapshot);
                        repo.journaled = 0;
                    } else {
                        store.append(guid, changes);
                        repo.journaled += changes.size();
                    }
                } catch (RuntimeException e) {
                    repo.journaled = Integer.MAX_VALUE / 2; // the next write is a whole snapshot
                    LOG.errorf("the gate could not write its pin record of repo %s: %s", guid, e.getMessage());
                }
            });
        }
    }

    private void unpinLater(Path target) {
        io.execute(() -> unpinQuietly(target));
    }

    /** Waits until every record write and unmount asked for so far is done (tests, benches, shutdown). */
    public void flush() {
        try {
            io.submit(() -> { }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Finishes pending writes and unmounts; the pins themselves stay (they outlive the gate by design). */
    public void close() {
        flush();
        io.shutdown();
    }

    @Override
    public void release(RepoIdentity repo, String token) {
        releaseToken(repo.guid(), token);
    }

    @Override
    public synchronized void commit(RepoIdentity repo, String token) {
        RepoPins pins = pins(repo.guid());
        boolean changed = false;
        long commit = ++commits;
        for (PinRecord r : pins.withToken(token)) {
            if (!r.committed()) {
                pins.put(r.commit());
                pins.committedAt.put(r.id(), commit);
                changed = true;
            }
        }
        if (changed) {
            saveLater(repo.guid());
        }
    }

    /** The repo's pins now (for tests and the status). */
    public synchronized List<PinRecord> pins(RepoIdentity repo) {
        return List.copyOf(pins(repo.guid()).byId.values());
    }

    /**
     * Where the commits stand: taken before the daemon's lists are read, it tells {@link #sweep} which
     * commits those lists may not show yet (a create the daemon answered after it listed).
     */
    public synchronized long commitMark() {
        return commits;
    }

    /** {@link #sweep(String, Set, Set, long, long)} with lists read after every commit so far. */
    public int sweep(String repoGuid, Set<String> containerTokens, Set<String> volumeTokens, long nowMillis) {
        return sweep(repoGuid, containerTokens, volumeTokens, nowMillis, Long.MAX_VALUE);
    }

    /**
     * Removes the pins whose owner the daemon no longer has: container pins whose token no container
     * carries, volume pins whose token no volume carries, if committed at or before {@code listedAfter}
     * (the {@link #commitMark} taken before the lists were read: a create committed after it may be missing
     * from them while its container exists, and its pin must stay for its start); a pin of a create not yet
     * seen to finish only after {@link #PENDING_GRACE}. Returns how many went.
     */
    public int sweep(String repoGuid, Set<String> containerTokens, Set<String> volumeTokens, long nowMillis,
                     long listedAfter) {
        List<PinRecord> gone = new ArrayList<>();
        synchronized (this) {
            RepoPins pins = pins(repoGuid);
            boolean changed = false;
            for (PinRecord r : List.copyOf(pins.byId.values())) {
                boolean alive = r.owner().equals(Owner.VOLUME.name()) ? volumeTokens.contains(r.token()) : containerTokens.contains(r.token());
                if (alive && !r.committed()) {
                    pins.put(r.commit());
                    changed = true;
                } else if (!alive && (r.committed()
                        ? pins.committedAt.getOrDefault(r.id(), 0L) <= listedAfter
                        : nowMillis - r.createdAtMillis() > PENDING_GRACE.toMillis())) {
                    gone.add(r);
                }
            }
            if (gone.isEmpty() && !changed) {
                return 0;
            }
            gone.forEach(r -> pins.remove(r.id()));
        }
        saveLater(repoGuid);
        for (PinRecord r : gone) {
            unpinLater(pinRoot.resolve(repoGuid).resolve(r.id()));
        }
        return gone.size();
    }

    /**
     * At gate start, before the repo is served: each recorded pin still mounted on the same object is
     * kept; one lost (a reboot emptied /run) is pinned again if its path beneath the root still opens
     * the recorded object (same device and inode), else dropped, so the daemon's start of its owner
     * fails rather than mount something else. Mounts and entries in the repo's pin directory that the
     * record does not list are removed.
     */
    public void restore(RepoIdentity repo) {
        flush(); // writes still queued for this repo (served before, then removed from the manifest) land first
        String guid = repo.guid();
        Path dir = pinRoot.resolve(guid);
        List<PinRecord> recorded = store.load(guid);
        LinkedHashMap<String, PinRecord> kept = new LinkedHashMap<>();
        Set<String> roots = listedRoots(repo);
        for (PinRecord r : recorded) {
            Path target = dir.resolve(r.id());
            boolean rootStillListed = roots.contains(r.root());
            if (rootStillListed && BindPinner.holds(target, r.dev(), r.ino())) {
                kept.put(r.id(), r);
                continue;
            }
            unpinQuietly(target);
            try {
                Files.createDirectories(dir);
                if (rootStillListed && BindPinner.repin(Path.of(r.root()), r.rel(), r.dev(), r.ino(), target)) {
                    kept.put(r.id(), r);
                    LOG.infof("pinned %s again for repo %s (%s)", r.requested(), repo.name(), target);
                } else {
                    LOG.warnf("the bind source %s of repo %s is no longer the object the gate judged (or its root left"
                            + " hostPaths); its pin %s is dropped and the container or volume using it will not start until"
                            + " it is recreated", r.requested(), repo.name(), target);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warnf("the gate could not pin %s of repo %s again (%s); its owner will not start until it is recreated",
                        r.requested(), repo.name(), e.getMessage());
            }
        }
        // What the record does not know: a crash between mount and save, or a record moved aside.
        for (Path point : BindPinner.mountsUnder(dir)) {
            if (!kept.containsKey(point.getFileName().toString())) {
                unpinQuietly(point);
            }
        }
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                entries.filter(p -> !kept.containsKey(p.getFileName().toString())).forEach(Pins::unpinQuietly);
            } catch (IOException e) {
                LOG.warnf("cannot list %s: %s", dir, e.getMessage());
            }
        }
        synchronized (this) {
            byRepo.put(guid, new RepoPins(kept.values()));
            store.save(guid, List.copyOf(kept.values()));
        }
    }

    /**
     * Refuses (at start and on every manifest change) a pin root under or above a {@code hostPaths}
     * root: a repo could then reach the pins of every repo.
     */
    public void checkOutside(List<String> hostPathRoots) {
        checkOutsideRoots(hostPathRoots);
        try {
            Files.createDirectories(pinRoot);
        } catch (IOException e) {
            throw new IllegalStateException("the gate cannot create its pin root " + pinRoot + " (gate.pin-root): " + e.getMessage(), e);
        }
        BindPinner.makePrivateMount(pinRoot);
    }

    private void checkOutsideRoots(List<String> hostPathRoots) {
        for (String root : hostPathRoots) {
            String r = Path.of(root).toAbsolutePath().normalize().toString();
            String p = pinRoot.toString();
            if (r.equals(p) || p.startsWith(r.equals("/") ? "/" : r + "/") || r.startsWith(p + "/")) {
                throw new IllegalArgumentException("the pin root " + p + " (gate.pin-root) overlaps the hostPaths root " + root
                        + ": a repo could reach other repos' pins; choose a pin root outside every hostPaths root");
            }
        }
    }

    /**
     * Drops the repo's pins whose root is no longer one of its {@code hostPaths} (the manifest narrowed them, read
     * through this gate's {@link HostAccess}): the daemon's next start of their owner finds no source and fails,
     * rather than mount what the repo may no longer reach. A running container keeps what it mounted until it
     * stops, as a revoked device's does. Returns how many went.
     */
    public int dropOutsideHostPaths(RepoIdentity repo) {
        Set<String> roots = listedRoots(repo);
        List<PinRecord> gone = new ArrayList<>();
        synchronized (this) {
            RepoPins pins = pins(repo.guid());
            for (PinRecord r : List.copyOf(pins.byId.values())) {
                if (!roots.contains(r.root())) {
                    gone.add(r);
                }
            }
            if (gone.isEmpty()) {
                return 0;
            }
            gone.forEach(r -> pins.remove(r.id()));
        }
        saveLater(repo.guid());
        for (PinRecord r : gone) {
            LOG.warnf("the root %s of bind source %s left the hostPaths of repo %s: its pin is dropped and the container or"
                    + " volume using it will not start until it is recreated", r.root(), r.requested(), repo.name());
            unpinLater(pinRoot.resolve(repo.guid()).resolve(r.id()));
        }
        return gone.size();
    }

    /** The repo's hostPaths roots as a pin records its root: as written (normalised) and as each resolves now. */
    private Set<String> listedRoots(RepoIdentity repo) {
        Set<String> listed = new HashSet<>();
        for (String root : access.allowance(repo).hostPaths()) {
            listed.add(Path.of(root).normalize().toString());
            access.realPath(root).ifPresent(listed::add);
        }
        return listed;
    }

    private void releaseToken(String guid, String token) {
        List<PinRecord> gone;
        synchronized (this) {
            RepoPins pins = pins(guid);
            gone = pins.withToken(token);
            if (gone.isEmpty()) {
                return;
            }
            gone.forEach(r -> pins.remove(r.id()));
        }
        saveLater(guid);
        for (PinRecord r : gone) {
            unpinLater(pinRoot.resolve(guid).resolve(r.id()));
        }
    }

    private RepoPins pins(String guid) {
        return byRepo.computeIfAbsent(guid, g -> new RepoPins(List.of()));
    }

    /**
     * One repo's pins by id (in the order they were made) and by token (a create's pins are committed
     * or released together: found without a scan of every pin), and the changes not yet written.
     * Guarded by the {@link Pins} monitor, but {@link #journaled}, which only the io thread touches.
     */
    private static final class RepoPins {
        final LinkedHashMap<String, PinRecord> byId = new LinkedHashMap<>();
        /** When this gate committed a pin ({@link #commitMark} order); a pin committed before it started has none. */
        final Map<String, Long> committedAt = new HashMap<>();
        private final Map<String, List<String>> idsByToken = new HashMap<>();
        private List<PinStore.Change> changes = new ArrayList<>();
        /** Changes in the journal since its snapshot. */
        int journaled;

        RepoPins(java.util.Collection<PinRecord> records) {
            for (PinRecord r : records) {
                byId.put(r.id(), r);
                idsByToken.computeIfAbsent(r.token(), t -> new ArrayList<>(2)).add(r.id());
            }
        }

        /** Adds or replaces a record (a commit replaces it with its committed copy). */
        void put(PinRecord r) {
            PinRecord before = byId.put(r.id(), r);
            if (before == null) {
                idsByToken.computeIfAbsent(r.token(), t -> new ArrayList<>(2)).add(r.id());
            }
            changes.add(PinStore.Change.put(r));
        }

        void remove(String id) {
            PinRecord gone = byId.remove(id);
            committedAt.remove(id);
            if (gone == null) {
                return;
            }
            List<String> ids = idsByToken.get(gone.token());
            if (ids != null) {
                ids.remove(id);
                if (ids.isEmpty()) {
                    idsByToken.remove(gone.token());
                }
            }
            changes.add(PinStore.Change.remove(id));
        }

        List<PinRecord> withToken(String token) {
            List<String> ids = idsByToken.get(token);
            if (ids == null) {
                return List.of();
            }
            List<PinRecord> out = new ArrayList<>(ids.size());
            for (String id : ids) {
                out.add(byId.get(id));
            }
            return out;
        }

        List<PinStore.Change> takeChanges() {
            List<PinStore.Change> taken = changes;
            changes = new ArrayList<>();
            return taken;
        }
    }

    private static void unpinQuietly(Path target) {
        try {
            BindPinner.unpin(target);
        } catch (RuntimeException e) {
            LOG.warnf("cannot remove pin %s: %s", target, e.getMessage());
        }
    }

    /** The root a host path lies beneath (the longest that holds it) and the rest of the path. */
    private record Beneath(Path root, String rel) {
    }

    /** With {@code roots}, the request's view of them; without, every root is resolved now. */
    private Optional<Beneath> beneath(RepoIdentity repo, String hostPath, RepoRoots roots) {
        Beneath best = null;
        List<RepoRoots.Root> all = roots != null ? roots.roots() : access.allowance(repo).hostPaths().stream()
                .map(w -> new RepoRoots.Root(w, access.realPath(w).orElse(null))).toList();
        for (RepoRoots.Root r : all) {
            List<String> forms = new ArrayList<>(2);
            forms.add(Path.of(r.written()).normalize().toString());
            if (r.resolved() != null) {
                forms.add(r.resolved());
            }
            for (String root : forms) {
                String rel;
                if (hostPath.equals(root)) {
                    rel = "";
                } else if (root.equals("/") ? hostPath.startsWith("/") : hostPath.startsWith(root + "/")) {
                    rel = hostPath.substring(root.equals("/") ? 1 : root.length() + 1);
                } else {
                    continue;
                }
                if (best == null || root.length() > best.root().toString().length()) {
                    best = new Beneath(Path.of(root), rel);
                }
            }
        }
        return Optional.ofNullable(best);
    }
}
