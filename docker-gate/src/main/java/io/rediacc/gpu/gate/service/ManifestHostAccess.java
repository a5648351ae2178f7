package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.contracts.manifest.RepoEntry;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.policy.HostAccess;
import io.rediacc.gpu.gate.policy.ProtectedPath;
import io.rediacc.gpu.gate.policy.RepoAllowance;
import io.rediacc.gpu.gate.policy.RepoIdentity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The policy's view of the host, built from the repos manifest and the gate's own settings: each
 * repo's {@code hostPaths} and listed drivers, and the paths no repo may reach — the manifest and
 * the gate's state directory, every unix socket of the manifest and its directory, each repo
 * daemon's configuration directory and data root (from the manifest, and as the daemon reports it
 * through {@link #daemonDataRoot}). Rebuilt on every manifest change; the policy reads an
 * immutable snapshot.
 */
public final class ManifestHostAccess implements HostAccess {

    private record Snapshot(List<ProtectedPath> protectedPaths, Map<String, RepoAllowance> byGuid, String manifestText) {
    }

    private final Path manifestFile;
    private final Path stateDir;
    private final Path pinRoot;
    private final Map<String, String> reportedDataRoots = new ConcurrentHashMap<>();
    private volatile ReposManifest manifest;
    private volatile Snapshot snapshot;

    public ManifestHostAccess(Path manifestFile, Path stateDir, ReposManifest manifest) {
        this(manifestFile, stateDir, null, manifest);
    }

    /** With {@code pinRoot}, the gate's pins of every repo are protected too (a bind of another repo's pin). */
    public ManifestHostAccess(Path manifestFile, Path stateDir, Path pinRoot, ReposManifest manifest) {
        this.manifestFile = manifestFile.toAbsolutePath().normalize();
        this.stateDir = stateDir.toAbsolutePath().normalize();
        this.pinRoot = pinRoot == null ? null : pinRoot.toAbsolutePath().normalize();
        update(manifest);
    }

    /** Applies a new version of the manifest (the gate's reload). */
    public synchronized void update(ReposManifest next) {
        this.manifest = next;
        rebuild();
    }

    /**
     * Protects the data root the daemon of {@code repoName} reports ({@code GET /info}
     * {@code DockerRootDir}) from the next request on; null forgets it.
     */
    public synchronized void daemonDataRoot(String repoName, String dockerRootDir) {
        if (dockerRootDir == null || dockerRootDir.isBlank() || !dockerRootDir.startsWith("/")) {
            reportedDataRoots.remove(repoName);
        } else {
            reportedDataRoots.put(repoName, dockerRootDir);
        }
        rebuild();
    }

    private void rebuild() {
        ReposManifest m = manifest;
        String where = manifestFile.toString();
        List<ProtectedPath> paths = new ArrayList<>();
        paths.add(new ProtectedPath(manifestFile.getParent() == null ? manifestFile.toString() : manifestFile.getParent().toString(),
                "the gate's repos manifest"));
        paths.add(new ProtectedPath(stateDir.toString(), "the gate's state directory (its grant snapshot)"));
        if (pinRoot != null) {
            paths.add(new ProtectedPath(pinRoot.toString(), "the gate's pinned bind sources of every repo"));
        }
        Map<String, RepoAllowance> byGuid = new HashMap<>();
        for (RepoEntry r : m.repos()) {
            socket(paths, r.listen(), "the gate socket of repo " + r.name());
            socket(paths, r.daemon(), "the Docker daemon socket of repo " + r.name());
            if (r.host().daemonConfigDir() != null) {
                paths.add(new ProtectedPath(r.host().daemonConfigDir(), "the configuration of repo " + r.name() + "'s Docker daemon"));
            }
            if (r.host().daemonDataRoot() != null) {
                paths.add(new ProtectedPath(r.host().daemonDataRoot(), "the data root of repo " + r.name() + "'s Docker daemon"));
            }
            String reported = reportedDataRoots.get(r.name());
            if (reported != null) {
                paths.add(new ProtectedPath(reported, "the data root of repo " + r.name() + "'s Docker daemon (its DockerRootDir)"));
            }
            byGuid.put(r.guid(), new RepoAllowance(r.host().hostPaths(), Set.copyOf(r.host().volumeDrivers()),
                    Set.copyOf(r.host().logDrivers()), where));
        }
        Set<String> seen = new LinkedHashSet<>();
        List<ProtectedPath> unique = paths.stream().filter(p -> seen.add(p.path())).toList();
        snapshot = new Snapshot(unique, Map.copyOf(byGuid), where);
    }

    /** A unix socket of the manifest: protected with its directory (a bind of the directory reaches the socket). */
    private static void socket(List<ProtectedPath> paths, SocketEndpoint endpoint, String why) {
        if (endpoint.kind() != SocketEndpoint.Kind.UNIX) {
            return;
        }
        Path dir = endpoint.path().getParent();
        paths.add(new ProtectedPath(dir == null || dir.toString().equals("/") ? endpoint.path().toString() : dir.toString(),
                why + " (" + endpoint.path() + ") and its directory"));
    }

    @Override
    public List<ProtectedPath> protectedPaths() {
        return snapshot.protectedPaths();
    }

    @Override
    public RepoAllowance allowance(RepoIdentity repo) {
        Snapshot s = snapshot;
        RepoAllowance allowance = s.byGuid().get(repo.guid());
        return allowance != null ? allowance : RepoAllowance.none(s.manifestText());
    }

    @Override
    public Optional<String> realPath(String cleanedAbsolutePath) {
        return resolve(Path.of(cleanedAbsolutePath));
    }

    /**
     * Symlinks of the longest existing prefix resolved, the missing rest appended as written (the
     * daemon creates a missing bind source through the same links). A link that exists but leads
     * nowhere, or a directory the gate may not search, leaves it unresolved.
     */
    static Optional<String> resolve(Path path) {
        Deque<String> rest = new ArrayDeque<>();
        Path p = path;
        while (p != null) {
            try {
                Path real = p.toRealPath();
                for (String name : rest) {
                    real = real.resolve(name);
                }
                return Optional.of(real.toString());
            } catch (NoSuchFileException missing) {
                if (Files.isSymbolicLink(p) || Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                    return Optional.empty(); // a dangling link: where it would lead is not known
                }
                Path name = p.getFileName();
                if (name == null) {
                    return Optional.empty();
                }
                rest.addFirst(name.toString());
                p = p.getParent();
            } catch (IOException | SecurityException cannot) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
