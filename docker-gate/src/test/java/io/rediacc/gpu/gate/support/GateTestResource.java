package io.rediacc.gpu.gate.support;

import io.rediacc.gpu.gate.daemon.GateUserAgent;
import io.rediacc.gpu.standin.StandInDockerd;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Starts the stand-in daemons and writes the repos manifest the gate under test serves:
 * {@code gpu-a} on TCP (what the docker CLI tests use), with {@link #repoMount()} as its host path
 * root and its daemon's data root and configuration inside it, as on a Rediacc machine; and its
 * fork {@code fork-a} on unix sockets, as in production, with no host paths.
 */
public class GateTestResource implements QuarkusTestResourceLifecycleManager {

    public static final String MACHINE = "m-cli";
    public static final String REPO = "gpu-a";
    public static final String REPO_GUID = "11111111-1111-4111-8111-111111111111";
    public static final String FORK = "fork-a";
    public static final String FORK_GUID = "22222222-2222-4222-8222-222222222222";

    private static StandInDockerd daemon;
    private static StandInDockerd forkDaemon;
    private static Path dir;

    /**
     * What the stand-in received from clients through the gate, without the gate's own requests (the daemon
     * check's {@code GET /info}, the pin watcher's sweeps: {@link GateUserAgent}), which arrive on their own schedule.
     */
    public static java.util.List<StandInDockerd.Received> clientRequests(StandInDockerd daemon) {
        return daemon.received().stream().filter(r -> !GateUserAgent.VALUE.equals(r.headers().get("user-agent"))).toList();
    }

    public static StandInDockerd daemon() {
        return daemon;
    }

    public static StandInDockerd forkDaemon() {
        return forkDaemon;
    }

    /** Stops the fork's daemon; {@link #startForkDaemon()} brings it back on the same socket (a daemon restart). */
    public static void stopForkDaemon() {
        forkDaemon.close();
    }

    public static StandInDockerd startForkDaemon() {
        forkDaemon = StandInDockerd.startUnix(forkDaemonSocket());
        return forkDaemon;
    }

    /** The fork's daemon socket: in a directory of its own (the gate protects a daemon socket's directory). */
    public static Path forkDaemonSocket() {
        return dir.resolve("run/fork-daemon.sock");
    }

    public static Path dir() {
        return dir;
    }

    public static Path forkSocket() {
        return dir.resolve("gate/fork-a.sock");
    }

    public static Path manifest() {
        return dir.resolve("etc/repos.yaml");
    }

    /** The host path root the manifest gives repo gpu-a (its "mount"): binds under it are allowed. */
    public static Path repoMount() {
        return dir.resolve("mounts").resolve(REPO_GUID);
    }

    public static Path stateDir() {
        return dir.resolve("state");
    }

    public static String manifestYaml(String extraRepos) {
        return """
                machine: %s
                repos:
                  - name: %s
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                    hostPaths: [%s]
                    daemonConfigDir: %s/.rediacc/docker/config
                    daemonDataRoot: %s/.rediacc/docker/data
                  - name: %s
                    guid: %s
                    forkOf: %s
                    listen: unix://%s
                    daemon: %s
                %s""".formatted(MACHINE, REPO, REPO_GUID, daemon.address(), repoMount(), repoMount(), repoMount(),
                FORK, FORK_GUID, REPO_GUID, forkSocket(),
                forkDaemon.address(), extraRepos);
    }

    @Override
    public Map<String, String> start() {
        try {
            dir = Files.createTempDirectory("gate-test");
            Files.createDirectories(dir.resolve("gate"));
            Files.createDirectories(dir.resolve("run"));
            Files.createDirectories(dir.resolve("etc"));
            Files.createDirectories(repoMount().resolve(".rediacc/docker/data"));
            Files.createDirectories(repoMount().resolve(".rediacc/docker/config"));
            daemon = StandInDockerd.startTcp();
            forkDaemon = StandInDockerd.startUnix(forkDaemonSocket());
            Files.writeString(manifest(), manifestYaml(""));
            StandaloneGates.removePinsAtExit(dir.resolve("binds"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of(
                "gate.manifest", manifest().toString(),
                "gate.manifest-poll-interval", "200ms",
                "gate.state-dir", stateDir().toString(),
                "gate.pin-root", dir.resolve("binds").toString(),
                "gate.id", "gate-test",
                "gate.heartbeat", "2s",
                "gate.max-body-bytes", "65536",
                // small enough for a test to go past: an upload is held on disk until judged, up to this
                "gate.connections.max-upload-bytes", "1048576",
                // Every test class refuses on repo gpu-a; the rate limit has its own unit test.
                "gate.decisions-burst", "100000",
                // grant-service's key as the tests hold it: GrantsTopic signs every snapshot with it
                "gate.grants-key", GrantsTopic.keyFile().toString());
    }

    @Override
    public void stop() {
        if (dir != null) {
            StandaloneGates.removePins(dir.resolve("binds"));
        }
        if (daemon != null) {
            daemon.close();
        }
        if (forkDaemon != null) {
            forkDaemon.close();
        }
    }
}
